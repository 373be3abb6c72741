/**
 * An MCP tool in a model's turn, through Harbor against the same work done directly — the baseline
 * an application without Harbor would run: the model's request, the tool called with the official
 * SDK (a session per call, as Harbor does), the model's second request.
 * - read-only: one turn, the tool runs at once;
 * - form: the server asks a question mid-call; through Harbor the run parks (an interrupt), the
 *   answer comes in a second request and goes back over the held session; directly, the client's
 *   question handler answers at once.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startMcpPeer } from "../server/peers/mcp-server";
import { createToken, signIn, trpcMutation } from "../tests/helpers/http";
import { startModelServer, type ChatRequest } from "../tests/helpers/model-server";
import { startServer } from "../tests/helpers/server";
import { keepBusy, percentile } from "./stats";
import { body, events } from "./tools-and-waits";

export interface McpTurns {
  case: "read-only" | "form";
  path: "direct" | "Harbor";
  inFlight: number;
  turnsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

const TOOL = { "read-only": "bench__list_events", form: "bench__book_room" } as const;

/** The scripted model: a call of the tool the user names, then one line once it has the result. */
function model(request: ChatRequest) {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: "Done." };
  const asked = [...request.messages].reverse().find((m) => m.role === "user")?.content ?? "";
  return asked.includes("book")
    ? { toolCalls: [{ name: TOOL.form, args: { event: "Bench" } }] }
    : { toolCalls: [{ name: TOOL["read-only"], args: {} }] };
}

/** The model asked directly, its streamed answer read to the end. */
async function askModel(baseUrl: string, messages: unknown[]): Promise<void> {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted", stream: true, messages }),
  });
  await res.text();
}

/** The baseline: model, the tool through the SDK (a session of its own), model again. */
async function directTurn(modelUrl: string, mcpUrl: string, which: McpTurns["case"]): Promise<boolean> {
  const user = { role: "user", content: which === "form" ? "book a room" : "what is on today?" };
  await askModel(modelUrl, [user]);
  const client = new Client({ name: "bench", version: "1" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { room: "Dock", minutes: 30 } }));
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl));
  await client.connect(transport);
  try {
    const result = await client.callTool(which === "form" ? { name: "book_room", arguments: { event: "Bench" } } : { name: "list_events" });
    await askModel(modelUrl, [user, { role: "tool", tool_call_id: "c1", content: JSON.stringify(result.content) }]);
    return true;
  } finally {
    await transport.terminateSession();
    await client.close();
  }
}

/** Through Harbor's assistant over AG-UI: one turn, or a turn that parks on the form and the answer's turn. */
async function harborTurn(baseUrl: string, bearer: string, which: McpTurns["case"]): Promise<boolean> {
  const url = `${baseUrl}/api/agents/assistant/runs`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  const threadId = randomUUID();
  const ask = { id: randomUUID(), role: "user", content: which === "form" ? "book a room" : "what is on today?" };
  const first = await events(await fetch(url, { method: "POST", headers, body: body(threadId, [ask]) }));
  const ended = first.at(-1) as { type?: string; outcome?: { type?: string; interrupts?: { id: string }[] } } | undefined;
  if (process.env.BENCH_VERBOSE && ended?.type !== "RUN_FINISHED") console.error(JSON.stringify(ended));
  if (which === "read-only") return ended?.type === "RUN_FINISHED" && ended.outcome?.type === "success";
  const question = ended?.outcome?.interrupts?.[0];
  if (!question) return false;
  const resume = [{ interruptId: question.id, status: "resolved", payload: { room: "Dock", minutes: 30 } }];
  const done = (await events(await fetch(url, { method: "POST", headers, body: body(threadId, [], { resume }) }))).at(-1) as
    { type?: string; outcome?: { type?: string } } | undefined;
  return done?.type === "RUN_FINISHED" && done.outcome?.type === "success";
}

async function measure(
  path: McpTurns["path"],
  which: McpTurns["case"],
  inFlight: number,
  seconds: number,
  turn: () => Promise<boolean>,
): Promise<McpTurns> {
  const { samples, failures, elapsedMs } = await keepBusy(inFlight, seconds, async () => {
    const t0 = performance.now();
    const ok = await turn().catch((error: unknown) => {
      if (process.env.BENCH_VERBOSE) console.error(error);
      return false;
    });
    return ok ? { total: performance.now() - t0 } : null;
  });
  const totals = samples.total ?? [];
  return {
    case: which,
    path,
    inFlight,
    turnsPerSecond: totals.length / (elapsedMs / 1000),
    p50: percentile(totals, 50),
    p99: percentile(totals, 99),
    failures,
  };
}

/** Both cases, at 1 and 10 turns in flight, direct and through Harbor (embedded database). */
export async function measureMcp(seconds: number): Promise<McpTurns[]> {
  const scripted = await startModelServer(model);
  const peer = await startMcpPeer({});
  const server = await startServer(
    {
      HARBOR_MODEL_BASE_URL: scripted.baseUrl,
      HARBOR_MODEL: "scripted",
      HARBOR_STREAM_CHUNK_MS: "0",
      LOG_LEVEL: "warn",
      HARBOR_MCP_TIMEOUT_MS: "5000",
    },
    "bench-mcp",
  );
  try {
    const carol = { cookie: await signIn(server.url, "carol@acme.test") };
    const created = await trpcMutation<{ id: string }>(server.url, carol, "mcp.servers.create", { name: "bench", url: peer.url });
    if (!created.data) throw new Error(`could not connect the MCP server: ${JSON.stringify(created.error)}`);
    await trpcMutation(server.url, carol, "mcp.servers.setGate", { id: created.data.id, tool: "book_room", gate: "none" });
    const { token } = await createToken(server.url, await signIn(server.url, "alice@acme.test"), "bench-mcp");
    const results: McpTurns[] = [];
    for (const which of ["read-only", "form"] as const) {
      for (const inFlight of [1, 10]) {
        const direct = () => directTurn(scripted.baseUrl, peer.url, which);
        const harbor = () => harborTurn(server.url, token, which);
        await measure("Harbor", which, inFlight, 1, harbor);
        results.push(await measure("direct", which, inFlight, seconds, direct));
        results.push(await measure("Harbor", which, inFlight, seconds, harbor));
      }
    }
    return results;
  } finally {
    await server.stop();
    await peer.close();
    await scripted.close();
  }
}
