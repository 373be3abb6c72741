import { ShieldAlertIcon } from "lucide-react";
import { Suspense } from "react";
import { PageMessage } from "@/components/PageMessage";
import { Console } from "@/components/console/Console";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ConsolePage() {
  const identity = await requireIdentity("/console");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        The operator console is for your organisation&apos;s admins.
      </PageMessage>
    );
  }
  // The filters live in the URL (useSearchParams).
  return (
    <Suspense>
      <Console />
    </Suspense>
  );
}
