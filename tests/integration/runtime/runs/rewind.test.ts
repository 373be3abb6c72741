/**
 * Edit-and-resend and Regenerate (runtime/runs/rewind-run.ts) on both engines: the conversation is
 * rewound and a new run answers from there; the dropped messages stay stored (superseded), and the
 * runs that wrote them keep their logs, snapshots, requests and audit as they were. Refused while
 * anything on the thread is live or waiting; for anyone but the owner; and of two at once, one runs.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import { listRunEvents } from "@/server/db/queries/runs";
import type { Harbor } from "@/server/harbor";
import { log } from "@/server/log";
import type { LoggedEvent, Runtime, StartRunRequest, VerifiedIdentity } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../../helpers/backends";
import { ALICE, BOB, CAROL, MALLORY, started, testRuntime, watchUntil } from "../../../helpers/runtime";
import { codeOf } from "../../../helpers/trpc-errors";

let counter = 0;
const say = (threadId: string, text: string, extra: StartRunRequest["messages"] = []): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `rw-${++counter}`,
  messages: [...extra, { id: `rwm-${counter}`, role: "user", content: text }],
});

const createCaller = createCallerFactory(appRouter);
const ended = (e: LoggedEvent["event"]) => e.type === "run.completed" || e.type === "run.failed";

describe.each(testBackends())("rewinding a conversation on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  const as = (identity: VerifiedIdentity) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity, requestId: "req-rewind", log } satisfies Context).threads;

  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  /** Runs `text` on the thread to its end; the conversation as `threads.get` gives it then. */
  const turn = async (threadId: string, text: string) => {
    const run = started(await runtime.startRun(ALICE, say(threadId, text)));
    await watchUntil(runtime, run.runId, ended);
    return run;
  };
  const conversation = async (threadId: string) => (await runtime.threads.get(ALICE, threadId)).messages;
  const runsOf = async (threadId: string) =>
    queryRows<{ id: string; status: string }>(
      database.db,
      sql`select id, status from runs where thread_id = ${threadId} order by created_at`,
    );
  const stored = async (threadId: string) =>
    queryRows<{ id: string; superseded: boolean }>(
      database.db,
      sql`select id, superseded_at_position is not null as superseded from messages where thread_id = ${threadId} order by position`,
    );
  const audit = async () =>
    queryRows<{ id: number; action: string; hash: string }>(
      database.db,
      sql`select id, action, hash from audit_log where tenant_id = 'tenant-acme' order by id`,
    );
  /** A run's log as every reader gets it (snapshots rebuilt from the thread's messages). */
  const logOf = (runId: string) => listRunEvents(database.db, runId);

  it("edit: the message and what followed leave the conversation, the new text gets a new reply; history stays", async () => {
    const first = await turn("rw-edit", "hello");
    const second = await turn("rw-edit", "what can you do?");
    const before = await conversation("rw-edit");
    const oldLogs = [await logOf(first.runId), await logOf(second.runId)];
    const auditBefore = await audit();
    expect(before.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    const edited = await as(ALICE).edit({ threadId: "rw-edit", messageId: before[0]!.id, text: "  count slowly to 2  " });
    expect(edited).toMatchObject({ threadId: "rw-edit", superseded: before.map((m) => m.id) });
    await watchUntil(runtime, edited.runId, ended);

    const after = await conversation("rw-edit");
    expect(after[0]).toMatchObject({ id: edited.messageId, role: "user", content: "count slowly to 2", runId: edited.runId });
    expect(after.length).toBeGreaterThan(2);
    expect(after.slice(1).every((m) => m.role === "assistant" && m.runId === edited.runId)).toBe(true);
    expect(after.some((m) => before.some((b) => b.id === m.id))).toBe(false);
    // Nothing was deleted: the dropped messages are stored, superseded.
    const rows = await stored("rw-edit");
    expect(rows.filter((r) => r.superseded).map((r) => r.id)).toEqual(before.map((m) => m.id));
    // The earlier runs' logs read exactly as before, their snapshots included.
    expect([await logOf(first.runId), await logOf(second.runId)]).toEqual(oldLogs);
    expect(oldLogs[1]!.some((e) => e.data.type === "snapshot")).toBe(true);
    // The new run's snapshot shows the new conversation only.
    const snapshot = (await logOf(edited.runId)).findLast((e) => e.data.type === "snapshot")?.data;
    expect(snapshot?.type === "snapshot" && snapshot.messages.map((m) => m.id)).toEqual(after.map((m) => m.id));
    // The audit only grew: the rewind itself, after everything that was there.
    const auditAfter = await audit();
    expect(auditAfter.slice(0, auditBefore.length)).toEqual(auditBefore);
    expect(auditAfter.slice(auditBefore.length).filter((a) => a.action === "thread.rewind")).toHaveLength(1);
    // A search no longer finds the dropped words.
    expect((await as(ALICE).list({ search: "what can you do" })).map((t) => t.id)).not.toContain("rw-edit");
  });

  it("a title made from the first message follows its edit; one the owner gave, or a later message's edit, leaves it", async () => {
    await turn("rw-title", "hello");
    await turn("rw-title", "and more");
    const title = async () => (await runtime.threads.get(ALICE, "rw-title")).thread.title;
    const [first, , second] = await conversation("rw-title");
    const later = await as(ALICE).edit({ threadId: "rw-title", messageId: second!.id, text: "something else" });
    await watchUntil(runtime, later.runId, ended);
    expect(await title()).toBe("hello");
    const edited = await as(ALICE).edit({ threadId: "rw-title", messageId: first!.id, text: "Plans for Lisbon\nin May" });
    await watchUntil(runtime, edited.runId, ended);
    expect(await title()).toBe("Plans for Lisbon");
    await as(ALICE).rename({ threadId: "rw-title", title: "My trip" });
    const again = await as(ALICE).edit({ threadId: "rw-title", messageId: edited.messageId!, text: "Plans for Porto" });
    await watchUntil(runtime, again.runId, ended);
    expect(await title()).toBe("My trip");
  });

  it("regenerate: the last reply is replaced, the question stays", async () => {
    await turn("rw-regen", "hello");
    const before = await conversation("rw-regen");
    const reply = before.at(-1)!;
    const again = await as(ALICE).regenerate({ threadId: "rw-regen", messageId: reply.id });
    expect(again).toMatchObject({ superseded: [reply.id] });
    expect(again).not.toHaveProperty("messageId");
    await watchUntil(runtime, again.runId, ended);
    const after = await conversation("rw-regen");
    expect(after.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(after[0]!.id).toBe(before[0]!.id);
    expect(after[1]!.id).not.toBe(reply.id);
    expect(after[1]!.content).toBe(reply.content);
    expect(after[1]!.runId).toBe(again.runId);
    // The console labels the new run with the question it answers again.
    expect((await runtime.runs.get(ALICE, again.runId)).input).toBe("hello");
  });

  it("a client that sends the dropped messages again does not bring them back", async () => {
    const first = await turn("rw-stale", "hello");
    const before = await conversation("rw-stale");
    const edited = await as(ALICE).edit({ threadId: "rw-stale", messageId: before[0]!.id, text: "hello there" });
    await watchUntil(runtime, edited.runId, ended);
    // A tab that still shows the old conversation sends its whole history with a new message.
    const stale = started(
      await runtime.startRun(ALICE, say("rw-stale", "thanks", [{ id: before[0]!.id, role: "user", content: "hello" }])),
    );
    await watchUntil(runtime, stale.runId, ended);
    const after = await conversation("rw-stale");
    expect(after.map((m) => m.id)).not.toContain(before[0]!.id);
    expect(after[0]!.id).toBe(edited.messageId);
    expect(first.runId).not.toBe(stale.runId);
  });

  it("refuses while a run is running or paused (RUN_IN_PROGRESS), changing nothing", async () => {
    await turn("rw-busy", "hello");
    const [question] = await conversation("rw-busy");
    const busy = started(await runtime.startRun(ALICE, say("rw-busy", "count slowly to 200")));
    await watchUntil(runtime, busy.runId, (e) => e.type === "text.delta");
    await expect(runtime.rewind(ALICE, { threadId: "rw-busy", messageId: question!.id, text: "hi" })).rejects.toMatchObject({
      code: "RUN_IN_PROGRESS",
      details: { runIds: [busy.runId] },
    });
    expect(await codeOf(as(ALICE).edit({ threadId: "rw-busy", messageId: question!.id, text: "hi" }))).toBe("CONFLICT");
    await runtime.runs.steer(ALICE, busy.runId, { type: "CANCEL" });
    await watchUntil(runtime, busy.runId, ended);

    const paused = started(await runtime.startRun(ALICE, say("rw-busy", "send an email to bob@acme.test saying hi")));
    await watchUntil(runtime, paused.runId, (e) => e.type === "run.paused");
    const messages = await conversation("rw-busy");
    const reply = messages.findLast((m) => m.role === "assistant")!;
    expect(await codeOf(as(ALICE).regenerate({ threadId: "rw-busy", messageId: reply.id }))).toBe("CONFLICT");
    expect(await codeOf(as(ALICE).edit({ threadId: "rw-busy", messageId: question!.id, text: "hi" }))).toBe("CONFLICT");
    expect((await stored("rw-busy")).some((r) => r.superseded)).toBe(false);
    expect((await runsOf("rw-busy")).length).toBe(3);
  });

  it("is the owner's alone: another tenant NOT_FOUND, another user FORBIDDEN, an unknown message NOT_FOUND", async () => {
    await turn("rw-owned", "hello");
    const [question, reply] = await conversation("rw-owned");
    const edit = { threadId: "rw-owned", messageId: question!.id, text: "mine now" };
    expect(await codeOf(as(MALLORY).edit(edit))).toBe("NOT_FOUND");
    expect(await codeOf(as(MALLORY).regenerate({ threadId: "rw-owned", messageId: reply!.id }))).toBe("NOT_FOUND");
    expect(await codeOf(as(BOB).edit(edit))).toBe("FORBIDDEN");
    expect(await codeOf(as(CAROL).regenerate({ threadId: "rw-owned", messageId: reply!.id }))).toBe("FORBIDDEN");
    expect(await codeOf(as(ALICE).edit({ ...edit, messageId: "no-such-message" }))).toBe("NOT_FOUND");
    expect(await codeOf(as(ALICE).edit({ ...edit, threadId: "rw-nobody" }))).toBe("NOT_FOUND");
    expect((await stored("rw-owned")).some((r) => r.superseded)).toBe(false);
    expect((await runsOf("rw-owned")).length).toBe(1);
  });

  it("checks what is rewound: a reply is regenerated, never edited; only the last one; text not empty, within the limit", async () => {
    await turn("rw-checks", "hello");
    await turn("rw-checks", "hello again");
    const [q1, r1, q2, r2] = await conversation("rw-checks");
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => undefined,
        (e: { code?: string }) => e.code,
      );
    expect(await refusal(runtime.rewind(ALICE, { threadId: "rw-checks", messageId: r2!.id, text: "x" }))).toBe("INVALID_INPUT");
    expect(await refusal(runtime.rewind(ALICE, { threadId: "rw-checks", messageId: q2!.id }))).toBe("INVALID_INPUT");
    expect(await refusal(runtime.rewind(ALICE, { threadId: "rw-checks", messageId: r1!.id }))).toBe("INVALID_INPUT");
    expect(await refusal(runtime.rewind(ALICE, { threadId: "rw-checks", messageId: q1!.id, text: "   " }))).toBe("INVALID_INPUT");
    expect(await codeOf(as(ALICE).edit({ threadId: "rw-checks", messageId: q1!.id, text: " " }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(ALICE).edit({ threadId: "rw-checks", messageId: q1!.id, text: "a\u0000b" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(ALICE).edit({ threadId: "rw-checks", messageId: q1!.id, text: "x".repeat(32_001) }))).toBe("BAD_REQUEST");
    expect((await stored("rw-checks")).some((r) => r.superseded)).toBe(false);
  });

  /** Sends `calls` at once: exactly one may win; the others are refused as a live run or a message gone. */
  const atOnce = async (threadId: string, calls: (() => Promise<{ runId: string }>)[]) => {
    const runsBefore = (await runsOf(threadId)).length;
    const outcomes = await Promise.allSettled(calls.map((call) => call()));
    const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    expect(won).toHaveLength(1);
    for (const o of outcomes) if (o.status === "rejected") expect(["CONFLICT", "NOT_FOUND"]).toContain((o.reason as { code: string }).code);
    expect((await runsOf(threadId)).length).toBe(runsBefore + 1);
    return won[0]!;
  };

  it("a double click or a replay starts one run: the same regenerate or edit three times at once, and again later", async () => {
    await turn("rw-twice", "hello");
    const [question, reply] = await conversation("rw-twice");
    const regenerate = () => as(ALICE).regenerate({ threadId: "rw-twice", messageId: reply!.id });
    const regenerated = await atOnce("rw-twice", [regenerate, regenerate, regenerate]);
    await watchUntil(runtime, regenerated.runId, ended);
    // The same request again, once the run ended: its message is no longer in the conversation.
    expect(await codeOf(regenerate())).toBe("NOT_FOUND");

    const edit = () => as(ALICE).edit({ threadId: "rw-twice", messageId: question!.id, text: "hello there" });
    const edited = await atOnce("rw-twice", [edit, edit, edit]);
    await watchUntil(runtime, edited.runId, ended);
    expect(await codeOf(edit())).toBe("NOT_FOUND");
    expect((await conversation("rw-twice")).map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("of different rewinds at once, the first starts a run and the others find it live", async () => {
    await turn("rw-race", "count slowly to 40");
    const conversationNow = await conversation("rw-race");
    const question = conversationNow[0]!;
    const last = conversationNow.at(-1)!;
    const won = await atOnce("rw-race", [
      () => as(ALICE).regenerate({ threadId: "rw-race", messageId: last.id }),
      () => as(ALICE).edit({ threadId: "rw-race", messageId: question.id, text: "count slowly to 40 again" }),
      () => as(ALICE).edit({ threadId: "rw-race", messageId: question.id, text: "hello" }),
    ]);
    await watchUntil(runtime, won.runId, ended);
  });
});
