import { createAgents } from "@/server/agents";
import type { Database } from "@/server/db";
import { log } from "@/server/log";
import {
  createRuntime,
  type AgentDefinition,
  type Identity,
  type VerifiedIdentity,
  type LoggedEvent,
  type Planner,
  type AbandonedRun,
  type RefusedRun,
  type Runtime,
  type RuntimeDeps,
  type StartedRun,
} from "@/server/runtime";

export const TEST_SECRET = "test-secret-test-secret-test-secret";

/** A runtime on `db` with the concierge (or the given agents), no pacing, and a quiet log. */
export function testRuntime(db: Database, overrides: Partial<RuntimeDeps> = {}) {
  return createRuntime({
    db,
    agents: createAgents(),
    log: log.child({ test: true }),
    streamChunkMs: 0,
    serverSecret: TEST_SECRET,
    // Like the embedded database: a runtime that starts takes over from every earlier one.
    alone: true,
    ...overrides,
  });
}

/** An agent with only a planner (and optionally tools), for tests of the loop's plumbing. */
export function agentOf(id: string, planner: Planner, tools: AgentDefinition["tools"] = new Map()): AgentDefinition {
  return { id, name: id, description: id, planner, tools };
}

export function started(run: StartedRun | RefusedRun | AbandonedRun): StartedRun {
  if ("refused" in run) throw new Error(`expected the run to start, it was refused: ${run.refused.code} ${run.refused.message}`);
  if ("abandoned" in run) throw new Error(`expected the run to start, its interrupts were abandoned: ${run.abandoned.runId}`);
  return run;
}

export function refused(run: StartedRun | RefusedRun | AbandonedRun): RefusedRun["refused"] {
  if (!("refused" in run))
    throw new Error(`expected the run to be refused: ${JSON.stringify("abandoned" in run ? run.abandoned : run.runId)}`);
  return run.refused;
}

export async function drain(batches: AsyncIterable<LoggedEvent[]>): Promise<LoggedEvent[]> {
  const seen: LoggedEvent[] = [];
  for await (const batch of batches) seen.push(...batch);
  return seen;
}

/** An admin of acme: the steering and run-reading tests watch runs as her. */
export const ALICE: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
export const BOB: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
export const MALLORY: VerifiedIdentity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["member", "approver", "admin"] };
export const CAROL: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member", "approver", "admin"] };

/** Reads a run's log (stored, then live) as `reader` until `until` holds; returns everything seen. */
export async function watchUntil(
  runtime: Runtime,
  runId: string,
  until: (e: LoggedEvent["event"]) => boolean,
  reader: Identity = CAROL,
): Promise<LoggedEvent["event"][]> {
  const seen: LoggedEvent["event"][] = [];
  const controller = new AbortController();
  for await (const logged of await runtime.watchRun(reader, runId, 0, controller.signal)) {
    seen.push(logged.event);
    if (until(logged.event)) break;
  }
  controller.abort();
  return seen;
}
