import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { Retention } from "@/components/console/Retention";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function RetentionPage() {
  const identity = await requireIdentity("/console/retention");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        How long your organisation&apos;s data is kept is managed by its admins.
      </PageMessage>
    );
  }
  return <Retention />;
}
