import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { RunPage } from "@/components/console/RunPage";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function ConsoleRunPage({ params }: { params: Promise<{ runId: string }> }) {
  const { runId } = await params;
  const identity = await requireIdentity(`/console/runs/${encodeURIComponent(runId)}`);
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        The operator console is for your organisation&apos;s admins.
      </PageMessage>
    );
  }
  return <RunPage runId={runId} />;
}
