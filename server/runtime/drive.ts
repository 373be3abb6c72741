/**
 * Driving a run: runs the loop from a fresh start or from a checkpoint, and ends every exchange in
 * exactly one way — parked on the coordinator, completed, or failed. Whatever fails, the run ends
 * with `run.failed`, so no stream hangs and no run stays `running`.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { listMessages, type MessageRow } from "@/server/db/queries/threads";
import type { Coordinator } from "./coordinator";
import { asHarborError, NotFoundError, type HarborError } from "./errors";
import type { RunJournal } from "./journal";
import type { AgentRegistry } from "./planner";
import { runLoop, type ResumeInput } from "./run-loop";
import type { RunState, TranscriptMessage } from "./state";

export interface DriveDeps {
  db: Database;
  agents: AgentRegistry;
  coordinator: Coordinator;
  streamChunkMs: number;
  maxSteps: number;
}

export function toTranscript(rows: readonly Pick<MessageRow, "id" | "role" | "content" | "toolCalls" | "toolCallId">[]): TranscriptMessage[] {
  return rows.map(({ id, role, content, toolCalls, toolCallId }) => ({
    id,
    role,
    content,
    ...(toolCalls ? { toolCalls } : {}),
    ...(toolCallId ? { toolCallId } : {}),
  }));
}

export function createDriver(deps: DriveDeps) {
  /** Runs the loop; parks, completes or fails the run. Never throws. */
  async function drive(
    base: RunState,
    journal: RunJournal,
    log: Logger,
    options: { loadTranscript: boolean; resume?: ResumeInput },
  ): Promise<void> {
    try {
      const initial = options.loadTranscript
        ? { ...base, transcript: toTranscript(await listMessages(deps.db, base.threadId)) }
        : base;
      const agent = deps.agents.get(initial.agentId);
      if (!agent) throw new NotFoundError(`Agent "${initial.agentId}"`);
      const result = await runLoop(
        initial,
        agent,
        {
          append: async (events, append) => {
            const alongside = append?.message ? { messages: { threadId: initial.threadId, rows: [append.message] } } : undefined;
            if (append?.defer) journal.defer(events, alongside);
            else await journal.append(events, { paceMs: append?.paceMs, alongside });
          },
          newId: randomUUID,
          streamChunkMs: deps.streamChunkMs,
          maxSteps: deps.maxSteps,
        },
        options.resume,
      );
      const final = result.state;
      if (result.type === "paused") {
        await deps.coordinator.park(final, journal, result.parking, {
          step: final.step,
          calls: result.parking.calls,
          answers: final.answers,
          outcome: final.outcome,
        });
        return;
      }
      const status = final.outcome ?? "completed";
      await journal.append(
        [
          { type: "snapshot", state: final.sharedState, messages: final.transcript },
          final.outcome ? { type: "run.completed", status: final.outcome } : { type: "run.completed" },
        ],
        { alongside: { run: { status, terminal: true, checkpoint: { step: final.step } } } },
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
      // Deferred events (a resume's answers) are kept: the log says what was decided before it failed.
      await journal.append([failed], {
        alongside: { run: { status: "failed", terminal: true, error: { code: error.code, message: error.message } } },
      });
    } catch (writeError) {
      // The database is failing too: still end the live streams so no client hangs.
      log.error({ err: writeError }, "could not record the run's failure");
      journal.discardDeferred();
      await journal.publish(journal.prepare([failed]));
    }
  }

  return { drive, fail };
}
