import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { McpServers } from "@/components/console/McpServers";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function McpServersPage() {
  const identity = await requireIdentity("/console/mcp");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        MCP servers are managed by your organisation&apos;s admins.
      </PageMessage>
    );
  }
  return <McpServers />;
}
