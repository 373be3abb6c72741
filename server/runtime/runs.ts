/**
 * Starting and executing runs. `startRun` does everything that can be refused with an HTTP
 * status (agent, thread ownership) before it returns; execution then happens in the background,
 * independent of the transport: a client that disconnects does not stop its run.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { appendRunEvents, beginRun, type RunEventsEntry } from "@/server/db/queries/run-writes";
import { findThread, listMessages } from "@/server/db/queries/threads";
import { asHarborError, NotFoundError, type HarborError } from "./errors";
import type { EventBus } from "./event-bus";
import type { LoggedEvent } from "./events";
import type { Identity } from "./identity";
import { RunJournal, toStoredRows, type EventStore } from "./journal";
import { groupCommit } from "./group-commit";
import type { AgentRegistry } from "./planner";
import { runLoop } from "./run-loop";
import type { RunState, TranscriptMessage } from "./state";
import { assertThreadAccess, titleFrom } from "./threads";

export interface RunsDeps {
  db: Database;
  agents: AgentRegistry;
  bus: EventBus;
  log: Logger;
  streamChunkMs: number;
  maxSteps: number;
}

/** A message a client sent with its run request, already reduced to text. */
export interface IncomingMessage {
  id: string;
  role: TranscriptMessage["role"];
  content: string;
}

export interface StartRunRequest {
  agentId: string;
  threadId: string;
  /** The client's id for this transport run (AG-UI `runId`). */
  transportRunId: string;
  messages: readonly IncomingMessage[];
  state?: Record<string, unknown>;
  /** The request that started the run, so its log lines can be found together. */
  requestId?: string;
}

export interface StartedRun {
  runId: string;
  threadId: string;
  /** The run's events from its start to its terminal event, in batches as they were appended. */
  events: AsyncIterableIterator<LoggedEvent[]>;
}

export function runService(deps: RunsDeps) {
  // Concurrent runs share their event writes (see group-commit.ts).
  const writeEvents = groupCommit((entries: readonly RunEventsEntry[]) => appendRunEvents(deps.db, entries));
  const store: EventStore = { insert: (runId, events, alongside) => writeEvents({ runId, events, alongside }) };
  const active = new Set<Promise<void>>();

  async function startRun(identity: Identity, request: StartRunRequest): Promise<StartedRun> {
    const agent = deps.agents.get(request.agentId);
    if (!agent) throw new NotFoundError(`Agent "${request.agentId}"`);

    // Only user messages are taken from the client: the server's transcript is the record, and a
    // client cannot write assistant or tool turns into it.
    const userMessages = request.messages
      .filter((m) => m.role === "user")
      .map(({ id, role, content }) => ({ id, role, content }));
    const runId = randomUUID();
    const journal = new RunJournal(runId, store, deps.bus);
    const started = journal.prepare([
      { type: "run.started", runId, threadId: request.threadId, agentId: agent.id },
    ]);
    const thread = await beginRun(deps.db, {
      thread: {
        id: request.threadId,
        tenantId: identity.tenantId,
        ownerId: identity.userId,
        title: titleFrom(userMessages.at(-1)?.content),
        state: request.state && Object.keys(request.state).length > 0 ? request.state : undefined,
      },
      messages: userMessages,
      run: { id: runId, agentId: agent.id, transportRunId: request.transportRunId },
      events: toStoredRows(started),
    });
    if (!thread) return refuse(identity, request.threadId);

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
    const log = deps.log.child({ runId, threadId: thread.id, requestId: request.requestId });
    const execution = execute(base, !thread.created, journal, log).finally(() => active.delete(execution));
    active.add(execution);
    return { runId, threadId: thread.id, events };
  }

  /** `beginRun` wrote nothing because the thread is someone else's: say whose (NOT_FOUND or FORBIDDEN). */
  async function refuse(identity: Identity, threadId: string): Promise<never> {
    const existing = await findThread(deps.db, threadId);
    if (existing) assertThreadAccess(existing, identity);
    throw new Error(`beginRun wrote nothing for thread ${threadId}, yet the caller may use it`);
  }

  /**
   * Runs to a terminal event. Whatever fails from here on — loading the transcript included —
   * ends the run with `run.failed`, so no stream hangs and no run stays `running`.
   */
  async function execute(base: RunState, loadTranscript: boolean, journal: RunJournal, log: Logger): Promise<void> {
    try {
      const initial = loadTranscript
        ? {
            ...base,
            transcript: (await listMessages(deps.db, base.threadId)).map(({ id, role, content }) => ({ id, role, content })),
          }
        : base;
      const agent = deps.agents.get(initial.agentId);
      if (!agent) throw new NotFoundError(`Agent "${initial.agentId}"`);
      const final = await runLoop(initial, agent.planner, {
        append: (events, options) =>
          journal.append(events, {
            paceMs: options?.paceMs,
            alongside: options?.message
              ? { messages: { threadId: initial.threadId, rows: [options.message] } }
              : undefined,
          }),
        newId: randomUUID,
        streamChunkMs: deps.streamChunkMs,
        maxSteps: deps.maxSteps,
      });
      await journal.append(
        [
          { type: "snapshot", state: final.sharedState, messages: final.transcript },
          { type: "run.completed" },
        ],
        { alongside: { run: { status: "completed", terminal: true, checkpoint: { step: final.step } } } },
      );
    } catch (thrown) {
      const error = asHarborError(thrown);
      log.error({ err: thrown, code: error.code }, "run failed");
      await fail(journal, error, log);
    }
  }

  async function fail(journal: RunJournal, error: HarborError, log: Logger) {
    const failed = { type: "run.failed" as const, code: error.code, message: error.message };
    try {
      await journal.append([failed], {
        alongside: { run: { status: "failed", terminal: true, error: { code: error.code, message: error.message } } },
      });
    } catch (writeError) {
      // The database is failing too: still end the live streams so no client hangs.
      log.error({ err: writeError }, "could not record the run's failure");
      await journal.publish(journal.prepare([failed]));
    }
  }

  return {
    startRun,
    /** Resolves once every run executing in this process has finished (tests, shutdown). */
    idle: async () => {
      while (active.size > 0) await Promise.allSettled([...active]);
    },
  };
}
