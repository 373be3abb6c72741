import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { listAudit } from "@/server/db/queries/audit";
import { findRun } from "@/server/db/queries/runs";
import {
  SteeringInstruction,
  type Identity,
  type LoggedEvent,
  type Runtime,
  type StartedRun,
  type StartRunRequest,
} from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { refused, started, testRuntime, watchUntil } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

let counter = 0;
const request = (threadId: string, text: string): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `t-${++counter}`,
  messages: [{ id: `m-${counter}`, role: "user", content: text }],
});

const said = (events: LoggedEvent["event"][]) =>
  events
    .flatMap((e) => (e.type === "text.delta" ? [e.delta] : e.type === "text.ended" ? ["|"] : []))
    .join("")
    .split("|")
    .filter(Boolean);

describe.each(testBackends())("steering live runs on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 40 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  const count = async (threadId: string, to: number) => started(await runtime.startRun(alice, request(threadId, `count slowly to ${to}`)));
  const saidNumber = (n: number) => (e: LoggedEvent["event"]) => e.type === "text.delta" && e.delta === String(n);

  it("counts one number per step and finishes", async () => {
    const run = await count("s-count", 3);
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    expect(said(events)).toEqual(["1", "2", "3", "Done counting to 3."]);
  });

  it("REDIRECT changes the goal mid-flight, INJECT_CONTEXT and USER_MESSAGE reach the next step", async () => {
    const run = await count("s-redirect", 40);
    await watchUntil(runtime, run.runId, saidNumber(2));
    await runtime.runs.steer(carol, run.runId, { type: "INJECT_CONTEXT", context: "the user is in a hurry" });
    await runtime.runs.steer(alice, run.runId, { type: "USER_MESSAGE", message: "faster please" });
    await runtime.runs.steer(carol, run.runId, { type: "REDIRECT", goal: "count slowly to 5" });
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    const lines = said(events);
    expect(lines).toContain("Noted: the user is in a hurry");
    expect(lines).toContain("You said: “faster please”. Counting on.");
    expect(lines.at(-1)).toBe("Done counting to 5.");
    expect(lines.filter((l) => /^\d+$/.test(l)).at(-1)).toBe("5");
    expect(events.filter((e) => e.type === "steer.applied").map((e) => (e.type === "steer.applied" ? e.instruction : ""))).toEqual([
      "INJECT_CONTEXT",
      "USER_MESSAGE",
      "REDIRECT",
    ]);
    const { messages } = await runtime.threads.get(alice, "s-redirect");
    expect(messages.some((m) => m.role === "user" && m.content === "faster please")).toBe(true);
  });

  it("CANCEL stops the run: it ends cancelled and its stream finishes", async () => {
    const run = await count("s-cancel", 40);
    await watchUntil(runtime, run.runId, saidNumber(1));
    await runtime.runs.steer(alice, run.runId, { type: "CANCEL" });
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "cancelled" });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "cancelled" });
    await expect(runtime.runs.steer(alice, run.runId, { type: "CANCEL" })).rejects.toMatchObject({ code: "RUN_ENDED" });
  });

  it("PAUSE parks the run for an operator; new input waits; only an admin resumes it, and it goes on where it stopped", async () => {
    const run = await count("s-pause", 6);
    await watchUntil(runtime, run.runId, saidNumber(2));
    await runtime.runs.steer(carol, run.runId, { type: "PAUSE" });
    const paused = await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");
    expect(paused.at(-1)).toMatchObject({ type: "run.paused", interrupts: [{ kind: "operator", reason: "operator", policy: "admins" }] });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "paused", pauseReason: "operator" });
    expect(refused(await runtime.startRun(alice, request("s-pause", "hello?")))).toMatchObject({ code: "PENDING_INTERACTION" });
    await expect(runtime.runs.steer(alice, run.runId, { type: "RESUME" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(runtime.runs.steer(carol, run.runId, { type: "PAUSE" })).rejects.toMatchObject({ code: "RUN_STATE_CONFLICT" });

    await runtime.runs.steer(carol, run.runId, { type: "RESUME" });
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    expect(said(events).filter((l) => /^\d+$/.test(l))).toEqual(["1", "2", "3", "4", "5", "6"]);
  });

  it("keeps an operator's pause across a restart: resumed by the next process, the run continues from its checkpoint", async () => {
    const run = await count("s-durable", 5);
    await watchUntil(runtime, run.runId, saidNumber(2));
    await runtime.runs.steer(carol, run.runId, { type: "PAUSE" });
    await watchUntil(runtime, run.runId, (e) => e.type === "run.paused");

    const next = testRuntime(database.db, { agents: createAgents({ stepMs: 10 }) });
    await next.start();
    await next.runs.steer(carol, run.runId, { type: "RESUME" });
    const events = await watchUntil(next, run.runId, (e) => e.type === "run.completed");
    expect(said(events).filter((l) => /^\d+$/.test(l))).toEqual(["1", "2", "3", "4", "5"]);
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "completed" });
    next.close();
    await next.idle();
  });

  it("refuses an approver's decision on a gate that is not routed to approvers, changing nothing", async () => {
    const email = started(await runtime.startRun(alice, request("s-owner-gate", "send an email to x@example.com saying hi")));
    const parked = await watchUntil(runtime, email.runId, (e) => e.type === "run.paused");
    await expect(runtime.runs.steer(bob, email.runId, { type: "APPROVE" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const gate = parked.at(-1);
    if (gate?.type !== "run.paused") throw new Error("expected a pause");
    expect(await runtime.interactions.get(alice, gate.interrupts[0]!.id)).toMatchObject({ status: "pending" });
    await runtime.runs.steer(alice, email.runId, { type: "CANCEL" });
    expect(await findRun(database.db, email.runId)).toMatchObject({ status: "cancelled" });
  });

  it("APPROVE and REJECT decide a gate through the same function as the inbox (reject stays terminal)", async () => {
    const transfer = started(await runtime.startRun(alice, request("s-gate", "transfer 9 EUR to X-9")));
    await watchUntil(runtime, transfer.runId, (e) => e.type === "run.paused");
    await expect(runtime.runs.steer(alice, transfer.runId, { type: "APPROVE" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await runtime.runs.steer(bob, transfer.runId, { type: "REJECT", reason: "not today" });
    const events = await watchUntil(runtime, transfer.runId, (e) => e.type === "run.completed");
    expect(events.at(-1)).toEqual({ type: "run.completed", status: "rejected" });
  });

  it("refuses steering it does not allow, changing nothing, and audits every attempt", async () => {
    const run = await count("s-auth", 30);
    await watchUntil(runtime, run.runId, saidNumber(1));
    await expect(runtime.runs.steer(bob, run.runId, { type: "USER_MESSAGE", message: "hi" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(runtime.runs.steer(alice, run.runId, { type: "REDIRECT", goal: "count slowly to 2" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(runtime.runs.steer(mallory, run.runId, { type: "CANCEL" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(SteeringInstruction.safeParse({ type: "EXPLODE" }).success).toBe(false);
    expect(SteeringInstruction.safeParse({ type: "CANCEL", mode: "everything" }).success).toBe(false);
    await runtime.runs.steer(carol, run.runId, { type: "PRIORITIZE", priority: 7 });
    expect(await findRun(database.db, run.runId)).toMatchObject({ status: "running", priority: 7 });
    await runtime.runs.steer(carol, run.runId, { type: "CANCEL" });
    const logged = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    expect(logged.filter((e) => e.type === "steer.applied")).toEqual([
      { type: "steer.applied", instruction: "PRIORITIZE", actorId: "user-carol", detail: "priority 7" },
      { type: "steer.applied", instruction: "CANCEL", actorId: "user-carol" },
    ]);
    const audit = (await listAudit(database.db, "tenant-acme", { type: "run", id: run.runId })).filter((a) => a.action === "run.steer");
    expect(audit.map((a) => `${a.actorId}:${(a.details as { instruction: string }).instruction}:${a.outcome}`).reverse()).toEqual([
      "user-bob:USER_MESSAGE:refused",
      "user-alice:REDIRECT:refused",
      "user-carol:PRIORITIZE:accepted",
      "user-carol:CANCEL:accepted",
    ]);
  });
});

describe.each(testBackends())("child runs and the scheduler on $name", (backend) => {
  const database = useSeededDatabase(backend);

  it("cancels a run with its helpers (cascade), or alone (isolate)", async () => {
    const runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 40 }) });
    const parent = started(await runtime.startRun(alice, request("c-helpers", "count slowly to 50 with helpers")));
    const spawned = await watchUntil(runtime, parent.runId, (e) => e.type === "children.started");
    const children = spawned.flatMap((e) => (e.type === "children.started" ? e.runIds : []));
    expect(children).toHaveLength(2);
    expect((await runtime.runs.get(carol, parent.runId)).childCount).toBe(2);
    await runtime.runs.steer(carol, parent.runId, { type: "CANCEL" });
    await watchUntil(runtime, parent.runId, (e) => e.type === "run.completed");
    for (const child of children) await watchUntil(runtime, child, (e) => e.type === "run.completed");
    for (const id of [parent.runId, ...children]) expect(await findRun(database.db, id)).toMatchObject({ status: "cancelled" });

    const isolated = started(await runtime.startRun(alice, request("c-isolate", "count slowly to 50 with helpers")));
    const helpers = (await watchUntil(runtime, isolated.runId, (e) => e.type === "children.started")).flatMap((e) =>
      e.type === "children.started" ? e.runIds : [],
    );
    await runtime.runs.steer(carol, isolated.runId, { type: "CANCEL", mode: "isolate" });
    await watchUntil(runtime, isolated.runId, (e) => e.type === "run.completed");
    expect(await findRun(database.db, isolated.runId)).toMatchObject({ status: "cancelled" });
    for (const id of helpers) expect((await findRun(database.db, id))?.status).toBe("running");
    for (const id of helpers) await runtime.runs.steer(carol, id, { type: "CANCEL" });
    runtime.close();
    await runtime.idle();
  });

  it("caps one user's executing runs without holding back another user's", async () => {
    const runtime = testRuntime(database.db, {
      agents: createAgents({ stepMs: 50 }),
      maxActiveRuns: 3,
      maxActiveRunsPerUser: 2,
    });
    const alices: StartedRun[] = [];
    for (const n of [1, 2, 3]) alices.push(started(await runtime.startRun(alice, request(`cap-${n}`, "count slowly to 10"))));
    await expect.poll(async () => (await findRun(database.db, alices[2]!.runId))?.status).toBe("queued");
    const mallorys = started(await runtime.startRun(mallory, request("cap-m", "hello")));
    await watchUntil(runtime, mallorys.runId, (e) => e.type === "run.completed", mallory);
    // Mallory was answered while alice's third run still waited for one of her own to end.
    expect((await findRun(database.db, alices[2]!.runId))?.status).toBe("queued");
    await Promise.all(alices.map((run) => watchUntil(runtime, run.runId, (e) => e.type === "run.completed")));
    runtime.close();
    await runtime.idle();
  });

  it("bounds how many runs execute at once and takes queued runs by priority, then age", async () => {
    const runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 20 }), maxActiveRuns: 1 });
    const first = started(await runtime.startRun(alice, request("q-1", "count slowly to 20")));
    const second = started(await runtime.startRun(alice, request("q-2", "count slowly to 1")));
    const third = started(await runtime.startRun(alice, request("q-3", "count slowly to 1")));
    await expect.poll(async () => (await findRun(database.db, third.runId))?.status).toBe("queued");
    expect(runtime.schedulerQueue(carol)).toMatchObject({
      active: 1,
      maxActive: 1,
      queue: [{ runId: second.runId }, { runId: third.runId }],
    });
    // Another tenant sees the capacity, never acme's activity.
    expect(runtime.schedulerQueue(mallory)).toEqual({ active: 0, maxActive: 1, queue: [] });
    await runtime.runs.steer(carol, third.runId, { type: "PRIORITIZE", priority: 5 });
    expect(runtime.schedulerQueue(carol).queue.map((q) => q.runId)).toEqual([third.runId, second.runId]);
    const finished: string[] = [];
    await Promise.all(
      [first, second, third].map(async (run) => {
        await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
        finished.push(run.runId);
      }),
    );
    expect(finished).toEqual([first.runId, third.runId, second.runId]);
    runtime.close();
    await runtime.idle();
  });
});
