import { handleAgentRun } from "@/server/transport/agui-route";

export const dynamic = "force-dynamic";

export async function POST(request: Request, { params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = await params;
  return handleAgentRun(request, agentId);
}
