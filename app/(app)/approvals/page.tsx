import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { ApprovalsInbox } from "@/components/approvals/ApprovalsInbox";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const identity = await requireIdentity("/approvals");
  if (!hasRole(identity, "approver")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Approvers only" testId="approvals-forbidden">
        The approvals inbox is for your organisation&apos;s approvers and admins.
      </PageMessage>
    );
  }
  return <ApprovalsInbox viewerId={identity.userId} viewerIsAdmin={hasRole(identity, "admin")} />;
}
