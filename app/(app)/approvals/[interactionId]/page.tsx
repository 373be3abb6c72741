import { ApprovalsInbox } from "@/components/approvals/ApprovalsInbox";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * One request in the approvals inbox (`/approvals/<interactionId>`): the inbox with that request
 * open — a link to share, a reload that keeps it, and on a phone a page Back leaves for the list.
 * The inbox reads the request from the address; the server shows it only to who may see it.
 */
export default async function ApprovalPage({ params }: { params: Promise<{ interactionId: string }> }) {
  const { interactionId } = await params;
  const identity = await requireIdentity(`/approvals/${encodeURIComponent(interactionId)}`);
  return (
    <ApprovalsInbox
      viewerId={identity.userId}
      viewerIsApprover={hasRole(identity, "approver")}
      viewerIsAdmin={hasRole(identity, "admin")}
    />
  );
}
