/**
 * Starting and executing runs. `startRun` does everything that can be refused with an HTTP
 * status (agent, thread ownership) before it returns; execution then happens in the background,
 * independent of the transport: a client that disconnects does not stop its run.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { insertRun, insertRunEvents, updateRun } from "@/server/db/queries/runs";
import { appendMessages, listMessages, updateThread } from "@/server/db/queries/threads";
import { asHarborError, NotFoundError } from "./errors";
import type { EventBus } from "./event-bus";
import type { LoggedEvent } from "./events";
import type { Identity } from "./identity";
import { RunJournal, type EventStore } from "./journal";
import type { AgentRegistry } from "./planner";
import { runLoop } from "./run-loop";
import type { RunState, TranscriptMessage } from "./state";
import { openThread, titleFrom } from "./threads";

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
}

export interface StartedRun {
  runId: string;
  threadId: string;
  /** The run's events from its start to its terminal event. */
  events: AsyncIterableIterator<LoggedEvent>;
}

export function runService(deps: RunsDeps) {
  const store: EventStore = { insert: (runId, events) => insertRunEvents(deps.db, runId, events) };
  const active = new Set<Promise<void>>();

  async function startRun(identity: Identity, request: StartRunRequest): Promise<StartedRun> {
    const agent = deps.agents.get(request.agentId);
    if (!agent) throw new NotFoundError(`Agent "${request.agentId}"`);

    // Only user messages are taken from the client: the server's transcript is the record, and a
    // client cannot write assistant or tool turns into it.
    const userMessages = request.messages.filter((m) => m.role === "user");
    const runId = randomUUID();
    const thread = await deps.db.transaction(async (tx) => {
      const { thread } = await openThread(
        tx,
        identity,
        request.threadId,
        titleFrom(userMessages.at(-1)?.content),
      );
      await appendMessages(tx, thread.id, userMessages.map((m) => ({ ...m, runId })));
      await insertRun(tx, {
        id: runId,
        tenantId: identity.tenantId,
        threadId: thread.id,
        ownerId: identity.userId,
        agentId: agent.id,
        transportRunId: request.transportRunId,
        status: "running",
      });
      const sharedState = request.state && Object.keys(request.state).length > 0 ? request.state : thread.state;
      await updateThread(tx, thread.id, { state: sharedState });
      return { ...thread, state: sharedState };
    });

    const transcript = await listMessages(deps.db, thread.id);
    const state: RunState = {
      runId,
      threadId: thread.id,
      agentId: agent.id,
      tenantId: identity.tenantId,
      ownerId: identity.userId,
      step: 0,
      transcript: transcript.map(({ id, role, content }) => ({ id, role, content })),
      sharedState: thread.state,
    };

    const events = deps.bus.follow(runId);
    const execution = execute(state).finally(() => active.delete(execution));
    active.add(execution);
    return { runId, threadId: thread.id, events };
  }

  async function execute(initial: RunState): Promise<void> {
    const journal = new RunJournal(initial.runId, store, deps.bus);
    const log = deps.log.child({ runId: initial.runId, threadId: initial.threadId });
    try {
      await journal.append([
        { type: "run.started", runId: initial.runId, threadId: initial.threadId, agentId: initial.agentId },
      ]);
      const agent = deps.agents.get(initial.agentId);
      if (!agent) throw new NotFoundError(`Agent "${initial.agentId}"`);
      const final = await runLoop(initial, agent.planner, {
        append: (events, options) => journal.append(events, options),
        saveMessage: (m) => appendMessages(deps.db, initial.threadId, [{ ...m, runId: initial.runId }]),
        newId: randomUUID,
        streamChunkMs: deps.streamChunkMs,
        maxSteps: deps.maxSteps,
      });
      await updateRun(deps.db, initial.runId, {
        status: "completed",
        checkpoint: { step: final.step },
        finishedAt: new Date(),
      });
      await journal.append([
        { type: "snapshot", state: final.sharedState, messages: final.transcript },
        { type: "run.completed" },
      ]);
    } catch (thrown) {
      const error = asHarborError(thrown);
      log.error({ err: thrown, code: error.code }, "run failed");
      await fail(journal, initial.runId, error.code, error.message, log);
    }
  }

  async function fail(journal: RunJournal, runId: string, code: string, message: string, log: Logger) {
    try {
      await updateRun(deps.db, runId, { status: "failed", error: { code, message }, finishedAt: new Date() });
      await journal.append([{ type: "run.failed", code, message }]);
    } catch (error) {
      // The database is failing too: still end the live streams so no client hangs.
      log.error({ err: error }, "could not record the run's failure");
      deps.bus.publish({ runId, seq: Number.MAX_SAFE_INTEGER, at: Date.now(), event: { type: "run.failed", code, message } });
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
