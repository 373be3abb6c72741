/**
 * An operator's MCP server, run as a local process over stdio (HARBOR_MCP_STDIO_SERVERS): offered
 * to the tenants it names, never configurable by them, and given none of Harbor's environment.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { mcpConnector } from "@/server/mcp/connector";
import type { LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { startModelServer, type ModelServer } from "../../../helpers/model-server";
import { ALICE, CAROL, MALLORY, drain, started, testRuntime } from "../../../helpers/runtime";

const FIXTURE = path.resolve("tests/fixtures/mcp/stdio-server.mjs");

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "assistant",
  threadId,
  transportRunId: `mcp-stdio-${++counter}`,
  messages: text ? [{ id: `mcp-stdio-m-${counter}`, role: "user", content: text }] : [],
  resume,
});
const toolResult = (events: readonly LoggedEvent[]) => events.flatMap((e) => (e.event.type === "tool.result" ? [e.event.content] : []))[0];

describe.each(testBackends())("an operator's MCP server over stdio, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let model: ModelServer;
  let runtime: Runtime;
  const callsOnce = (tool: string, args: Record<string, unknown>) =>
    model.script((req) => {
      const last = req.messages.at(-1)!;
      return last.role === "tool" ? { text: `Tool said: ${last.content}` } : { toolCalls: [{ name: tool, args }] };
    });

  beforeAll(async () => {
    process.env.HARBOR_CANARY_SECRET = "canary-4cc1b2";
    model = await startModelServer();
    runtime = testRuntime(database.db, {
      agents: createAgents({ model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 0, timeoutMs: 10_000 } }),
      mcp: {
        connector: mcpConnector({ allowLocal: false, timeoutMs: 10_000, holdMs: 60_000 }),
        operatorServers: [{ name: "local", command: process.execPath, args: [FIXTURE], env: { GREETING: "hi" }, tenants: ["tenant-acme"] }],
      },
    });
  });
  afterAll(async () => {
    delete process.env.HARBOR_CANARY_SECRET;
    runtime.close();
    await runtime.idle();
    await model.close();
  });

  it("offers the server to the tenants it names, as the deployment's: not removable, gates from its annotations", async () => {
    const [local] = await runtime.mcpServers.list(CAROL);
    expect(local).toMatchObject({ id: "stdio:local", name: "local", source: "operator", tools: 3 });
    expect(await runtime.mcpServers.list(MALLORY)).toEqual([]);
    const tools = await runtime.mcpServers.tools(CAROL, "stdio:local");
    expect(Object.fromEntries(tools.map((t) => [t.name, t.gate]))).toEqual({ echo: "none", environment: "none", greet: "owner" });
    await expect(runtime.mcpServers.delete(CAROL, "stdio:local")).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(runtime.mcpServers.setGate(CAROL, { id: "stdio:local", tool: "echo", gate: "owner" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(runtime.mcpServers.create(CAROL, { name: "local", url: "https://mcp.example.com/" })).rejects.toMatchObject({
      details: { field: "name" },
    });
  });

  it("runs its tools for the model, in a process that gets none of Harbor's environment", async () => {
    callsOnce("local__echo", { text: "over stdio" });
    const events = await drain(started(await runtime.startRun(ALICE, request("stdio-echo", "echo something"))).events);
    expect(toolResult(events)).toContain("echo: over stdio");
    callsOnce("local__environment", {});
    const names = toolResult(await drain(started(await runtime.startRun(ALICE, request("stdio-env", "what env?"))).events));
    expect(names).toContain("GREETING");
    expect(names).not.toContain("HARBOR_CANARY_SECRET");
    expect(names).not.toContain("TEST_DATABASE_URL");
  });

  it("asks its form question over stdio and hands the answer back", async () => {
    callsOnce("local__greet", {});
    const gated = await drain(started(await runtime.startRun(ALICE, request("stdio-greet", "greet someone"))).events);
    const gate = gated.at(-1)!.event;
    if (gate.type !== "run.paused") throw new Error("expected the owner's gate");
    const asked = await drain(
      started(
        await runtime.startRun(
          ALICE,
          request("stdio-greet", undefined, [{ interactionId: gate.interrupts[0]!.id, status: "resolved", payload: { approved: true } }]),
        ),
      ).events,
    );
    const question = asked.at(-1)!.event;
    if (question.type !== "run.paused") throw new Error("expected the server's question");
    expect(question.interrupts[0]).toMatchObject({ kind: "mcp_input", message: "Whom should I greet?" });
    const done = await drain(
      started(
        await runtime.startRun(
          ALICE,
          request("stdio-greet", undefined, [{ interactionId: question.interrupts[0]!.id, status: "resolved", payload: { name: "Bob" } }]),
        ),
      ).events,
    );
    expect(toolResult(done)).toContain("Hello, Bob!");
  });
});
