import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { Webhooks } from "@/components/console/Webhooks";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function WebhooksPage() {
  const identity = await requireIdentity("/console/webhooks");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        Webhooks are managed by your organisation&apos;s admins.
      </PageMessage>
    );
  }
  return <Webhooks />;
}
