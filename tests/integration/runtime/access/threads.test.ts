import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { appRouter } from "@/server/api/root";
import { createCallerFactory, type Context } from "@/server/api/trpc";
import { findRun } from "@/server/db/queries/runs";
import { findThread } from "@/server/db/queries/threads";
import type { Harbor } from "@/server/harbor";
import { log } from "@/server/log";
import { MAX_THREAD_TITLE, type Runtime, type VerifiedIdentity, type StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { started, testRuntime, watchUntil } from "../../../helpers/runtime";
import { codeOf } from "../../../helpers/trpc-errors";

const alice: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: VerifiedIdentity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

let counter = 0;
const request = (threadId: string, text: string): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `th-${++counter}`,
  messages: [{ id: `thm-${counter}`, role: "user", content: text }],
});

const createCaller = createCallerFactory(appRouter);

describe.each(testBackends())("threads: rename, delete, search on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  const as = (identity: VerifiedIdentity) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity, requestId: "req-threads", log } satisfies Context).threads;

  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  const finished = async (threadId: string, text: string) => {
    const run = started(await runtime.startRun(alice, request(threadId, text)));
    await watchUntil(runtime, run.runId, (e) => e.type === "run.completed" || e.type === "run.paused");
    return run;
  };

  it("titles a thread from its first message; the owner renames it, one line, trimmed", async () => {
    await finished("t-rename", "Hello there\nsecond line");
    expect((await findThread(database.db, "t-rename"))?.title).toBe("Hello there");
    expect(await as(alice).rename({ threadId: "t-rename", title: "  Trip   planning \n notes " })).toEqual({
      id: "t-rename",
      title: "Trip planning notes",
    });
    const listed = await as(alice).list();
    expect(listed.find((t) => t.id === "t-rename")).toMatchObject({
      title: "Trip planning notes",
      agentId: "concierge",
      parentThreadId: null,
    });
  });

  it("refuses a rename by another user (FORBIDDEN), another tenant (NOT_FOUND), of an unknown thread (NOT_FOUND)", async () => {
    await finished("t-owned", "hello");
    expect(await codeOf(as(bob).rename({ threadId: "t-owned", title: "mine now" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(carol).rename({ threadId: "t-owned", title: "admin edit" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(mallory).rename({ threadId: "t-owned", title: "x" }))).toBe("NOT_FOUND");
    expect(await codeOf(as(alice).rename({ threadId: "t-nobody", title: "x" }))).toBe("NOT_FOUND");
    expect((await findThread(database.db, "t-owned"))?.title).toBe("hello");
  });

  it("checks titles: not empty, storable text, at most the limit", async () => {
    await finished("t-checks", "hello");
    expect(await codeOf(as(alice).rename({ threadId: "t-checks", title: "   " }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(alice).rename({ threadId: "t-checks", title: "nul\u0000byte" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(alice).rename({ threadId: "t-checks", title: "lone \ud800 surrogate" }))).toBe("BAD_REQUEST");
    expect(await codeOf(as(alice).rename({ threadId: "t-checks", title: "x".repeat(MAX_THREAD_TITLE + 1) }))).toBe("BAD_REQUEST");
    expect(await as(alice).rename({ threadId: "t-checks", title: "x".repeat(MAX_THREAD_TITLE) })).toMatchObject({
      title: "x".repeat(MAX_THREAD_TITLE),
    });
    // The runtime rule holds without the router too.
    await expect(runtime.threads.rename(alice, "t-checks", "a\u0000b")).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(runtime.threads.rename(alice, "t-checks", "y".repeat(MAX_THREAD_TITLE + 1))).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
  });

  it("searches the owner's threads by title and by message text, case-insensitively, wildcards literal", async () => {
    await finished("t-search-1", "Tell me about Zanzibar beaches");
    await finished("t-search-2", "hello");
    await as(alice).rename({ threadId: "t-search-2", title: "100% Quokka plans" });
    const ids = async (identity: VerifiedIdentity, search?: string) =>
      (await as(identity).list(search === undefined ? undefined : { search })).map((t) => t.id);
    expect(await ids(alice, "zanzibar")).toEqual(["t-search-1"]);
    expect(await ids(alice, "QUOKKA")).toEqual(["t-search-2"]);
    expect(await ids(alice, "100%")).toEqual(["t-search-2"]);
    expect(await ids(alice, "%")).toEqual(["t-search-2"]);
    expect(await ids(alice, "nothing-like-this")).toEqual([]);
    // Another user's search never sees alice's threads.
    expect(await ids(bob, "zanzibar")).toEqual([]);
    expect(await ids(mallory, "zanzibar")).toEqual([]);
    expect(await codeOf(as(alice).list({ search: "a\u0000" }))).toBe("BAD_REQUEST");
  });

  it("lists a helper's thread with its parent's thread; deleting the parent removes the helpers' threads", async () => {
    const parent = started(await runtime.startRun(alice, request("t-family", "count slowly to 3 with helpers")));
    const spawned = await watchUntil(runtime, parent.runId, (e) => e.type === "children.started");
    const children = spawned.flatMap((e) => (e.type === "children.started" ? e.runIds : []));
    expect(children.length).toBeGreaterThan(0);
    await watchUntil(runtime, parent.runId, (e) => e.type === "run.completed");
    for (const child of children) await watchUntil(runtime, child, (e) => e.type === "run.completed");
    const childThreads = await Promise.all(children.map(async (id) => (await findRun(database.db, id))!.threadId));
    const listed = await as(alice).list();
    for (const threadId of childThreads) expect(listed.find((t) => t.id === threadId)).toMatchObject({ parentThreadId: "t-family" });

    expect(await as(alice).delete({ threadId: "t-family" })).toEqual({ deleted: 1 + childThreads.length });
    for (const threadId of ["t-family", ...childThreads]) expect(await findThread(database.db, threadId)).toBeUndefined();
    expect(await findRun(database.db, parent.runId)).toBeUndefined();
  });

  it("deletes only for the owner: another user FORBIDDEN, another tenant NOT_FOUND", async () => {
    await finished("t-delete", "hello");
    expect(await codeOf(as(bob).delete({ threadId: "t-delete" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(carol).delete({ threadId: "t-delete" }))).toBe("FORBIDDEN");
    expect(await codeOf(as(mallory).delete({ threadId: "t-delete" }))).toBe("NOT_FOUND");
    expect(await codeOf(as(alice).delete({ threadId: "t-gone" }))).toBe("NOT_FOUND");
    expect(await findThread(database.db, "t-delete")).toBeDefined();
    expect(await as(alice).delete({ threadId: "t-delete" })).toEqual({ deleted: 1 });
    expect(await codeOf(as(alice).get({ threadId: "t-delete" }))).toBe("NOT_FOUND");
  });

  it("refuses to delete a thread whose run is running or paused (CONFLICT); after a cancel it goes", async () => {
    const run = started(await runtime.startRun(alice, request("t-busy", "count slowly to 200")));
    await watchUntil(runtime, run.runId, (e) => e.type === "text.delta");
    expect(await codeOf(as(alice).delete({ threadId: "t-busy" }))).toBe("CONFLICT");
    await runtime.runs.steer(alice, run.runId, { type: "CANCEL" });
    await watchUntil(runtime, run.runId, (e) => e.type === "run.completed");
    expect(await as(alice).delete({ threadId: "t-busy" })).toEqual({ deleted: 1 });

    const paused = started(await runtime.startRun(alice, request("t-paused", "send an email to bob@acme.test saying hi")));
    await watchUntil(runtime, paused.runId, (e) => e.type === "run.paused");
    expect(await codeOf(as(alice).delete({ threadId: "t-paused" }))).toBe("CONFLICT");
    expect(await findThread(database.db, "t-paused")).toBeDefined();
  });
});

describe.each(testBackends())("a thread's runs as a page opening it reads them, on $name", (backend) => {
  const database = useSeededDatabase(backend);
  const get = (runtime: Runtime, threadId: string) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity: alice, requestId: "req-latest", log } satisfies Context).threads.get(
      {
        threadId,
      },
    );

  it("names the runs still going and how the latest ended: completed, or failed with the instance that ran it", async () => {
    const first = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }), instanceId: `i-first-${backend.name}` });
    await first.start();
    const hello = started(await first.startRun(alice, request("t-latest", "hello")));
    await watchUntil(first, hello.runId, (e) => e.type === "run.completed");
    expect(await get(first, "t-latest")).toMatchObject({
      liveRunIds: [],
      latestRun: { runId: hello.runId, status: "completed", error: null },
    });

    const counting = started(await first.startRun(alice, request("t-latest", "count slowly to 200")));
    await watchUntil(first, counting.runId, (e) => e.type === "text.delta");
    expect(await get(first, "t-latest")).toMatchObject({
      liveRunIds: [counting.runId],
      latestRun: { runId: counting.runId, status: "running", error: null },
    });
    // Its instance goes while it counts: the run ends with it, and nobody follows it any more.
    await first.stop(50);

    const next = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }), instanceId: `i-next-${backend.name}` });
    await next.start();
    const opened = await get(next, "t-latest");
    expect(opened.liveRunIds).toEqual([]);
    expect(opened.latestRun).toEqual({
      runId: counting.runId,
      status: "failed",
      error: { code: "INSTANCE_LOST", message: expect.stringContaining("stopped before the run ended") },
    });
    expect(opened.messages.at(-1)).toMatchObject({ role: "system", content: opened.latestRun?.error?.message });
    next.close();
    await next.idle();
  });

  it("has no latest run for a thread that never ran", async () => {
    const runtime = testRuntime(database.db);
    const thread = await runtime.threads.create(alice, "empty");
    expect(await get(runtime, thread.id)).toMatchObject({ liveRunIds: [], latestRun: null });
    runtime.close();
    await runtime.idle();
  });
});

describe.each(testBackends())("thread ids scoped to their tenant on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  const as = (identity: VerifiedIdentity) =>
    createCaller({ harbor: { runtime } as unknown as Harbor, identity, requestId: "req-scoped", log } satisfies Context).threads;

  beforeAll(() => {
    runtime = testRuntime(database.db, { agents: createAgents({ stepMs: 30 }) });
  });
  afterAll(async () => {
    runtime.close();
    await runtime.idle();
  });

  const turn = async (who: VerifiedIdentity, threadId: string, text: string) => {
    const run = started(await runtime.startRun(who, request(threadId, text)));
    const events = await watchUntil(runtime, run.runId, (e) => e.type === "run.completed" || e.type === "run.paused", who);
    return { run, last: events.at(-1)! };
  };
  const userWords = async (who: VerifiedIdentity, threadId: string) =>
    (await as(who).get({ threadId })).messages.filter((m) => m.role === "user").map((m) => m.content);

  it("lets alice use an id another tenant took first: her own conversation, continued under it, theirs untouched", async () => {
    await turn(mallory, "team-standup", "globex's standup");
    const first = await turn(alice, "team-standup", "acme's standup");
    expect(first.run.threadId).not.toBe("team-standup");
    await turn(alice, "team-standup", "and more");
    expect(await userWords(alice, "team-standup")).toEqual(["acme's standup", "and more"]);
    expect(await userWords(mallory, "team-standup")).toEqual(["globex's standup"]);
    // Renaming works on her own, too; mallory's keeps its title.
    await as(alice).rename({ threadId: "team-standup", title: "Acme standup" });
    expect((await as(mallory).get({ threadId: "team-standup" })).thread.title).toBe("globex's standup");
    expect((await as(alice).get({ threadId: "team-standup" })).thread.title).toBe("Acme standup");
  });

  it("shows alice her thread under the id she chose wherever she sees it, so she cannot tell the id was taken", async () => {
    await turn(mallory, "weekly-sync", "globex's sync");
    const parked = await turn(alice, "weekly-sync", "send an email to jo@example.com saying hi");
    expect(parked.run.threadId).not.toBe("weekly-sync");
    const [runStarted] = await watchUntil(runtime, parked.run.runId, (e) => e.type === "run.started", alice);
    expect(runStarted).toMatchObject({ type: "run.started", threadId: "weekly-sync" });

    const listed = await as(alice).list();
    expect(listed.map((t) => t.id)).toContain("weekly-sync");
    expect(listed.some((t) => t.id.startsWith("t-"))).toBe(false);
    expect((await as(alice).get({ threadId: "weekly-sync" })).thread.id).toBe("weekly-sync");
    expect(await as(alice).rename({ threadId: "weekly-sync", title: "Sync" })).toEqual({ id: "weekly-sync", title: "Sync" });

    const gates = await runtime.interactions.list(alice, { threadId: "weekly-sync" });
    expect(gates.map((g) => g.runId)).toEqual([parked.run.runId]);
    expect(gates[0]!.threadId).toBe("weekly-sync");
    expect((await runtime.interactions.get(alice, gates[0]!.interactionId)).threadId).toBe("weekly-sync");
    // Mallory's own thread of that id holds no gate of alice's.
    expect(await runtime.interactions.list(mallory, { threadId: "weekly-sync" })).toEqual([]);
  });

  it("answers an id another tenant holds exactly as an unused one", async () => {
    await turn(mallory, "globex-only", "secret plans");
    const taken = await codeOf(as(alice).get({ threadId: "globex-only" }));
    const unused = await codeOf(as(alice).get({ threadId: "nobody-has-this-id" }));
    expect(taken).toBe("NOT_FOUND");
    expect(taken).toBe(unused);
    await expect(as(alice).get({ threadId: "globex-only" })).rejects.toThrow(/^Thread not found$/);
  });

  it("resumes alice's gate on her own thread of a taken id", async () => {
    await turn(mallory, "shared-name", "hello");
    const parked = await turn(alice, "shared-name", "send an email to jo@example.com saying hi");
    expect(parked.last.type).toBe("run.paused");
    const interruptId = parked.last.type === "run.paused" ? parked.last.interrupts[0]!.id : "";
    const resumed = started(
      await runtime.startRun(alice, {
        agentId: "concierge",
        threadId: "shared-name",
        transportRunId: `th-${++counter}`,
        messages: [],
        resume: [{ interactionId: interruptId, status: "resolved", payload: { approved: true } }],
      }),
    );
    const events = await watchUntil(runtime, resumed.runId, (e) => e.type === "run.completed", alice);
    expect(events.at(-1)?.type).toBe("run.completed");
    expect(resumed.threadId).toBe(parked.run.threadId);
  });
});
