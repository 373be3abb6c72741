/**
 * Starting a run: everything that can be refused with an HTTP status (agent, thread ownership) is
 * decided before `startRun` returns; execution then happens in the background, independent of the
 * transport. A request that answers open interrupts goes on the waiting run instead (resume-run.ts).
 */
import { randomUUID } from "node:crypto";
import type { BeginRunInput, BegunThread } from "@/server/db/queries/run-writes";
import type { MultitaskPolicy } from "@/server/domain";
import {
  credentialToCheck,
  ForeignThreadError,
  tenantThreadId,
  titleFrom,
  verifiedOnly,
  type Identity,
  type VerifiedIdentity,
} from "../access";
import type { AgentDefinition, RunState } from "../agent";
import { HarborError, InvalidInputError, NotFoundError } from "../errors";
import { RunJournal, toStoredRows, type LoggedEvent } from "../log";
import { browserResults } from "./browser-results";
import { resumeRun } from "./resume-run";
import type { IncomingMessage, RunStart, StartedRun, StartRunRequest } from "./run-requests";
import { runLog, type RunsContext } from "./runs-context";
import { pendingInteraction, refuse } from "./start-refusals";

/** The new run's messages, ids and first event, as its first statement writes them. */
export interface NewRun {
  runId: string;
  agent: AgentDefinition;
  journal: RunJournal;
  started: LoggedEvent[];
  userMessages: Pick<IncomingMessage, "id" | "role" | "content">[];
  multitask: MultitaskPolicy;
}

/**
 * `startRun` (a helper's run starts this way even as the instance stops: it goes to the cluster's
 * queue at once). `startOn` with the client's thread id, or — when another tenant holds that id — with the
 * tenant's own id for it (see threads.ts). Nothing is written before the id is found foreign, so
 * the second try starts clean; ids nobody else holds cost nothing more.
 */
export async function startHere(ctx: RunsContext, identity: Identity, request: StartRunRequest, attempt = 1): Promise<RunStart> {
  try {
    return await startOn(ctx, identity, request, attempt);
  } catch (error) {
    if (!(error instanceof ForeignThreadError)) throw error;
    const own = tenantThreadId(ctx.deps.serverSecret, identity.tenantId, request.threadId);
    if (own === request.threadId) throw error;
    return startOn(ctx, identity, { ...request, threadId: own, clientThreadId: request.threadId }, attempt);
  }
}

async function startOn(ctx: RunsContext, identity: Identity, request: StartRunRequest, attempt = 1): Promise<RunStart> {
  const agent = ctx.deps.agents.get(request.agentId);
  if (!agent) throw new NotFoundError(`Agent "${request.agentId}"`);
  // A conversation's state is stored with every snapshot that differs: bounded before anything is.
  if (request.state && Buffer.byteLength(JSON.stringify(request.state)) > ctx.deps.maxStateBytes) {
    throw new InvalidInputError("state", `larger than ${ctx.deps.maxStateBytes} bytes of JSON`);
  }
  // A remembered identity goes only where the first statement writes and checks it: beginRun,
  // or the claim of gates parked here (see resumeRun); a browser tool's result is read first.
  const reader = request.messages.some((m) => m.role === "tool") ? verifiedOnly(identity) : undefined;
  if (request.resume && request.resume.length > 0) return resumeRun(ctx, identity, request);
  const delivered = reader && (await browserResults(ctx.deps, reader, request));
  if (delivered) return "refused" in delivered ? delivered : resumeRun(ctx, identity, { ...request, resume: delivered.resume });
  // Only new work is shed: answers and browser results above finish what was taken already.
  ctx.load.admitNewRun();
  return startNew(ctx, identity, agent, request, attempt);
}

/** A new run on the thread, written by its first statement — or, when that wrote nothing, the reason. */
async function startNew(
  ctx: RunsContext,
  identity: Identity,
  agent: AgentDefinition,
  request: StartRunRequest,
  attempt: number,
): Promise<RunStart> {
  const runId = randomUUID();
  const journal = new RunJournal(runId, ctx.deps.store, ctx.deps.bus);
  const run: NewRun = {
    runId,
    agent,
    journal,
    started: journal.prepare([{ type: "run.started", runId, threadId: request.clientThreadId ?? request.threadId, agentId: agent.id }]),
    // Only user messages are taken from the client: the server's transcript is the record, and a
    // client cannot write assistant or tool turns into it.
    userMessages: request.messages.filter((m) => m.role === "user").map(({ id, role, content }) => ({ id, role, content })),
    multitask: request.multitask ?? agent.multitask ?? "enqueue",
  };
  // Taken before the statement: its snapshot of the owner's grants is no older than this.
  const begun = Date.now();
  const thread = await ctx.beginRun(beginInput(ctx, identity, request, run));
  if (!thread) {
    // Nothing was written: whatever the reason, it is told to a looked-up identity only.
    const refusal = await refuse(ctx.deps, verifiedOnly(identity), request.threadId, run.multitask, run.userMessages.length);
    // The interaction that stood in the way was answered meanwhile: try once more.
    if (!refusal && attempt === 1) return startOn(ctx, identity, request, 2);
    return refusal ?? pendingInteraction([]);
  }
  return launch(ctx, identity, request, run, thread, begun);
}

/** What the run's first statement writes: the thread (new or touched), the messages, the run and its first event. */
export function beginInput(ctx: RunsContext, identity: Identity, request: StartRunRequest, run: NewRun): BeginRunInput {
  const { deps } = ctx;
  // A run that will wait for an earlier one — here, or on another instance (the statement looks) —
  // keeps its messages until its turn (see joinHeldInput).
  const mayHold = run.multitask !== "reject";
  return {
    thread: {
      id: request.threadId,
      clientId: request.clientThreadId,
      tenantId: identity.tenantId,
      ownerId: identity.userId,
      title: request.title ?? titleFrom(run.userMessages.at(-1)?.content),
      state: request.state && Object.keys(request.state).length > 0 ? request.state : undefined,
    },
    messages: run.userMessages,
    run: {
      id: run.runId,
      agentId: run.agent.id,
      transportRunId: request.transportRunId,
      parentRunId: request.parentRunId,
      instanceId: deps.instanceId,
    },
    events: toStoredRows(run.started),
    onlyIfIdle: run.multitask === "reject",
    maxMessages: deps.maxThreadMessages,
    ...(deps.maxTenantStorageBytes ? { maxStorageBytes: deps.maxTenantStorageBytes } : {}),
    holdMessages: mayHold && ctx.driver.threadBusy(request.threadId),
    holdIfThreadBusy: mayHold && deps.route !== undefined,
    unverified: credentialToCheck(identity),
  };
}

/** The run is written: its stream is followed from its first event, and it is driven in the background. */
export async function launch(
  ctx: RunsContext,
  identity: Identity,
  request: StartRunRequest,
  run: NewRun,
  thread: BegunThread,
  begun: number,
): Promise<StartedRun> {
  const { runId, agent, journal } = run;
  const base: RunState = {
    runId,
    threadId: thread.id,
    agentId: agent.id,
    tenantId: identity.tenantId,
    ownerId: identity.userId,
    step: 0,
    // A thread created just now holds exactly the messages of this request.
    transcript: thread.created ? run.userMessages : [],
    sharedState: thread.state,
  };
  const events = ctx.deps.bus.follow(runId);
  await journal.publish(run.started);
  // Double-texting: the runs still executing on the thread stop at their next safe point first.
  if (run.multitask === "interrupt" && !thread.created) await ctx.steering.interruptThread(thread.id, runId, identity);
  ctx.inFlight.track(
    ctx.driver.drive(base, journal, runLog(ctx.deps, runId, thread.id, request.requestId), {
      loadTranscript: !thread.created,
      heldInput: thread.held,
      ahead: thread.clear ? [] : undefined,
      grants: { tools: new Set(thread.grantTools), seenAt: begun },
    }),
  );
  return { runId, threadId: thread.id, events };
}

/** Child runs: same agent and owner, each on a new thread with the request as its message. */
export async function spawnChildren(ctx: RunsContext, parent: RunState, requests: readonly string[]): Promise<string[]> {
  const owner: VerifiedIdentity = { tenantId: parent.tenantId, userId: parent.ownerId, roles: ["member"] };
  const ids: string[] = [];
  for (const [index, text] of requests.entries()) {
    const child = await startHere(ctx, owner, {
      agentId: parent.agentId,
      threadId: randomUUID(),
      transportRunId: randomUUID(),
      messages: [{ id: randomUUID(), role: "user", content: text }],
      parentRunId: parent.runId,
      title: `Helper ${index + 1}: ${text}`,
    });
    if ("refused" in child) throw child.refused;
    if ("abandoned" in child) throw new HarborError("INTERNAL", "A new child run cannot abandon interrupts.");
    // Nobody reads a child's live stream here: it is followed through its log (runs.events).
    void child.events.return?.();
    ids.push(child.runId);
  }
  return ids;
}
