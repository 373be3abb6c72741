import Link from "next/link";
import { ApprovalsInbox } from "@/components/approvals/ApprovalsInbox";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const identity = await requireIdentity("/approvals");
  if (!hasRole(identity, "approver")) {
    return (
      <main className="centered">
        <div className="card narrow" data-testid="approvals-forbidden">
          <h1>Approvers only</h1>
          <p className="muted">The approvals inbox is for your organisation&apos;s approvers and admins.</p>
          <Link className="button" href="/chat">
            Back to your conversations
          </Link>
        </div>
      </main>
    );
  }
  return <ApprovalsInbox viewerId={identity.userId} />;
}
