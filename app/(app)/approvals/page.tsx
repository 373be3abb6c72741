import { ApprovalsInbox } from "@/components/approvals/ApprovalsInbox";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * The approvals inbox: approvers decide what is routed to them; everyone sees their own requests
 * waiting on others (and may withdraw them). The server lists only what the caller may see.
 */
export default async function ApprovalsPage() {
  const identity = await requireIdentity("/approvals");
  return (
    <ApprovalsInbox
      viewerId={identity.userId}
      viewerIsApprover={hasRole(identity, "approver")}
      viewerIsAdmin={hasRole(identity, "admin")}
    />
  );
}
