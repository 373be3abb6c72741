import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { findRun } from "@/server/db/queries/runs";
import { tool, type Identity, type InterruptView, type Planner, type Runtime, type StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { agentOf, drain, started, testRuntime } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };

/** What the upload test tool does before it pauses, per test. */
interface Scenario {
  state: Record<string, unknown>;
  reattach?: () => Socket;
}
interface Socket {
  open: boolean;
  name: string;
}

const scenarios = new Map<string, Scenario>();
const sockets = new Map<string, Socket>();

/** A tool with a live handle and plain state that pauses itself half-way, then finishes on resume. */
const upload = tool({
  name: "upload",
  description: "uploads in two halves, asking before the second",
  input: z.strictObject({ scenario: z.string() }),
  output: z.strictObject({ socket: z.string(), uploaded: z.unknown() }),
  async execute(args, ctx) {
    if (!ctx.resumedWith) {
      const scenario = scenarios.get(args.scenario)!;
      const socket: Socket = { open: true, name: "original" };
      sockets.set(args.scenario, socket);
      ctx.handles.register("socket", socket, { alive: (s) => s.open, reattach: scenario.reattach });
      Object.assign(ctx.state, scenario.state);
      ctx.pause({ message: "Upload the second half?" });
    }
    return { socket: ctx.handles.get<Socket>("socket").name, uploaded: ctx.state.uploaded };
  },
});

const uploader: Planner = {
  next(state) {
    const last = state.transcript.at(-1);
    if (last?.role === "user") return { type: "call_tools", calls: [{ name: "upload", args: { scenario: last.content } }] };
    if (last?.role === "tool") return { type: "say", text: `done: ${last.content}` };
    return { type: "finish" };
  },
};

/** A planner that asks its owner before answering (the planner's own RequestPause). */
const asker: Planner = {
  next(state) {
    const answers = Object.values(state.answers ?? {});
    if (answers.length === 0) return { type: "request_pause", message: "Shall I go on?" };
    if (state.transcript.at(-1)?.role === "assistant") return { type: "finish" };
    return { type: "say", text: `You said ${answers[0]?.payload?.approved ? "yes" : "no"}.` };
  },
};

let counter = 0;
const request = (agentId: string, threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId,
  threadId,
  transportRunId: `t-${++counter}`,
  messages: text ? [{ id: `m-${counter}`, role: "user", content: text }] : [],
  resume,
});

describe.each(testBackends())("the tool-context split on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db, {
      agents: new Map([
        ["uploader", agentOf("uploader", uploader, new Map([["upload", upload]]))],
        ["asker", agentOf("asker", asker)],
      ]),
    });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  async function pauseUpload(scenario: string, setup: Scenario) {
    scenarios.set(scenario, setup);
    const run = started(await runtime.startRun(alice, request("uploader", scenario, scenario)));
    const events = await drain(run.events);
    return { runId: run.runId, last: events.at(-1)!.event };
  }

  async function resume(threadId: string, interrupt: InterruptView, agentId = "uploader", approved = true) {
    const answer = [{ interactionId: interrupt.id, status: "resolved" as const, payload: { approved } }];
    return (await drain(started(await runtime.startRun(alice, request(agentId, threadId, undefined, answer))).events)).map((e) => e.event);
  }

  it("restores plain state from the checkpoint and re-attaches the live handle the process held", async () => {
    const { last } = await pauseUpload("held", { state: { uploaded: { bytes: 3, parts: ["a", "b"] } } });
    if (last.type !== "run.paused") throw new Error("expected a pause");
    const events = await resume("held", last.interrupts[0]!);
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({
      content: JSON.stringify({ socket: "original", uploaded: { bytes: 3, parts: ["a", "b"] } }),
    });
    expect(events.at(-1)?.type).toBe("run.completed");
  });

  it("re-attaches a handle that stopped working through its reattach function", async () => {
    const { last } = await pauseUpload("reattached", { state: { uploaded: 1 }, reattach: () => ({ open: true, name: "fresh" }) });
    if (last.type !== "run.paused") throw new Error("expected a pause");
    sockets.get("reattached")!.open = false;
    const events = await resume("reattached", last.interrupts[0]!);
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ content: JSON.stringify({ socket: "fresh", uploaded: 1 }) });
  });

  it("fails the resume loudly with ERR_TOOL_CONTEXT_LOST naming the handle that cannot be re-attached", async () => {
    const { runId, last } = await pauseUpload("lost", { state: { uploaded: 2 } });
    if (last.type !== "run.paused") throw new Error("expected a pause");
    sockets.get("lost")!.open = false;
    const events = await resume("lost", last.interrupts[0]!);
    expect(events.at(-1)).toMatchObject({
      type: "run.failed",
      code: "ERR_TOOL_CONTEXT_LOST",
      message: expect.stringContaining('"socket"'),
    });
    expect(events.some((e) => e.type === "tool.result")).toBe(false);
    expect(await findRun(database.db, runId)).toMatchObject({ status: "failed", error: { code: "ERR_TOOL_CONTEXT_LOST" } });
  });

  it("refuses at pause time state that is not plain JSON, naming its path, and parks nothing", async () => {
    const { runId, last } = await pauseUpload("unserializable", { state: { uploaded: 1, startedAt: new Date(0) } });
    expect(last).toMatchObject({
      type: "run.failed",
      code: "ERR_TOOL_STATE_NOT_SERIALIZABLE",
      message: expect.stringContaining("ctx.state.startedAt"),
    });
    expect(await findRun(database.db, runId)).toMatchObject({ status: "failed" });
    expect(await runtime.interactions.list(alice, { status: "pending" })).toEqual([]);
  });

  it("lets a planner ask its owner with a RequestPause decision and see the answer", async () => {
    const run = started(await runtime.startRun(alice, request("asker", "ask", "go")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    expect(last.interrupts[0]).toMatchObject({ message: "Shall I go on?", kind: "approval", reason: "hitl" });
    expect(last.interrupts[0]!.toolCallId).toBeUndefined();
    const events = await resume("ask", last.interrupts[0]!, "asker");
    const said = events
      .filter((e) => e.type === "text.delta")
      .map((e) => (e.type === "text.delta" ? e.delta : ""))
      .join("");
    expect(said).toBe("You said yes.");
  });

  it("ends the run rejected when a tool's own pause is rejected: the tool does not run again", async () => {
    const { runId, last } = await pauseUpload("refused", { state: { uploaded: 1 } });
    if (last.type !== "run.paused") throw new Error("expected a pause");
    const events = await resume("refused", last.interrupts[0]!, "uploader", false);
    expect(events.find((e) => e.type === "tool.result")).toMatchObject({ content: '{"rejected":true}' });
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "rejected" });
    expect(await findRun(database.db, runId)).toMatchObject({ status: "rejected" });
  });

  it("ends the run rejected, without another planner step, when the planner's own question is answered no", async () => {
    const run = started(await runtime.startRun(alice, request("asker", "ask-no", "go")));
    const last = (await drain(run.events)).at(-1)!.event;
    if (last.type !== "run.paused") throw new Error("expected a pause");
    const events = await resume("ask-no", last.interrupts[0]!, "asker", false);
    expect(events.some((e) => e.type === "text.delta")).toBe(false);
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "rejected" });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "rejected" });
  });
});
