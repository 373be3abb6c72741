/**
 * Starting and executing runs. `startRun` does everything that can be refused with an HTTP
 * status (agent, thread ownership) before it returns; execution then happens in the background,
 * independent of the transport: a client that disconnects does not stop its run.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { childOnFirstLine } from "@/server/log";
import type { Database } from "@/server/db";
import type { InstanceState } from "@/server/db/queries/instances";
import { activeRunsOnThread, findRun, lastSeq, loadContinuation, takeNextQueuedRun, type Continuation } from "@/server/db/queries/runs";
import { beginRuns, type BeginRunInput } from "@/server/db/queries/run-writes";
import { EMPTY_CHECKPOINT, type MultitaskPolicy } from "@/server/domain";
import { countMessages, findThread } from "@/server/db/queries/threads";
import { storedBytesOf } from "@/server/db/queries/storage";
import { browserRequestsFor, pendingOnThread } from "@/server/db/queries/interactions";
import { HeldElsewhere, type Coordinator, type ReadyRun, type ResolutionInput, type ResolveVia } from "../pause";
import { NotForwarded, routedIdentity, type RouteDeps, type RoutedRequest } from "../cluster";
import { createDriver, toTranscript } from "./drive";
import type { RunLease } from "../cluster";
import type { GrantService } from "../policies";
import { cancelRemoteTasks } from "./remote-tasks";
import { batched } from "../log";
import { asHarborError, HarborError, InvalidInputError, NotFoundError, StaleCredentialError } from "../errors";
import type { EventBus } from "../log";
import type { LoggedEvent, RunEvent } from "../log";
import { credentialToCheck, verifiedOnly, type Identity } from "../access";
import { RunJournal, toStoredRows, type EventStore } from "../log";
import type { Scheduler } from "./scheduler";
import type { Mailboxes } from "./steering";
import { steeringService } from "./steer";
import type { AgentRegistry } from "../agent";
import type { CredentialBroker } from "../access";
import type { RunState, TranscriptMessage } from "../agent";
import { assertThreadAccess, ForeignThreadError, ownsThread, tenantThreadId, titleFrom } from "../access";

const HELD_BY_LOST_INSTANCE = "This request was held by a Harbor instance that is gone, so it can no longer be answered. Please ask again.";

export interface RunsDeps {
  db: Database;
  /** This process: the instance that executes the runs it starts or continues. */
  instanceId: string;
  agents: AgentRegistry;
  bus: EventBus;
  log: Logger;
  coordinator: Coordinator;
  store: EventStore;
  mailboxes: Mailboxes;
  scheduler: Scheduler;
  streamChunkMs: number;
  maxSteps: number;
  /** The most messages one thread holds; a new message beyond it is refused with THREAD_FULL. */
  maxThreadMessages: number;
  /** Keys the tenant's own thread ids (see threads.ts `tenantThreadId`). */
  serverSecret: string;
  /** The largest shared state a conversation may hold, in bytes of JSON; larger is INVALID_INPUT (`state`). */
  maxStateBytes: number;
  /** What one tenant may store, in bytes (as last measured); a new run past it is QUOTA_EXCEEDED. Absent: no quota. */
  maxTenantStorageBytes?: number;
  credentials?: CredentialBroker;
  /** Standing approvals a gated call may pass on. */
  grants?: GrantService;
  /** This instance's fencing token: a run stops once the instance was reclaimed while it held it. */
  lease?: RunLease;
  route?: RouteDeps;
  /** Tells the other instances a run waits in the cluster's queue (absent: this process is alone). */
  signalQueued?: () => Promise<void>;
  /** How long a freed slot trusts an empty look at the cluster's queue when no queued signal came (default 1 s). */
  queueRecheckMs?: number;
}

/** A message a client sent with its run request, already reduced to text. */
export interface IncomingMessage {
  id: string;
  role: TranscriptMessage["role"];
  content: string;
  /** A tool message's call (how a browser tool's output arrives). */
  toolCallId?: string;
}

export interface StartRunRequest {
  agentId: string;
  threadId: string;
  /** The client's id for this transport run (AG-UI `runId`). */
  transportRunId: string;
  messages: readonly IncomingMessage[];
  state?: Record<string, unknown>;
  /** Answers to the thread's open interrupts (AG-UI `resume[]`): continues the waiting run. */
  resume?: readonly ResolutionInput[];
  /**
   * The request carried a transcript (any message, or non-empty state), as sent: a private form's
   * answer must travel without one. Defaults to what `messages` and `state` show.
   */
  carriesTranscript?: boolean;
  /** The request that started the run, so its log lines can be found together. */
  requestId?: string;
  /** The run that started this one (child runs). */
  parentRunId?: string;
  /** The new thread's title, when not the message's first line. */
  title?: string;
  /** What this message does while a run of the thread still executes (default: the agent's policy). */
  multitask?: MultitaskPolicy;
  /**
   * Set by the runtime when another tenant holds `threadId`'s client id: the id the client chose,
   * stored with the thread and shown wherever the tenant sees the thread (see threads.ts).
   */
  clientThreadId?: string;
}

export interface StartedRun {
  runId: string;
  threadId: string;
  /** The run's events from this exchange's start to its end (parked, completed or failed), in batches. */
  events: AsyncIterableIterator<LoggedEvent[]>;
}

/**
 * A request the interaction rules refused after identity and thread checks passed: the transport
 * reports it in-band (AG-UI `RUN_ERROR`). Nothing was written.
 */
export interface RefusedRun {
  refused: HarborError;
}

/**
 * A resume that abandoned interrupts nobody can answer any more (expired, or lost with their
 * process): they are closed, their run has ended, and the transport run finishes at once as
 * cancelled, so the client stops holding them and the thread moves on.
 */
export interface AbandonedRun {
  abandoned: { runId: string; threadId: string };
}

/** Tool message content is a string; a JSON string is decoded before it is checked. */
function decodeToolContent(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch (error) {
    if (error instanceof SyntaxError) return content;
    throw error;
  }
}

export function runService(deps: RunsDeps) {
  const { store } = deps;
  const driver = createDriver({
    ...deps,
    spawn: (parent, requests) => spawn(parent, requests),
    // A slot freed here: another instance's queued run may take it.
    onSlotFreed: () => lookAtQueueSoon(),
  });
  const { drive, fail, isExecuting, cancelWaiting, threadBusy, busyHere } = driver;
  const { steer, interruptThread } = steeringService({
    ...deps,
    isExecuting,
    cancelWaiting,
    cancelUnheld: async (runId, by) => driver.cancelUnheld(new RunJournal(runId, store, deps.bus, await lastSeq(deps.db, runId)), by),
    resolveInteractions: (...args) => resolveInteractions(...args),
  });

  /** Child runs: same agent and owner, each on a new thread with the request as its message. */
  async function spawn(parent: RunState, requests: readonly string[]): Promise<string[]> {
    const owner: Identity = { tenantId: parent.tenantId, userId: parent.ownerId, roles: ["member"] };
    const ids: string[] = [];
    for (const [index, text] of requests.entries()) {
      const child = await startHere(owner, {
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
  const active = new Set<Promise<void>>();
  /**
   * Requests that may start or continue a run here, while they get there (see `admit`); and whether
   * this instance still takes them (a stopping one, once it handed its work over, does not).
   */
  const entering = new Set<Promise<unknown>>();
  let closed = false;

  /**
   * Lets a request that may start or continue a run here in — refused with `INSTANCE_STOPPING`
   * (nothing done) once the instance is closed — and counts it until it is done, so that `idle`
   * also waits for a run it is about to drive.
   */
  async function admit<T>(work: () => Promise<T>): Promise<T> {
    if (closed) {
      throw new HarborError(
        "INSTANCE_STOPPING",
        "This Harbor instance is stopping and has handed its work to the others; nothing was done: send it again.",
      );
    }
    const entered = work();
    entering.add(entered);
    try {
      return await entered;
    } finally {
      entering.delete(entered);
    }
  }
  // Concurrent new runs share their first statement (see group-commit.ts); two on one thread never
  // share one, so each is admitted as if alone.
  const beginRun = batched((inputs: readonly BeginRunInput[]) => beginRuns(deps.db, inputs), {
    keys: (input) => [`thread:${input.thread.id}`],
  });

  function track(execution: Promise<void>) {
    // Drives end every run themselves; anything that still escapes is logged, never unhandled.
    const tracked = execution
      .catch((error: unknown) => deps.log.error({ err: error }, "a run's execution failed outside its own handling"))
      .finally(() => active.delete(tracked));
    active.add(tracked);
  }

  function logFor(runId: string, threadId: string, requestId?: string) {
    return childOnFirstLine(deps.log, { runId, threadId, requestId });
  }

  /**
   * `startRun` (a helper's run starts this way even as the instance stops: it goes to the cluster's
   * queue at once). `startOn` with the client's thread id, or — when another tenant holds that id — with the
   * tenant's own id for it (see threads.ts). Nothing is written before the id is found foreign, so
   * the second try starts clean; ids nobody else holds cost nothing more.
   */
  async function startHere(identity: Identity, request: StartRunRequest, attempt = 1): Promise<StartedRun | RefusedRun | AbandonedRun> {
    try {
      return await startOn(identity, request, attempt);
    } catch (error) {
      if (!(error instanceof ForeignThreadError)) throw error;
      const own = tenantThreadId(deps.serverSecret, identity.tenantId, request.threadId);
      if (own === request.threadId) throw error;
      return startOn(identity, { ...request, threadId: own, clientThreadId: request.threadId }, attempt);
    }
  }

  async function startOn(identity: Identity, request: StartRunRequest, attempt = 1): Promise<StartedRun | RefusedRun | AbandonedRun> {
    const agent = deps.agents.get(request.agentId);
    if (!agent) throw new NotFoundError(`Agent "${request.agentId}"`);
    // A conversation's state is stored with every snapshot that differs: bounded before anything is.
    if (request.state && Buffer.byteLength(JSON.stringify(request.state)) > deps.maxStateBytes) {
      throw new InvalidInputError("state", `larger than ${deps.maxStateBytes} bytes of JSON`);
    }
    // A remembered identity goes only where the first statement writes and checks it: beginRun,
    // or the claim of gates parked here (see resumeRun); a browser tool's result is read first.
    if (request.messages.some((m) => m.role === "tool")) verifiedOnly(identity);
    if (request.resume && request.resume.length > 0) return resumeRun(identity, request);
    const delivered = await browserResults(identity, request);
    if (delivered) return "refused" in delivered ? delivered : resumeRun(identity, { ...request, resume: delivered.resume });

    // Only user messages are taken from the client: the server's transcript is the record, and a
    // client cannot write assistant or tool turns into it.
    const userMessages = request.messages.filter((m) => m.role === "user").map(({ id, role, content }) => ({ id, role, content }));
    const runId = randomUUID();
    const journal = new RunJournal(runId, store, deps.bus);
    const started = journal.prepare([
      { type: "run.started", runId, threadId: request.clientThreadId ?? request.threadId, agentId: agent.id },
    ]);
    const multitask = request.multitask ?? agent.multitask ?? "enqueue";
    // A run that will wait for an earlier one — here, or on another instance (the statement looks) —
    // keeps its messages until its turn (see joinHeldInput).
    const mayHold = multitask !== "reject";
    // Taken before the statement: its snapshot of the owner's grants is no older than this.
    const begun = Date.now();
    const thread = await beginRun({
      thread: {
        id: request.threadId,
        clientId: request.clientThreadId,
        tenantId: identity.tenantId,
        ownerId: identity.userId,
        title: request.title ?? titleFrom(userMessages.at(-1)?.content),
        state: request.state && Object.keys(request.state).length > 0 ? request.state : undefined,
      },
      messages: userMessages,
      run: {
        id: runId,
        agentId: agent.id,
        transportRunId: request.transportRunId,
        parentRunId: request.parentRunId,
        instanceId: deps.instanceId,
      },
      events: toStoredRows(started),
      onlyIfIdle: multitask === "reject",
      maxMessages: deps.maxThreadMessages,
      ...(deps.maxTenantStorageBytes ? { maxStorageBytes: deps.maxTenantStorageBytes } : {}),
      holdMessages: mayHold && threadBusy(request.threadId),
      holdIfThreadBusy: mayHold && deps.route !== undefined,
      unverified: credentialToCheck(identity),
    });
    if (!thread) {
      // Nothing was written: whatever the reason, it is told to a looked-up identity only.
      const refusal = await refuse(verifiedOnly(identity), request.threadId, multitask, userMessages.length);
      // The interaction that stood in the way was answered meanwhile: try once more.
      if (!refusal && attempt === 1) return startOn(identity, request, 2);
      return refusal ?? pendingInteraction([]);
    }

    const base: RunState = {
      runId,
      threadId: thread.id,
      agentId: agent.id,
      tenantId: identity.tenantId,
      ownerId: identity.userId,
      step: 0,
      // A thread created just now holds exactly the messages of this request.
      transcript: thread.created ? userMessages : [],
      sharedState: thread.state,
    };
    const events = deps.bus.follow(runId);
    await journal.publish(started);
    // Double-texting: the runs still executing on the thread stop at their next safe point first.
    if (multitask === "interrupt" && !thread.created) await interruptThread(thread.id, runId, identity);
    track(
      drive(base, journal, logFor(runId, thread.id, request.requestId), {
        loadTranscript: !thread.created,
        heldInput: thread.held,
        ahead: thread.clear ? [] : undefined,
        grants: { tools: new Set(thread.grantTools), seenAt: begun },
      }),
    );
    return { runId, threadId: thread.id, events };
  }

  /**
   * Browser tools answer with a standard tool message: a request whose tool messages answer open
   * browser-tool requests of the thread is a resume with those outputs (JSON strings decoded), the
   * same as `resume[]` with the request ids. Redelivering an answered one is refused.
   */
  async function browserResults(
    identity: Identity,
    request: StartRunRequest,
  ): Promise<{ resume: ResolutionInput[] } | RefusedRun | undefined> {
    const replies = request.messages.filter((m) => m.role === "tool" && m.toolCallId);
    if (replies.length === 0) return undefined;
    const requests = await browserRequestsFor(
      deps.db,
      request.threadId,
      replies.map((m) => m.toolCallId!),
    );
    if (requests.length === 0) return undefined;
    const thread = await findThread(deps.db, request.threadId);
    if (thread) assertThreadAccess(thread, identity);
    const open = requests.filter((r) => r.status === "pending");
    if (open.length > 0) {
      return {
        resume: open.map((r) => ({
          interactionId: r.id,
          status: "resolved" as const,
          payload: decodeToolContent(replies.findLast((m) => m.toolCallId === r.toolCallId)!.content),
        })),
      };
    }
    // Only a request that ends with the answer is a delivery; history that merely repeats it is not.
    const last = request.messages.at(-1);
    const repeated = last?.role === "tool" ? requests.find((r) => r.toolCallId === last.toolCallId) : undefined;
    if (!repeated) return undefined;
    return {
      refused: new HarborError("ALREADY_RESOLVED", "This browser tool's result was already delivered; it is not taken twice.", {
        interactionId: repeated.id,
      }),
    };
  }

  /**
   * `beginRun` wrote nothing: the thread is someone else's (thrown), or waits on an interaction
   * (refused). Undefined when nothing stands in the way any more (it was answered meanwhile).
   */
  async function refuse(identity: Identity, threadId: string, multitask: MultitaskPolicy, adding: number): Promise<RefusedRun | undefined> {
    const existing = await findThread(deps.db, threadId);
    if (existing) assertThreadAccess(existing, identity);
    const open = await pendingOnThread(deps.db, threadId);
    if (open.length > 0) return pendingInteraction(open.map((r) => r.id));
    const stored = deps.maxTenantStorageBytes ? await storedBytesOf(deps.db, identity.tenantId) : 0;
    if (deps.maxTenantStorageBytes && stored > deps.maxTenantStorageBytes) {
      const mb = (bytes: number) => Math.ceil(bytes / 1_048_576);
      return {
        refused: new HarborError(
          "QUOTA_EXCEEDED",
          `Your workspace stores ${mb(stored)} MB, more than its quota of ${mb(deps.maxTenantStorageBytes)} MB: new conversations and messages wait until an admin frees space or raises the quota.`,
          { quota: "storage", limit: deps.maxTenantStorageBytes },
        ),
      };
    }
    if ((await countMessages(deps.db, threadId)) + adding > deps.maxThreadMessages) {
      return {
        refused: new HarborError(
          "THREAD_FULL",
          `This conversation has reached its length limit (${deps.maxThreadMessages} messages): start a new conversation to go on.`,
        ),
      };
    }
    const running = multitask === "reject" ? await activeRunsOnThread(deps.db, threadId) : [];
    if (running.length > 0) {
      return {
        refused: new HarborError("RUN_IN_PROGRESS", "This conversation's run is still going: wait for it to finish, or cancel it first.", {
          runIds: running,
        }),
      };
    }
    return undefined;
  }

  function pendingInteraction(interruptIds: string[]): RefusedRun {
    return {
      refused: new HarborError(
        "PENDING_INTERACTION",
        "This conversation is waiting for an answer to an open request; answer it before sending anything new.",
        { interruptIds },
      ),
    };
  }

  /**
   * Continues the thread's waiting run with the answers in `request.resume`. Messages and state in
   * the request are not taken: the server's transcript is the record (a tool message a client
   * appended for the gated call is therefore not counted twice).
   */
  async function resumeRun(identity: Identity, request: StartRunRequest): Promise<StartedRun | RefusedRun | AbandonedRun> {
    // Gates parked here on this thread say whose it is without a read (a thread with a paused run stays).
    const ids = (request.resume ?? []).map((r) => r.interactionId);
    const parkedHere = deps.coordinator.threadOfParkedGates(ids, request.threadId);
    if (!parkedHere || !ownsThread(parkedHere, identity)) verifiedOnly(identity);
    const thread = parkedHere ?? (await findThread(deps.db, request.threadId));
    if (!thread) throw new NotFoundError("Thread");
    assertThreadAccess(thread, identity);
    const options = {
      threadId: thread.id,
      via: "agui" as const,
      withTranscript: request.carriesTranscript ?? (request.messages.length > 0 || Object.keys(request.state ?? {}).length > 0),
    };
    const transport = { transportRunId: request.transportRunId, requestId: request.requestId, threadId: request.clientThreadId };
    const left = new Set<string>();
    for (;;) {
      try {
        const abandoned = await deps.coordinator.abandonUnanswerable(identity, request.resume ?? [], thread.id);
        if (abandoned) return { abandoned: { runId: abandoned.runId, threadId: thread.id } };
        const [next] = await resolveHere(identity, request.resume ?? [], options, left);
        // Completeness made every open interrupt of the thread part of this resume: one run, now ready.
        if (!next) throw new Error(`a complete resume of thread ${thread.id} left no run ready`);
        const events = deps.bus.follow(next.runId);
        track(continueRun(next, transport));
        return { runId: next.runId, threadId: thread.id, events };
      } catch (error) {
        // Told to the caller, who looks the identity up and tries again: not a refusal of the run.
        if (StaleCredentialError.is(error)) throw error;
        if (error instanceof HeldElsewhere) {
          // The owner continues the run; this instance streams it from the shared log, from where it parked.
          const events = deps.bus.follow(error.runId, await lastSeq(deps.db, error.runId));
          try {
            await forward(error, {
              type: "resolve",
              identity: routedIdentity(identity),
              entries: [...(request.resume ?? [])],
              ...options,
              transport,
            });
            return { runId: error.runId, threadId: thread.id, events };
          } catch (forwarded) {
            await events.return?.();
            // Its holder stopped without deciding it: decided here, as if it had never been forwarded.
            if (forwarded instanceof NotForwarded) {
              left.add(forwarded.target);
              continue;
            }
            if (HarborError.is(forwarded)) return { refused: forwarded };
            throw forwarded;
          }
        }
        if (HarborError.is(error)) return { refused: error };
        throw error;
      }
    }
  }

  /**
   * Resolves on this instance. A wait another instance holds throws `HeldElsewhere` while that
   * instance serves (the caller forwards). Once its holder stops, a wait made durable is taken over
   * here at once, and any other is still forwarded (its holder answers it until it exits). A gone
   * holder — or one in `left`: it gave a forwarded answer back — is reclaimed first, so its waits
   * made durable go on here and the others answer `INTERACTION_LOST`, as the rules say.
   */
  async function resolveHere(
    identity: Identity,
    entries: readonly ResolutionInput[],
    options: Parameters<Coordinator["resolve"]>[2],
    left: ReadonlySet<string> = new Set(),
  ) {
    const holders = new Map<string, InstanceState>();
    for (;;) {
      try {
        return await deps.coordinator.resolve(identity, entries, { ...options, takeOverFrom: new Set(holders.keys()) });
      } catch (error) {
        if (!(error instanceof HeldElsewhere)) throw error;
        const known = holders.get(error.instanceId);
        // Held there even so: a wait that lives in its holder's process only.
        if (known === "stopping") throw error;
        if (known === "gone") throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
        const gaveBack = left.has(error.instanceId);
        const holder = gaveBack || !deps.route ? "gone" : await deps.route.state(error.instanceId);
        if (holder === "serving") throw error;
        // One that gave an answer back is stopping, not dead: nothing to reclaim.
        if (holder === "gone" && !gaveBack) await deps.route?.reclaim();
        holders.set(error.instanceId, holder);
      }
    }
  }

  async function forward(held: HeldElsewhere, request: RoutedRequest): Promise<{ runIds: string[] }> {
    if (!deps.route) throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
    return deps.route.forward(held.instanceId, request);
  }

  /** Resolves interactions outside a transport run (tRPC, console); ready runs go on in the background. */
  function resolveInteractions(
    identity: Identity,
    entries: readonly ResolutionInput[],
    via: Exclude<ResolveVia, "agui">,
  ): Promise<{ continued: string[] }> {
    return admit(() => resolveAnywhere(identity, entries, via));
  }

  async function resolveAnywhere(
    identity: Identity,
    entries: readonly ResolutionInput[],
    via: Exclude<ResolveVia, "agui">,
  ): Promise<{ continued: string[] }> {
    const left = new Set<string>();
    for (;;) {
      try {
        const ready = await resolveHere(identity, entries, { via }, left);
        for (const next of ready) track(continueRun(next, {}));
        return { continued: ready.map((r) => r.runId) };
      } catch (error) {
        if (!(error instanceof HeldElsewhere)) throw error;
        try {
          const { runIds } = await forward(error, {
            type: "resolve",
            identity: routedIdentity(identity),
            entries: [...entries],
            via,
            transport: {},
          });
          return { continued: runIds };
        } catch (forwarded) {
          // Its holder stopped without deciding it: decided here, as if it had never been forwarded.
          if (!(forwarded instanceof NotForwarded)) throw forwarded;
          left.add(forwarded.target);
        }
      }
    }
  }

  let taking: Promise<void> | undefined;
  let again = false;
  /**
   * Whether the cluster's queue may hold a run for this instance: yes after a queued signal (or at
   * start), no once a look found none. A freed slot looks only then, or when the last empty look is
   * older than queueRecheckMs (a queued run can become takeable without a signal: its thread's
   * earlier run ended, its owner's other run ended), so a busy instance does not query the queue
   * after every run it parks or ends when nothing waits anywhere.
   */
  let queueSignalled = true;
  let lastEmptyLook = 0;
  const recheckMs = deps.queueRecheckMs ?? 1_000;
  let recheck: NodeJS.Timeout | undefined;
  /**
   * A freed slot: looks now when the queue may hold a run, else once the last empty look is old
   * enough. A stopping instance takes nothing, but a run that ended here may let one of its thread
   * (handed to the cluster's queue) go next: it tells the others to look.
   */
  function lookAtQueueSoon() {
    if (stopping) return void deps.signalQueued?.().catch((error: unknown) => deps.log.warn({ err: error }, "could not signal the queue"));
    const wait = queueSignalled ? 0 : lastEmptyLook + recheckMs - Date.now();
    if (wait <= 0) return void takeFromQueue();
    recheck ??= setTimeout(() => {
      recheck = undefined;
      void takeFromQueue();
    }, wait);
    recheck.unref();
  }
  /** A stopping instance takes no more work from the cluster's queue. */
  let stopping = false;
  /**
   * The cluster's queue: while this instance has room, it takes queued runs of other instances
   * (by priority, then age) and executes them here; their owners' streams follow the shared log.
   */
  function takeFromQueue(signalled = false): Promise<void> {
    if (signalled) queueSignalled = true;
    if (!deps.signalQueued || stopping) return Promise.resolve();
    // A call while a pass runs asks for one more pass (a notice must not be lost).
    if (taking) {
      again = true;
      return taking;
    }
    taking = (async () => {
      do {
        again = false;
        while (deps.scheduler.hasRoom() && !stopping) {
          // Never a run this instance already drives (or waits to), nor one of a thread busy here:
          // its lane would wait for a run that waits for it.
          queueSignalled = false;
          const next = await takeNextQueuedRun(deps.db, deps.instanceId, busyHere(), deps.scheduler.maxPerUser);
          if (!next) {
            lastEmptyLook = Date.now();
            break;
          }
          queueSignalled = true;
          const journal = new RunJournal(next.runId, store, deps.bus, await lastSeq(deps.db, next.runId));
          // Handed back by a stopping instance between two steps: it goes on from its checkpoint.
          if (next.handedOff) {
            track(continueRun({ runId: next.runId, parked: { journal, waitingOn: [], expiresAt: 0 } }, {}));
            continue;
          }
          const thread = await findThread(deps.db, next.threadId);
          const base: RunState = { ...next, step: 0, transcript: [], sharedState: thread?.state ?? {} };
          track(
            drive(base, journal, logFor(next.runId, next.threadId), {
              loadTranscript: true,
              heldInput: next.heldInput,
              priority: next.priority,
            }),
          );
        }
      } while (again && !stopping);
    })()
      .catch((error: unknown) => deps.log.error({ err: error }, "could not take a run from the cluster's queue"))
      .finally(() => (taking = undefined));
    return taking;
  }

  /** A request another instance forwarded here: decided as if it had arrived here. */
  function handleRouted(request: RoutedRequest): Promise<{ runIds: string[] }> {
    return admit(() => decideRouted(request));
  }

  async function decideRouted(request: RoutedRequest): Promise<{ runIds: string[] }> {
    if (request.type === "steer") {
      await steer(request.identity, request.runId, request.instruction, { routed: true });
      return { runIds: [] };
    }
    const { identity, entries, transport, ...options } = request;
    try {
      const ready = await deps.coordinator.resolve(identity, entries, options);
      for (const next of ready) track(continueRun(next, transport));
      return { runIds: ready.map((r) => r.runId) };
    } catch (error) {
      // Moved on meanwhile (taken over, or held by yet another instance): never forwarded twice.
      if (error instanceof HeldElsewhere) throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
      throw error;
    }
  }

  /** Drives a parked run on from its checkpoint, in the same invocation (same run id, same log). */
  /** `transport.threadId`: the thread's id as its client knows it, when not the stored one. */
  async function continueRun(
    ready: ReadyRun,
    transport: { transportRunId?: string; requestId?: string; threadId?: string },
  ): Promise<void> {
    const { runId, parked } = ready;
    const { journal } = parked;
    let loaded: Continuation | undefined;
    try {
      loaded = ready.continuation?.read() ?? (await loadContinuation(deps.db, runId));
      if (!loaded) throw new Error(`parked run ${runId} has no row`);
    } catch (error) {
      const log = childOnFirstLine(deps.log, { runId, requestId: transport.requestId });
      log.error({ err: error }, "could not continue the run");
      return fail(journal, asHarborError(error), log);
    }
    const log = logFor(runId, loaded.threadId, transport.requestId);
    const checkpoint = loaded.checkpoint ?? EMPTY_CHECKPOINT;
    journal.continueAfter(checkpoint.logSeq);
    const resolutions = parked.resolutions ?? new Map();
    // Instructions that reached the run while it was parked: applied at its first safe point.
    for (const stored of checkpoint.steering ?? []) deps.mailboxes.post(runId, stored, { force: true });
    // The owner cancelled a remote agent's question: its remote task is cancelled too.
    if ([...resolutions.values()].some((r) => r.kind === "a2a" && r.status !== "resolved")) {
      void cancelRemoteTasks(deps.agents.get(loaded.agentId), checkpoint.calls, log);
    }
    // The answers are stored with the continuation's first write (the claim already set it running).
    journal.defer([
      ...(transport.transportRunId
        ? [{ type: "run.started" as const, runId, threadId: transport.threadId ?? loaded.threadId, agentId: loaded.agentId, resumed: true }]
        : []),
      ...[...resolutions.values()]
        .filter((r) => r.kind !== "client_tool")
        .map((r): RunEvent => ({
          type: "pause.resumed",
          pauseId: r.interactionId,
          runId,
          decision:
            r.status !== "resolved"
              ? r.status
              : r.kind === "approval"
                ? r.payload?.approved === false
                  ? "rejected"
                  : "approved"
                : "resolved",
          actorId: r.actorId,
        })),
    ]);
    const state: RunState = {
      runId,
      threadId: loaded.threadId,
      agentId: loaded.agentId,
      tenantId: loaded.tenantId,
      ownerId: loaded.ownerId,
      step: checkpoint.step,
      transcript: toTranscript(loaded.messages),
      sharedState: loaded.threadState,
      answers: checkpoint.answers,
      outcome: checkpoint.outcome,
      goal: checkpoint.goal,
      context: checkpoint.context,
      children: checkpoint.children,
      usage: checkpoint.usage,
    };
    await drive(state, journal, log, {
      loadTranscript: false,
      priority: loaded.priority,
      resume: { calls: checkpoint.calls, resolutions, handles: parked.handles },
      ahead: loaded.ahead,
    });
  }

  /** A run whose background work finished here, its agent going on from the result: driven on from its checkpoint. */
  function continueAfterWork(runId: string): void {
    track(
      (async () => {
        const journal = new RunJournal(runId, store, deps.bus, await lastSeq(deps.db, runId));
        await continueRun({ runId, parked: { journal, waitingOn: [], expiresAt: 0 } }, {});
      })(),
    );
  }

  /**
   * Remote waits that closed unanswered (the run cancelled or expired): their remote tasks are
   * cancelled in the background, from the runs' checkpoints.
   */
  function remoteWaitsClosed(closed: readonly { runId: string; kind: string }[]): void {
    for (const runId of new Set(closed.filter((c) => c.kind === "a2a").map((c) => c.runId))) {
      const log = childOnFirstLine(deps.log, { runId });
      void findRun(deps.db, runId)
        .then((run) => run && cancelRemoteTasks(deps.agents.get(run.agentId), (run.readCheckpoint() ?? EMPTY_CHECKPOINT).calls, log))
        .catch((error: unknown) => log.warn({ err: error }, "the remote tasks of a closed run could not be looked up"));
    }
  }

  return {
    startRun: (identity: Identity, request: StartRunRequest) => admit(() => startHere(identity, request)),
    steer,
    resolveInteractions,
    handleRouted,
    takeFromQueue,
    stopTaking: () => {
      stopping = true;
      clearTimeout(recheck);
    },
    /** A graceful stop, first step: runs waiting for their turn here go to the cluster's queue (see drive.ts). */
    handOffWaiting: driver.handOffWaiting,
    /** A graceful stop, second step: runs executing here are handed back at their next step. */
    handBackExecuting: driver.handBackExecuting,
    remoteWaitsClosed,
    continueAfterWork,
    /**
     * A graceful stop, last step: nothing more starts or continues here (`INSTANCE_STOPPING`); what
     * already did is waited for by `idle`.
     */
    close: () => {
      closed = true;
    },
    /**
     * Resolves once every run executing in this process has finished, any look at the cluster's
     * queue, and any request on its way to start or continue one (tests, shutdown).
     */
    idle: async () => {
      while (active.size > 0 || taking || entering.size > 0) await Promise.allSettled([...active, taking, ...entering]);
    },
  };
}
