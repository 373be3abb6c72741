import Link from "next/link";
import { Console } from "@/components/console/Console";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ConsolePage() {
  const identity = await requireIdentity("/console");
  if (!hasRole(identity, "admin")) {
    return (
      <main className="centered">
        <div className="card narrow" data-testid="console-forbidden">
          <h1>Admins only</h1>
          <p className="muted">The operator console is for your organisation&apos;s admins.</p>
          <Link className="button" href="/chat">
            Back to your conversations
          </Link>
        </div>
      </main>
    );
  }
  return <Console />;
}
