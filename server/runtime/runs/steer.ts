/**
 * `runs.steer`: one of the nine instructions on a live run. Authorizes (admins all nine; owners
 * USER_MESSAGE and CANCEL; APPROVE/REJECT go to the coordinator, whose policy decides), audits every
 * attempt, then applies it: decisions and RESUME through the coordinator, CANCEL and PAUSE to the
 * run and — unless isolated — its child runs, the rest to the run's mailbox (executing here) or
 * stored with the run (parked), for its next safe point.
 */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import { findTraceParent } from "@/server/db/queries/traces";
import { steerSpan, tracingEnabled } from "@/server/telemetry";
import { pendingOfRun } from "@/server/db/queries/interactions";
import { activeRunsOnThread, childRunIds, findRun, holdSteering, setPriority, type RunRow } from "@/server/db/queries/runs";
import { isTerminalStatus, kindRules, type CancelledBy, type StoredInstruction } from "@/server/domain";
import type { Coordinator, ResolutionInput, ResolveVia } from "../pause";
import { NotForwarded, routedIdentity, type RouteDeps } from "../cluster";
import { ForbiddenError, HarborError, NotFoundError } from "../errors";
import { hasRole, type Identity } from "../access";
import type { Scheduler } from "./scheduler";
import { MAILBOX_CAPACITY, OWNER_INSTRUCTIONS, type Mailboxes, type SteeringInstruction } from "./steering";

export interface SteerDeps {
  db: Database;
  instanceId: string;
  /** How this instance reaches the others (absent: alone on its database). */
  route?: RouteDeps;
  log: Logger;
  coordinator: Coordinator;
  mailboxes: Mailboxes;
  scheduler: Scheduler;
  isExecuting(runId: string): boolean;
  /** Ends a run that waits for its turn (its thread or a slot); false when it does not wait here. */
  cancelWaiting(runId: string, by: CancelledBy): boolean;
  /** Ends a run in the cluster's queue that no instance holds (its own stopped); false when it is not there. */
  cancelUnheld(runId: string, by: CancelledBy): Promise<boolean>;
  resolveInteractions(identity: Identity, entries: readonly ResolutionInput[], via: Exclude<ResolveVia, "agui">): Promise<unknown>;
}

/** An instruction in its run's trace, when tracing is on. */
async function traced<T>(deps: SteerDeps, runId: string, instruction: SteeringInstruction, work: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work();
  return steerSpan({ runId, instruction: instruction.type, parent: await findTraceParent(deps.db, runId) }, work);
}

/** Who steers, as the run's stored instructions and the cancels they cause record it. */
type Actor = Pick<StoredInstruction, "actorId" | "actorRole">;

export function steeringService(deps: SteerDeps) {
  return {
    steer: (identity: Identity, runId: string, instruction: SteeringInstruction, options?: { routed?: boolean }) =>
      traced(deps, runId, instruction, () => steer(deps, identity, runId, instruction, options)),
    interruptThread: (threadId: string, exceptRunId: string, owner: Identity) => interruptThread(deps, threadId, exceptRunId, owner),
  };
}

async function steer(
  deps: SteerDeps,
  identity: Identity,
  runId: string,
  instruction: SteeringInstruction,
  options: { routed?: boolean } = {},
): Promise<{ accepted: true }> {
  const found = await findRun(deps.db, runId);
  if (!found || found.tenantId !== identity.tenantId) throw new NotFoundError("Run");
  const here = options.routed ? { forwarded: false as const, run: found } : await steerAtHolder(deps, identity, found, instruction);
  if (here.forwarded) return { accepted: true };
  const run = here.run;
  const audit = (outcome: string, details: Record<string, unknown> = {}) =>
    appendAudit(deps.db, {
      tenantId: identity.tenantId,
      actorId: identity.userId,
      action: "run.steer",
      subjectType: "run",
      subjectId: runId,
      outcome,
      details: { instruction: instruction.type, ...details },
    });
  try {
    const decides = instruction.type === "APPROVE" || instruction.type === "REJECT";
    const allowed = hasRole(identity, "admin") || decides || (run.ownerId === identity.userId && OWNER_INSTRUCTIONS.has(instruction.type));
    if (!allowed) throw new ForbiddenError(`You may not send ${instruction.type} to this run.`);
    if (isTerminalStatus(run.status)) throw new HarborError("RUN_ENDED", `The run already ended (${run.status}).`);
    await apply(deps, identity, run, instruction);
    await audit("accepted");
    return { accepted: true };
  } catch (error) {
    if (HarborError.is(error)) await audit("refused", { code: error.code });
    throw error;
  }
}

/**
 * A live run held by another instance is steered there (within one step); a dead holder is
 * reclaimed first, and the run's state then decides. A stopping holder still steers the runs
 * executing there; a run parked there is steered here (its waits are anyone's, or lost with it).
 * Returns the run as it now stands when it is steered here.
 */
async function steerAtHolder(
  deps: SteerDeps,
  identity: Identity,
  run: RunRow,
  instruction: SteeringInstruction,
): Promise<{ forwarded: true } | { forwarded: false; run: RunRow }> {
  const holder = run.instanceId;
  if (!deps.route || !holder || holder === deps.instanceId || isTerminalStatus(run.status)) return { forwarded: false, run };
  const state = await deps.route.state(holder);
  if (state === "serving" || (state === "stopping" && run.status !== "paused")) {
    try {
      await deps.route.forward(holder, { type: "steer", identity: routedIdentity(identity), runId: run.id, instruction });
      return { forwarded: true };
    } catch (error) {
      // It stopped without taking it: its runs went to the cluster's queue, and are steered from here.
      if (!(error instanceof NotForwarded)) throw error;
    }
  }
  if (state !== "stopping") await deps.route.reclaim();
  return { forwarded: false, run: (await findRun(deps.db, run.id)) ?? run };
}

async function apply(deps: SteerDeps, identity: Identity, run: RunRow, instruction: SteeringInstruction): Promise<void> {
  // The owner steers their own run as its owner; anyone else who may steer it is an operator.
  const actor: Actor = { actorId: identity.userId, actorRole: run.ownerId === identity.userId ? "owner" : "operator" };
  switch (instruction.type) {
    case "APPROVE":
    case "REJECT":
      return decide(deps, identity, run, instruction);
    case "RESUME": {
      if (!(await resumeOne(deps, identity, run.id))) throw new HarborError("RUN_STATE_CONFLICT", "This run is not paused by an operator.");
      // Helpers paused with their parent go on with it.
      for (const child of await childRunIds(deps.db, run.id)) await resumeOne(deps, identity, child);
      return;
    }
    case "PRIORITIZE":
      // Stored for the record and the console; a run waiting for a slot moves in the queue at once.
      await setPriority(deps.db, run.id, instruction.priority);
      deps.scheduler.reprioritize(run.id, instruction.priority);
      if (deps.isExecuting(run.id)) post(deps, run.id, { instruction, ...actor });
      return;
    case "CANCEL":
      return cancelWithHelpers(deps, identity, run, instruction, actor);
    case "PAUSE":
      return pauseWithHelpers(deps, identity, run, instruction, actor);
    case "INJECT_CONTEXT":
    case "REDIRECT":
    case "USER_MESSAGE":
      return hold(deps, run, { instruction, ...actor });
  }
}

async function cancelWithHelpers(
  deps: SteerDeps,
  identity: Identity,
  run: RunRow,
  instruction: Extract<SteeringInstruction, { type: "CANCEL" }>,
  actor: Actor,
): Promise<void> {
  // The run itself must stop; helpers that already ended are simply done.
  if (!(await cancelOne(deps, run.id, actor))) {
    throw new HarborError(
      "RUN_STATE_CONFLICT",
      "This run is not executing in this process and is not parked: it cannot be cancelled from here.",
    );
  }
  if (instruction.mode === "isolate") return;
  // Helpers that run on another instance are cancelled there.
  for (const child of await childRunIds(deps.db, run.id)) {
    if (!(await cancelOne(deps, child, actor))) await steerQuietly(deps, identity, child, { type: "CANCEL", mode: "isolate" });
  }
}

async function pauseWithHelpers(
  deps: SteerDeps,
  identity: Identity,
  run: RunRow,
  instruction: Extract<SteeringInstruction, { type: "PAUSE" }>,
  actor: Actor,
): Promise<void> {
  if (run.status === "paused") throw new HarborError("RUN_STATE_CONFLICT", "The run is already paused.");
  if (!deps.isExecuting(run.id)) throw new HarborError("RUN_STATE_CONFLICT", "This run is not executing in this process.");
  post(deps, run.id, { instruction, ...actor });
  // Helpers pause with their parent (and RESUME releases them): executing ones at their next safe point.
  for (const child of await childRunIds(deps.db, run.id)) {
    if (deps.isExecuting(child)) post(deps, child, { instruction, ...actor });
    else await steerQuietly(deps, identity, child, instruction);
  }
}

/** APPROVE/REJECT: the run's one open gate, or the one named; the coordinator's policy decides who may. */
async function decide(
  deps: SteerDeps,
  identity: Identity,
  run: RunRow,
  instruction: Extract<SteeringInstruction, { type: "APPROVE" | "REJECT" }>,
): Promise<void> {
  // The gates a resolver policy decides are the ones an approval or a rejection answers.
  const gates = (await pendingOfRun(deps.db, run.id)).filter((i) => kindRules(i.kind).answeredBy === "policy");
  if (gates.length > 1 && !instruction.interactionId) {
    throw new HarborError("RUN_STATE_CONFLICT", "This run has several open gates: name one with interactionId.");
  }
  const interactionId = instruction.interactionId ?? gates[0]?.id;
  if (interactionId === undefined || !gates.some((g) => g.id === interactionId)) {
    throw new HarborError("RUN_STATE_CONFLICT", "This run has no such open approval gate.");
  }
  const payload = { approved: instruction.type === "APPROVE", ...(instruction.reason ? { reason: instruction.reason } : {}) };
  await deps.resolveInteractions(identity, [{ interactionId, status: "resolved", payload }], "console");
}

/** Instructions for the next safe point: the mailbox of a run executing here, or stored with a parked run. */
async function hold(deps: SteerDeps, run: RunRow, stored: StoredInstruction): Promise<void> {
  if (deps.isExecuting(run.id)) return post(deps, run.id, stored);
  if ((await holdSteering(deps.db, run.id, stored, MAILBOX_CAPACITY)).held) return;
  // Not stored: the run is full, or went on meanwhile (then it executes here, unless it ended).
  if (deps.isExecuting(run.id)) return post(deps, run.id, stored);
  const now = await findRun(deps.db, run.id);
  if (now?.status === "paused") throw tooMany();
  throw new HarborError("RUN_STATE_CONFLICT", "This run is not executing in this process and is not parked.");
}

function post(deps: SteerDeps, runId: string, stored: StoredInstruction): void {
  if (!deps.mailboxes.post(runId, stored)) throw tooMany();
}

/**
 * Cancels one run: at once if it waits for its turn (here, or in the cluster's queue with no
 * instance holding it) or is parked, else at its next safe point if it executes here. Returns
 * false when none holds (it ended meanwhile, or another process has it).
 */
async function cancelOne(deps: SteerDeps, runId: string, actor: Actor): Promise<boolean> {
  if (deps.cancelWaiting(runId, actor.actorRole)) return true;
  if (deps.isExecuting(runId)) {
    // A cancel always gets through, however full the mailbox.
    deps.mailboxes.post(runId, { instruction: { type: "CANCEL" }, ...actor }, { force: true });
    return true;
  }
  if (await deps.coordinator.cancel(runId, actor.actorRole)) {
    deps.mailboxes.drop(runId);
    return true;
  }
  // Handed to the cluster's queue by its stopping instance, and not taken yet: it ends here.
  return deps.cancelUnheld(runId, actor.actorRole);
}

/** Ends the run's operator pause, if it has one (false when it has none). */
async function resumeOne(deps: SteerDeps, identity: Identity, runId: string): Promise<boolean> {
  // An operator's pause is the wait only admins answer, from the console.
  const interactionId = (await pendingOfRun(deps.db, runId)).find((i) => kindRules(i.kind).answeredBy === "admins")?.id;
  if (interactionId === undefined) return false;
  await deps.resolveInteractions(identity, [{ interactionId, status: "resolved" }], "console");
  return true;
}

/** A cascade's step: the run may have ended or run nowhere steerable; that is not the parent's failure. */
async function steerQuietly(deps: SteerDeps, identity: Identity, runId: string, instruction: SteeringInstruction): Promise<void> {
  try {
    await steer(deps, identity, runId, instruction);
  } catch (error) {
    if (!HarborError.is(error)) throw error;
  }
}

/**
 * Double-texting `interrupt`: the thread's other runs are cancelled by their owner at their next
 * safe point — on whichever instance they run.
 */
async function interruptThread(deps: SteerDeps, threadId: string, exceptRunId: string, owner: Identity): Promise<void> {
  for (const runId of await activeRunsOnThread(deps.db, threadId)) {
    if (runId !== exceptRunId) await steerQuietly(deps, owner, runId, { type: "CANCEL", mode: "isolate" });
  }
}

function tooMany(): HarborError {
  return new HarborError(
    "TOO_MANY_INSTRUCTIONS",
    `This run already has ${MAILBOX_CAPACITY} instructions waiting; try again once it has taken them.`,
  );
}
