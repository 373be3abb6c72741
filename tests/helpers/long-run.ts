/**
 * A finished run with a very long event log, written straight through the run-write queries (the
 * runtime would take minutes to say that much): alice's, on a thread of its own, made of assistant
 * messages streamed as text deltas of a realistic size, ending `run.completed`. Used to prove that
 * reading such a log stays within memory and time budgets.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Database } from "@/server/db/client";
import { appendRunEvents, beginRun, type EventRow } from "@/server/db/queries/run-writes";
import { seedDemo } from "@/server/db/seed";
import type { RunEvent } from "@/server/domain";
import { authHeaders, type Auth } from "./http";
import { prepareDatabase, startOwnServer, type Engine, type OwnServer } from "./own-server";

/** Deltas per assistant message (plus its start and end). */
const DELTAS_PER_MESSAGE = 200;
/** Events written per statement. */
const BATCH = 5_000;

const WORDS = "the run keeps streaming text while several readers follow its log from the very first event onwards".split(" ");

/** About 40–90 characters of text, like a model's streamed chunk. */
function delta(i: number): string {
  const words = 8 + (i % 7);
  return Array.from({ length: words }, (_, k) => WORDS[(i * 7 + k) % WORDS.length]).join(" ") + " ";
}

/** A run's events: started, assistant messages (start, deltas, end), completed — `total` in all. */
function* longRunEvents(runId: string, threadId: string, total: number): Generator<RunEvent> {
  if (total < 4) throw new Error("a long run has at least 4 events");
  yield { type: "run.started", runId, threadId, agentId: "concierge" };
  for (let left = total - 2, i = 0; left > 0;) {
    let size = Math.min(DELTAS_PER_MESSAGE + 2, left);
    // Never leave a single slot: a message needs its start and its end.
    if (left - size === 1) size--;
    const messageId = randomUUID();
    yield { type: "text.started", messageId };
    for (let k = 0; k < size - 2; k++) yield { type: "text.delta", messageId, delta: delta(i++) };
    yield { type: "text.ended", messageId };
    left -= size;
  }
  yield { type: "run.completed" };
}

/** Writes a completed run of `total` events (seq 1..total) for alice; returns its ids. */
export async function writeLongRun(db: Database, total: number): Promise<{ runId: string; threadId: string }> {
  const runId = randomUUID();
  const threadId = randomUUID();
  const events = longRunEvents(runId, threadId, total);
  const first = events.next().value as RunEvent;
  await beginRun(db, {
    thread: { id: threadId, tenantId: "tenant-acme", ownerId: "user-alice", title: `${total} events` },
    messages: [{ id: randomUUID(), role: "user", content: "say a lot" }],
    run: { id: runId, agentId: "concierge", transportRunId: randomUUID(), instanceId: "test-setup" },
    events: [{ seq: 1, type: first.type, data: first }],
  });
  let seq = 1;
  let rows: EventRow[] = [];
  for (const data of events) {
    rows.push({ seq: ++seq, type: data.type, data });
    const last = data.type === "run.completed";
    if (rows.length === BATCH || last) {
      await appendRunEvents(db, [{ runId, events: rows, alongside: last ? { run: { status: "completed", terminal: true } } : undefined }]);
      rows = [];
    }
  }
  return { runId, threadId };
}

/**
 * A server on `engine` whose database already holds completed runs of `totals` events each, in that
 * order (written before the server starts: an embedded database has one process at a time).
 */
export async function serverWithLongRuns(
  engine: Engine,
  label: string,
  totals: readonly number[],
  options: { env?: Record<string, string>; postgresUrl?: string } = {},
): Promise<{ server: OwnServer; runs: { runId: string; threadId: string }[] }> {
  const dataDir = engine === "pglite" ? fs.mkdtempSync(path.join(os.tmpdir(), `harbor-${label}-db-`)) : undefined;
  const prepared = await prepareDatabase(engine, dataDir, options.postgresUrl);
  const runs: { runId: string; threadId: string }[] = [];
  try {
    const handle =
      engine === "pglite"
        ? await openDatabase({ engine: "pglite", dataDir })
        : await openDatabase({ engine: "postgres", url: prepared.databaseUrl!, poolSize: 2 });
    try {
      await seedDemo(handle.db);
      for (const total of totals) runs.push(await writeLongRun(handle.db, total));
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    await prepared.drop();
    throw error;
  }
  const server = await startOwnServer(engine, label, options.env, prepared);
  return { server, runs };
}

/** The resident set size of a process, in bytes (Linux). */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/**
 * Reads a `runs.events` stream to its end without keeping it: counts the logged events, checks each
 * seq follows the one before, and notes when the first one arrived.
 */
export async function followToEnd(
  url: string,
  auth: Auth,
  runId: string,
): Promise<{ count: number; lastSeq: number; lastType: string; firstEventMs: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/trpc/runs.events?input=${encodeURIComponent(JSON.stringify({ runId }))}`, {
    headers: { accept: "text/event-stream", ...authHeaders(auth) },
  });
  if (res.status !== 200) throw new Error(`runs.events answered ${res.status}`);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let count = 0;
  let lastSeq = 0;
  let lastType = "";
  let firstEventMs = -1;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const frames = (buffer + value).split("\n\n");
      buffer = frames.pop()!;
      for (const frame of frames) {
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        if (!data || !data.includes('"seq"')) continue;
        const logged = JSON.parse(data.slice(6)) as { seq: number; event: { type: string } };
        if (firstEventMs < 0) firstEventMs = performance.now() - started;
        if (logged.seq !== lastSeq + 1) throw new Error(`seq ${logged.seq} after ${lastSeq}`);
        lastSeq = logged.seq;
        lastType = logged.event.type;
        count++;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { count, lastSeq, lastType, firstEventMs };
}
