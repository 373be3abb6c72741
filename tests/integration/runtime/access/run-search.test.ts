import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRuns } from "@/server/db/queries/runs";
import type { Identity, Runtime, StartRunRequest } from "@/server/runtime";
import { testBackends, useSeededDatabase } from "../../../helpers/backends";
import { drain, started, testRuntime } from "../../../helpers/runtime";

const alice: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };
const mallory: Identity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };

let counter = 0;
const request = (threadId: string, text: string): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `search-${++counter}`,
  messages: [{ id: `search-m-${counter}`, role: "user", content: text }],
});

describe.each(testBackends())("searching runs on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let runtime: Runtime;
  let aliceRun = "";
  let bobRun = "";
  beforeAll(async () => {
    runtime = testRuntime(database.db);
    const a = started(await runtime.startRun(alice, request("search-thread-a", "hello about the Zanzibar invoice")));
    await drain(a.events);
    aliceRun = a.runId;
    const b = started(await runtime.startRun(bob, request("search-thread-b", "hello from the quarterly report")));
    await drain(b.events);
    bobRun = b.runId;
  });
  afterAll(() => runtime.idle());

  const ids = (runs: { runId: string }[]) => runs.map((r) => r.runId);

  it("matches the thread title case-insensitively and carries the title", async () => {
    const found = await runtime.runs.list(carol, { q: "zanzibar" });
    expect(ids(found)).toEqual([aliceRun]);
    expect(found[0]).toMatchObject({ threadTitle: "hello about the Zanzibar invoice", goal: null });
  });

  it("matches a run id prefix, the owner's name and the agent id", async () => {
    expect(ids(await runtime.runs.list(carol, { q: bobRun.slice(0, 8) }))).toEqual([bobRun]);
    expect(ids(await runtime.runs.list(carol, { q: "ALICE" }))).toContain(aliceRun);
    expect(ids(await runtime.runs.list(carol, { q: "ALICE" }))).not.toContain(bobRun);
    expect(ids(await runtime.runs.list(carol, { q: "concierge" }))).toEqual(expect.arrayContaining([aliceRun, bobRun]));
  });

  it("stays inside the caller's scope: a member finds only their own runs, another tenant nothing", async () => {
    expect(ids(await runtime.runs.list(bob, { q: "zanzibar" }))).toEqual([]);
    expect(ids(await runtime.runs.list(alice, { q: "hello" }))).toEqual([aliceRun]);
    expect(await runtime.runs.list(mallory, { q: "hello" })).toEqual([]);
  });

  it("labels each run of a conversation by its own input, newest first, a page at a time; one by its id", async () => {
    const turns = ["hello, first turn", "hello, second turn", "hello, third turn", "hello, fourth turn"];
    const runIds: string[] = [];
    for (const text of turns) {
      const run = started(await runtime.startRun(carol, request("search-thread-c", text)));
      await drain(run.events);
      runIds.push(run.runId);
    }
    const page = await listRuns(database.db, { tenantId: carol.tenantId, ownerId: carol.userId, limit: 2 });
    expect(page.map((r) => [r.runId, r.input])).toEqual([
      [runIds[3], "hello, fourth turn"],
      [runIds[2], "hello, third turn"],
    ]);
    expect(await runtime.runs.get(carol, runIds[0]!)).toMatchObject({ input: "hello, first turn", threadId: "search-thread-c" });
    expect(ids(await runtime.runs.list(carol, { q: "SECOND TURN" }))).toEqual([runIds[1]]);
  });

  it("treats wildcard characters as plain text", async () => {
    expect(await runtime.runs.list(carol, { q: "%" })).toEqual([]);
    expect(await runtime.runs.list(carol, { q: "_" })).toEqual([]);
  });
});
