/**
 * What users and operators are told about their runs, and the rules that keep a thread sane:
 * `run.cancelled` with a note in the thread, `run.queued` with its position, PAUSE cascading to
 * helpers, double-texting, steering kept with a parked run across a restart, a bounded mailbox,
 * and an admin deciding a gate from the console.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { listAudit } from "@/server/db/queries/audit";
import { findRun } from "@/server/db/queries/runs";
import type { Identity, LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { refused, started, testRuntime, watchUntil } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };

type Event = LoggedEvent["event"];
let counter = 0;
const request = (threadId: string, text: string, extra: Partial<StartRunRequest> = {}): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `e-${++counter}`,
  messages: [{ id: `em-${counter}`, role: "user", content: text }],
  ...extra,
});

const ended = (e: Event) => e.type === "run.completed" || e.type === "run.failed";
const saidNumber = (n: number) => (e: Event) => e.type === "text.delta" && e.delta === String(n);
const numbers = (events: Event[]) => events.flatMap((e) => (e.type === "text.delta" && /^\d+$/.test(e.delta) ? [Number(e.delta)] : []));

describe.each(testBackends())("run endings and thread rules on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });
  const count = async (threadId: string, to: number, extra: Partial<StartRunRequest> = {}) =>
    started(await runtime.startRun(alice, request(threadId, `count slowly to ${to}`, extra)));

  it("an operator's cancel ends the run with run.cancelled { by: operator } and leaves a note in the thread", async () => {
    const run = await count("end-op", 40);
    await watchUntil(runtime, run.runId, saidNumber(1));
    await runtime.runs.steer(carol, run.runId, { type: "CANCEL" });
    const events = await watchUntil(runtime, run.runId, ended);
    expect(events.slice(-2)).toEqual([
      { type: "run.cancelled", by: "operator" },
      { type: "run.completed", status: "cancelled" },
    ]);
    const { messages } = await runtime.threads.get(alice, "end-op");
    expect(messages.at(-1)).toMatchObject({ role: "system", content: "Run cancelled by an operator." });
    const snapshot = events.findLast((e) => e.type === "snapshot");
    expect(snapshot?.type === "snapshot" && snapshot.messages.at(-1)?.content).toBe("Run cancelled by an operator.");
  });

  it("the owner's cancel of a parked run says so too", async () => {
    const email = started(await runtime.startRun(alice, request("end-owner", "send an email to x@example.com saying hi")));
    await watchUntil(runtime, email.runId, (e) => e.type === "run.paused");
    await runtime.runs.steer(alice, email.runId, { type: "CANCEL" });
    const events = await watchUntil(runtime, email.runId, ended);
    expect(events.slice(-2)).toEqual([
      { type: "run.cancelled", by: "owner" },
      { type: "run.completed", status: "cancelled" },
    ]);
    expect((await runtime.threads.get(alice, "end-owner")).messages.at(-1)).toMatchObject({
      role: "system",
      content: "Run cancelled by its owner.",
    });
  });

  it("PAUSE pauses the helpers with their parent, and RESUME releases them all", async () => {
    const parent = await count("end-helpers", 30, {
      messages: [{ id: `em-h-${counter}`, role: "user", content: "count slowly to 30 with helpers" }],
    });
    const children = (await watchUntil(runtime, parent.runId, (e) => e.type === "children.started")).flatMap((e) =>
      e.type === "children.started" ? e.runIds : [],
    );
    expect(children).toHaveLength(2);
    await runtime.runs.steer(carol, parent.runId, { type: "PAUSE" });
    for (const id of [parent.runId, ...children]) {
      await expect.poll(async () => (await findRun(database.db, id))?.status, { timeout: 5_000 }).toBe("paused");
    }
    await runtime.runs.steer(carol, parent.runId, { type: "RESUME" });
    for (const id of [parent.runId, ...children]) {
      await expect.poll(async () => (await findRun(database.db, id))?.status, { timeout: 5_000 }).toBe("running");
    }
    await runtime.runs.steer(carol, parent.runId, { type: "CANCEL" });
    for (const id of [parent.runId, ...children]) await watchUntil(runtime, id, ended);
  });

  it("double-texting enqueue (default): the new run is stored at once, says it is queued, and runs after the first", async () => {
    const first = await count("dt-enqueue", 4);
    await watchUntil(runtime, first.runId, saidNumber(1));
    const second = await count("dt-enqueue", 2);
    const secondEvents = await watchUntil(runtime, second.runId, ended);
    const firstEvents = await watchUntil(runtime, first.runId, ended);
    expect(secondEvents).toContainEqual({ type: "run.queued", position: 1 });
    expect(numbers(firstEvents)).toEqual([1, 2, 3, 4]);
    expect(numbers(secondEvents)).toEqual([1, 2]);
    const [a, b] = [await findRun(database.db, first.runId), await findRun(database.db, second.runId)];
    expect(a?.status).toBe("completed");
    // Never at once: the second started executing only after the first had finished.
    const secondStarted = (await runtime.runs.timeline(carol, second.runId)).find((e) => e.event.type === "text.started");
    expect(Date.parse(secondStarted!.at)).toBeGreaterThanOrEqual(a!.finishedAt!.getTime());
    expect(b?.status).toBe("completed");
  });

  it("double-texting reject: RUN_IN_PROGRESS, nothing stored", async () => {
    const first = await count("dt-reject", 20);
    await watchUntil(runtime, first.runId, saidNumber(1));
    expect(refused(await runtime.startRun(alice, request("dt-reject", "hello, refused", { multitask: "reject" })))).toMatchObject({
      code: "RUN_IN_PROGRESS",
    });
    // The running run keeps counting (its own messages); the refused one left none.
    const messages = (await runtime.threads.get(alice, "dt-reject")).messages;
    expect(messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["count slowly to 20"]);
    await runtime.runs.steer(alice, first.runId, { type: "CANCEL" });
    await watchUntil(runtime, first.runId, ended);
  });

  it("double-texting interrupt: the running run is cancelled at its next safe point, then the new one runs", async () => {
    const first = await count("dt-interrupt", 40);
    await watchUntil(runtime, first.runId, saidNumber(1));
    const second = started(await runtime.startRun(alice, request("dt-interrupt", "count slowly to 2", { multitask: "interrupt" })));
    const firstEvents = await watchUntil(runtime, first.runId, ended);
    expect(firstEvents.slice(-2)).toEqual([
      { type: "run.cancelled", by: "owner" },
      { type: "run.completed", status: "cancelled" },
    ]);
    expect(numbers(await watchUntil(runtime, second.runId, ended))).toEqual([1, 2]);
  });

  it("steering sent to a paused run is stored with it, survives a restart, and is applied after RESUME", async () => {
    const run = await count("end-durable-steer", 6);
    await watchUntil(runtime, run.runId, saidNumber(2));
    await runtime.runs.steer(carol, run.runId, { type: "PAUSE" });
    await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");
    await runtime.runs.steer(carol, run.runId, { type: "INJECT_CONTEXT", context: "kept across restarts" });
    await runtime.runs.steer(alice, run.runId, { type: "USER_MESSAGE", message: "still there?" });
    await runtime.runs.steer(carol, run.runId, { type: "REDIRECT", goal: "count slowly to 4" });

    const next = testRuntime(database.db, { agents: createAgents({ stepMs: 10 }) });
    await next.start();
    await next.runs.steer(carol, run.runId, { type: "RESUME" });
    const events = await watchUntil(next, run.runId, ended);
    expect(events.filter((e) => e.type === "steer.applied").map((e) => e.type === "steer.applied" && e.instruction)).toEqual([
      "PAUSE",
      "INJECT_CONTEXT",
      "USER_MESSAGE",
      "REDIRECT",
    ]);
    expect(numbers(events).at(-1)).toBe(4);
    expect((await runtime.threads.get(alice, "end-durable-steer")).messages.some((m) => m.content === "still there?")).toBe(true);
    next.close();
    await next.idle();
  });

  it("bounds the instructions waiting for one run (a cancel still gets through)", async () => {
    const run = await count("end-flood", 40);
    await watchUntil(runtime, run.runId, saidNumber(1));
    await runtime.runs.steer(carol, run.runId, { type: "PAUSE" });
    await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");
    for (let i = 0; i < 20; i++) await runtime.runs.steer(alice, run.runId, { type: "USER_MESSAGE", message: `m${i}` });
    await expect(runtime.runs.steer(alice, run.runId, { type: "USER_MESSAGE", message: "one too many" })).rejects.toMatchObject({
      code: "TOO_MANY_INSTRUCTIONS",
    });
    await runtime.runs.steer(alice, run.runId, { type: "CANCEL" });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "cancelled" });
  });

  it("an admin approves or rejects an owner-routed gate from the console; the audit names the admin", async () => {
    const email = started(await runtime.startRun(alice, request("end-admin", "send an email to admin@example.com saying hi")));
    await watchUntil(runtime, email.runId, (e) => e.type === "run.paused");
    await expect(runtime.runs.steer(bob, email.runId, { type: "APPROVE" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await runtime.runs.steer(carol, email.runId, { type: "APPROVE", reason: "ops approved" });
    const events = await watchUntil(runtime, email.runId, ended);
    expect(events).toContainEqual(expect.objectContaining({ type: "pause.resumed", decision: "approved", actorId: "user-carol" }));
    expect(events.at(-1)).toEqual({ type: "run.completed" });
    const audit = await listAudit(database.db, "tenant-acme");
    expect(audit.some((a) => a.action === "interaction.resolve" && a.actorId === "user-carol" && a.outcome === "resolved")).toBe(true);

    const rejected = started(await runtime.startRun(alice, request("end-admin-2", "send an email to no@example.com saying hi")));
    await watchUntil(runtime, rejected.runId, (e) => e.type === "run.paused");
    await runtime.runs.steer(carol, rejected.runId, { type: "REJECT" });
    expect((await watchUntil(runtime, rejected.runId, ended)).at(-1)).toEqual({ type: "run.completed", status: "rejected" });
  });

  it("one privacy rule for conversations: the owner reads, an admin reads (audited, everywhere), an approver does not", async () => {
    const run = started(await runtime.startRun(alice, request("privacy", "hello")));
    await watchUntil(runtime, run.runId, ended);
    const audited = async () =>
      (await listAudit(database.db, "tenant-acme")).filter((a) => a.action === "conversation.read" && a.actorId === "user-carol").length;
    const before = await audited();
    await runtime.threads.get(alice, "privacy");
    await runtime.runs.timeline(alice, run.runId);
    expect(await audited()).toBe(before);
    await expect(runtime.threads.get(bob, "privacy")).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await runtime.threads.get(carol, "privacy")).messages.length).toBeGreaterThan(0);
    await runtime.runs.timeline(carol, run.runId);
    const feed = await runtime.watchRun(carol, run.runId, 0);
    await feed.return(undefined);
    expect(await audited()).toBe(before + 3);
  });

  it("four-eyes holds for admins: nobody decides their own approvers gate", async () => {
    const own = started(await runtime.startRun(carol, request("end-admin-own", "transfer 5 EUR to X-5")));
    await watchUntil(runtime, own.runId, (e) => e.type === "run.paused");
    await expect(runtime.runs.steer(carol, own.runId, { type: "APPROVE" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await runtime.runs.steer(bob, own.runId, { type: "APPROVE" });
    expect((await watchUntil(runtime, own.runId, ended)).at(-1)).toEqual({ type: "run.completed" });
  });
});
