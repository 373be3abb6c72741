/**
 * Tools from a real MCP server (the demo calendar, over Streamable HTTP) in model-driven runs: the
 * scripted model calls them by `<server>__<tool>`, each behind the gate its annotations (or an
 * admin) give it, and the server's questions — a form, a page — park the run on the one pause.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { findRun } from "@/server/db/queries/runs";
import { mcpConnector } from "@/server/mcp/connector";
import { startMcpPeer, type RunningMcpPeer } from "@/server/peers/mcp-server";
import type { Identity, LoggedEvent, Runtime, RuntimeDeps, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { startModelServer, type ModelServer } from "../../../helpers/model-server";
import { ALICE, BOB, CAROL, MALLORY, drain, started, testRuntime } from "../../../helpers/runtime";

let counter = 0;
const request = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "assistant",
  threadId,
  transportRunId: `mcp-${++counter}`,
  messages: text ? [{ id: `mcp-m-${counter}`, role: "user", content: text }] : [],
  resume,
});
const lastOf = (events: readonly LoggedEvent[]) => events.at(-1)!.event;
const paused = (events: readonly LoggedEvent[]) => {
  const last = lastOf(events);
  if (last.type !== "run.paused") throw new Error(`expected a pause, got ${JSON.stringify(last)}`);
  return last.interrupts[0]!;
};

describe.each(testBackends())("MCP tools on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let model: ModelServer;
  let peer: RunningMcpPeer;
  let runtime: Runtime;
  let serverId: string;
  const mcpDeps = (timeoutMs = 5_000): RuntimeDeps["mcp"] => ({
    allowLocal: true,
    connector: mcpConnector({ allowLocal: true, timeoutMs, holdMs: 60_000 }),
  });
  const runtimeWith = (mcp: RuntimeDeps["mcp"]) =>
    testRuntime(database.db, {
      agents: createAgents({ model: { baseUrl: model.baseUrl, model: "scripted", maxRetries: 0, timeoutMs: 10_000 } }),
      mcp,
    });

  /** The model calls `tool` once, then says what the tool answered. */
  const callsOnce = (tool: string, args: Record<string, unknown>) =>
    model.script((req) => {
      const last = req.messages.at(-1)!;
      return last.role === "tool" ? { text: `Tool said: ${last.content}` } : { toolCalls: [{ name: tool, args }] };
    });
  const run = async (who: Identity, threadId: string, text?: string, resume?: StartRunRequest["resume"]) =>
    drain(started(await runtime.startRun(who, request(threadId, text, resume))).events);
  const toolResult = (events: readonly LoggedEvent[]) =>
    events.flatMap((e) => (e.event.type === "tool.result" ? [e.event.content] : []))[0];

  beforeAll(async () => {
    model = await startModelServer();
    peer = await startMcpPeer({ stepMs: 20 });
    runtime = runtimeWith(mcpDeps());
    await runtime.start();
    serverId = (await runtime.mcpServers.create(CAROL, { name: "calendar", url: peer.url, headers: { "x-api-key": "k-123" } })).id;
  });
  beforeEach(() => {
    model.requests.length = 0;
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
    await peer.close();
    await model.close();
  });

  it("lists the server's tools with the gates their annotations give; members see only its name", async () => {
    const tools = await runtime.mcpServers.tools(CAROL, serverId);
    expect(tools.some((t) => t.stale)).toBe(false);
    expect(Object.fromEntries(tools.map((t) => [t.name, t.gate]))).toEqual({
      list_events: "none",
      cancel_event: "approvers",
      book_room: "owner",
      share_calendar: "owner",
    });
    expect(await runtime.mcpServers.list(CAROL)).toEqual([
      expect.objectContaining({ id: serverId, name: "calendar", url: peer.url, headerNames: ["x-api-key"], tools: 4 }),
    ]);
    expect(await runtime.mcpServers.list(ALICE)).toEqual([{ name: "calendar" }]);
    await expect(runtime.mcpServers.tools(ALICE, serverId)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("keeps other tenants out: no server, no tools, no gate to set", async () => {
    expect(await runtime.mcpServers.list(MALLORY)).toEqual([]);
    await expect(runtime.mcpServers.tools(MALLORY, serverId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(runtime.mcpServers.setGate(MALLORY, { id: serverId, tool: "list_events", gate: "none" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    callsOnce("calendar__list_events", {});
    await run(MALLORY, "mcp-globex", "what is on today?");
    expect(model.requests[0]!.tools?.map((t) => t.function.name).filter((n) => n.startsWith("calendar__"))).toEqual([]);
  });

  it("refuses URLs webhooks may not reach, and names taken", async () => {
    const strict = testRuntime(database.db, { mcp: { connector: mcpConnector({ allowLocal: false, timeoutMs: 1_000, holdMs: 1_000 }) } });
    await expect(strict.mcpServers.create(CAROL, { name: "local", url: peer.url })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "url" },
    });
    await expect(strict.mcpServers.create(CAROL, { name: "private", url: "https://10.1.2.3/mcp" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    await expect(runtime.mcpServers.create(CAROL, { name: "calendar", url: peer.url })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "name" },
    });
    await expect(runtime.mcpServers.create(CAROL, { name: "Bad Name", url: peer.url })).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });

  it("refuses, at connect time, a name that resolves to an address it may not reach", async () => {
    const strict = mcpConnector({ allowLocal: false, timeoutMs: 2_000, holdMs: 1_000 });
    const url = new URL(peer.url.replace("127.0.0.1", "localhost"));
    await expect(strict.list({ id: "x", name: "sneaky", transport: { type: "http", url, headers: {} } })).rejects.toMatchObject({
      code: "MCP_UNAVAILABLE",
    });
  });

  it("runs a read-only tool at once and hands its answer to the model", async () => {
    callsOnce("calendar__list_events", {});
    const events = await run(ALICE, "mcp-read", "what is on today?");
    expect(lastOf(events).type).toBe("run.completed");
    expect(toolResult(events)).toContain("Team standup");
    const offered = model.requests[0]!.tools!.find((t) => t.function.name === "calendar__list_events");
    expect(offered?.function.description).toBe("Lists today's events on the team calendar.");
    expect(model.requests[1]!.messages.at(-1)?.content).toContain("Quarterly planning review");
  });

  it("puts a destructive tool before another approver (four-eyes), with its progress in the run's log", async () => {
    callsOnce("calendar__cancel_event", { title: "Team standup" });
    const gate = paused(await run(ALICE, "mcp-destroy", "cancel the standup"));
    expect(gate).toMatchObject({ kind: "approval", policy: "approvers", tool: { name: "calendar__cancel_event" } });
    expect(gate.message).toContain("calendar: Cancel an event");
    await expect(runtime.interactions.decide(ALICE, gate.id, true)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await runtime.interactions.decide(BOB, gate.id, true);
    const events = await drainRun(gate.runId);
    expect(events.filter((e) => e.type === "tool.progress")).toEqual([
      expect.objectContaining({ progress: 1, total: 2, message: "Finding the event" }),
      expect.objectContaining({ progress: 2, total: 2, message: "Telling the attendees" }),
    ]);
    expect(peer.cancelled("guest")).toContain("Team standup");
  });

  it("follows an admin's override of a tool's gate, and goes back to the default", async () => {
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "list_events", gate: "owner" });
    callsOnce("calendar__list_events", {});
    const gate = paused(await run(ALICE, "mcp-override", "what is on today?"));
    expect(gate).toMatchObject({ kind: "approval", policy: "owner" });
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "list_events", gate: "default" });
    callsOnce("calendar__list_events", {});
    expect(lastOf(await run(ALICE, "mcp-override-2", "and now?")).type).toBe("run.completed");
  });

  it("parks a form elicitation as the owner's question with the server's schema; the answer goes back to the server only", async () => {
    callsOnce("calendar__book_room", { event: "Planning" });
    const gate = paused(await run(ALICE, "mcp-form", "book a room for planning"));
    const question = paused(await run(ALICE, "mcp-form", undefined, [approveOf(gate.id)]));
    expect(question).toMatchObject({
      kind: "mcp_input",
      reason: "a2a",
      policy: "owner",
      message: 'Which room should "Planning" have, and for how long?',
      detail: { mcp: { server: "calendar", tool: "book_room" }, mode: "form" },
      responseSchema: { properties: { room: { enum: ["Harbor", "Lighthouse", "Dock"] } }, required: ["room", "minutes"] },
    });
    // Outside the schema: refused, nothing changes.
    expect(
      await runtime.startRun(ALICE, request("mcp-form", undefined, [answerOf(question.id, { room: "Attic", minutes: 30 })])),
    ).toMatchObject({
      refused: { code: "INVALID_INPUT", details: { field: "resume[0].payload.room" } },
    });
    const events = await run(ALICE, "mcp-form", undefined, [answerOf(question.id, { room: "Lighthouse", minutes: 45 })]);
    expect(toolResult(events)).toContain('Booked Lighthouse for \\"Planning\\", 45 minutes.');
    const stored = (await runtime.interactions.list(ALICE, { kind: "mcp_input" })).find((i) => i.interactionId === question.id);
    expect(stored?.decision).toEqual({ submitted: true });
  });

  it("tells the server when the owner declines its form", async () => {
    callsOnce("calendar__book_room", { event: "Retro" });
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "book_room", gate: "none" });
    const question = paused(await run(ALICE, "mcp-decline", "book a room for the retro"));
    const events = await run(ALICE, "mcp-decline", undefined, [answerOf(question.id, { action: "decline" })]);
    expect(toolResult(events)).toContain("the user declined");
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "book_room", gate: "default" });
  });

  it("parks a page the server needs opened, and tries the call again once the owner is done there", async () => {
    callsOnce("calendar__share_calendar", { with: "bob" });
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "share_calendar", gate: "none" });
    const page = paused(await run(ALICE, "mcp-page", "share my calendar with bob"));
    expect(page).toMatchObject({ kind: "mcp_input", reason: "a2a", detail: { mode: "url", url: expect.stringContaining("/share/") } });
    await fetch(page.detail!.url!, { method: "POST" });
    const events = await run(ALICE, "mcp-page", undefined, [{ interactionId: page.id, status: "resolved", payload: { done: true } }]);
    expect(toolResult(events)).toContain("Shared Guest's calendar with bob.");
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "share_calendar", gate: "default" });
  });

  it("fails a form's resume after a restart loudly (ERR_TOOL_CONTEXT_LOST): the session that asked is gone", async () => {
    await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "book_room", gate: "none" });
    callsOnce("calendar__book_room", { event: "Offsite" });
    const question = paused(await run(ALICE, "mcp-restart", "book a room for the offsite"));
    const restarted = runtimeWith(mcpDeps());
    await restarted.start();
    try {
      const events = await drain(
        started(await restarted.startRun(ALICE, request("mcp-restart", undefined, [answerOf(question.id, { room: "Dock", minutes: 30 })])))
          .events,
      );
      expect(lastOf(events)).toMatchObject({
        type: "run.failed",
        code: "ERR_TOOL_CONTEXT_LOST",
        message: expect.stringContaining("mcp-session"),
      });
    } finally {
      restarted.close();
      await restarted.idle();
      await runtime.mcpServers.setGate(CAROL, { id: serverId, tool: "book_room", gate: "default" });
    }
  });

  it("CANCEL aborts a call in flight: the server is told, the run ends cancelled", async () => {
    const slowPeer = await startMcpPeer({ stepMs: 3_000 });
    const slow = runtimeWith(mcpDeps());
    const { id } = await slow.mcpServers.create(CAROL, { name: "slow", url: slowPeer.url });
    await slow.mcpServers.setGate(CAROL, { id, tool: "cancel_event", gate: "none" });
    try {
      callsOnce("slow__cancel_event", { title: "Lunch" });
      const live = started(await slow.startRun(ALICE, request("mcp-cancel", "cancel lunch")));
      const seen: LoggedEvent[] = [];
      const reading = (async () => {
        for await (const batch of live.events) seen.push(...batch);
      })();
      await expect.poll(() => seen.some((e) => e.event.type === "tool.progress"), { timeout: 5_000 }).toBe(true);
      await slow.runs.steer(CAROL, live.runId, { type: "CANCEL" });
      await reading;
      expect(seen.map((e) => e.event.type)).toContain("run.cancelled");
      expect(lastOf(seen)).toMatchObject({ type: "run.completed", status: "cancelled" });
      await expect.poll(() => slowPeer.cancelledCalls(), { timeout: 5_000 }).toBe(1);
      expect(slowPeer.cancelled("guest")).toEqual([]);
    } finally {
      await slow.mcpServers.delete(CAROL, id);
      slow.close();
      await slow.idle();
      await slowPeer.close();
    }
  });

  it("fails a call whose server stays silent with MCP_TIMEOUT, cancelling it there", async () => {
    const slowPeer = await startMcpPeer({ stepMs: 3_000 });
    const impatient = runtimeWith(mcpDeps(300));
    const { id } = await impatient.mcpServers.create(CAROL, { name: "silent", url: slowPeer.url });
    await impatient.mcpServers.setGate(CAROL, { id, tool: "cancel_event", gate: "none" });
    try {
      callsOnce("silent__cancel_event", { title: "Lunch" });
      const events = await drain(started(await impatient.startRun(ALICE, request("mcp-timeout", "cancel lunch"))).events);
      expect(lastOf(events)).toMatchObject({ type: "run.failed", code: "MCP_TIMEOUT" });
      expect((await findRun(database.db, events[0]!.runId))?.status).toBe("failed");
      await expect.poll(() => slowPeer.cancelledCalls(), { timeout: 5_000 }).toBe(1);
    } finally {
      await impatient.mcpServers.delete(CAROL, id);
      impatient.close();
      await impatient.idle();
      await slowPeer.close();
    }
  });

  /** The resumed run's events once an approver's decision drove it on. */
  async function drainRun(runId: string): Promise<LoggedEvent["event"][]> {
    const seen: LoggedEvent["event"][] = [];
    const controller = new AbortController();
    for await (const logged of await runtime.watchRun(CAROL, runId, 0, controller.signal)) {
      seen.push(logged.event);
      if (["run.completed", "run.failed", "run.cancelled"].includes(logged.event.type)) break;
    }
    controller.abort();
    return seen;
  }
});

const approveOf = (id: string) => ({ interactionId: id, status: "resolved" as const, payload: { approved: true } });
const answerOf = (id: string, payload: Record<string, unknown>) => ({ interactionId: id, status: "resolved" as const, payload });
