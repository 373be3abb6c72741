/**
 * The job runner: works on external tools' jobs in the background, durably. Each serving process
 * takes due jobs under a lease and renews it while working; a job whose process died is taken over
 * once its lease runs out, and runs again from the start (external tools' work must be safe to
 * repeat). Finishing is one compare-and-set statement that appends the result to the thread and
 * ends the run, so a result lands exactly once, whoever ran the job how often.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import { claimDueJobs, finishJob, findJob, renewLease, type ClaimedJob, type JobOutcome } from "@/server/db/queries/jobs";
import { asHarborError, HarborError, NotFoundError } from "../errors";
import type { EventBus } from "../log";
import type { RunEvent } from "../log";
import type { Identity } from "../access";
import type { AgentRegistry } from "../agent";
import { chunkText } from "../loop";
import { storedThreadIds } from "../access";
import type { ExternalToolDefinition, JobProgress } from "../agent";

/** A job that keeps killing its process is not taken again forever. */
const MAX_ATTEMPTS = 5;

export interface JobRunnerDeps {
  db: Database;
  agents: AgentRegistry;
  bus: EventBus;
  log: Logger;
  instanceId: string;
  /** How long a lease lasts without renewal: how soon a dead process's job is taken over. */
  leaseMs: number;
  /** How often due jobs are looked for (new jobs of this process are picked up at once). */
  pollMs: number;
  maxConcurrent: number;
  /** Drives a run on here whose background work finished (its agent's `afterWork` is `continue`). */
  goOn?(runId: string): void;
}

/** The runner's own state: the jobs this process works on, and its next look for due ones. */
interface JobRunner {
  deps: JobRunnerDeps;
  running: Map<string, Promise<void>>;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
  /** The look for due jobs under way, if one is. */
  ticking: Promise<void> | undefined;
}

export function createJobRunner(deps: JobRunnerDeps) {
  const runner: JobRunner = { deps, running: new Map(), timer: undefined, stopped: true, ticking: undefined };
  return {
    start() {
      runner.stopped = false;
      schedule(runner, 0);
    },
    /** New work of this process: look now rather than at the next poll. */
    kick() {
      schedule(runner, 0);
    },
    async stop() {
      runner.stopped = true;
      clearTimeout(runner.timer);
      await runner.ticking;
    },
    /** Resolves once the jobs this process is working on are done (tests, shutdown). */
    async idle() {
      while (runner.running.size > 0 || runner.ticking) await Promise.allSettled([...runner.running.values(), runner.ticking]);
    },
  };
}

function schedule(runner: JobRunner, ms: number): void {
  if (runner.stopped) return;
  clearTimeout(runner.timer);
  runner.timer = setTimeout(() => void tick(runner), ms);
  runner.timer.unref();
}

/** One look for due jobs at a time: a look asked for meanwhile is the one under way. */
function tick(runner: JobRunner): Promise<void> {
  runner.ticking ??= takeDueJobs(runner);
  return runner.ticking;
}

async function takeDueJobs(runner: JobRunner): Promise<void> {
  const { deps, running } = runner;
  // Past the first turn before anything else: a pass that ends at once (every slot busy) must
  // not clear `ticking` in its finally before `??=` stores it, or no pass would ever run again.
  await Promise.resolve();
  try {
    const free = deps.maxConcurrent - running.size;
    if (free <= 0) return;
    const due = await claimDueJobs(deps.db, deps.instanceId, deps.leaseMs, free, [...running.keys()]);
    for (const job of due) {
      const work = runJob(deps, job)
        .catch((error: unknown) =>
          deps.log.error({ err: error, jobId: job.id }, "job runner failed; the job waits for its lease to run out"),
        )
        .finally(() => running.delete(job.id));
      running.set(job.id, work);
    }
  } catch (error) {
    deps.log.error({ err: error }, "could not take due jobs");
  } finally {
    runner.ticking = undefined;
    schedule(runner, deps.pollMs);
  }
}

function toolOf(deps: JobRunnerDeps, job: ClaimedJob): ExternalToolDefinition {
  const tool = deps.agents.get(job.agentId)?.tools.get(job.toolName);
  if (!tool || tool.kind !== "external") throw new HarborError("TOOL_FAILED", `The tool ${job.toolName} is not available here.`);
  return tool;
}

/** The run goes on here from the result when its agent plans on from background work. */
function goesOnAt(deps: JobRunnerDeps, job: ClaimedJob): string | undefined {
  return deps.goOn && deps.agents.get(job.agentId)?.afterWork === "continue" ? deps.instanceId : undefined;
}

/** Works on a claimed job under its lease, kept alive meanwhile, then finishes it (once, whoever ran it how often). */
async function runJob(deps: JobRunnerDeps, job: ClaimedJob): Promise<void> {
  const log = deps.log.child({ jobId: job.id, runId: job.runId, tool: job.toolName, attempt: job.attempts });
  const lease = { id: job.id, owner: deps.instanceId, leaseMs: deps.leaseMs };
  let lost = false;
  const keepAlive = setInterval(
    () => {
      renewLease(deps.db, lease).then(
        (held) => (lost ||= !held),
        (error: unknown) => log.warn({ err: error }, "could not renew a job's lease"),
      );
    },
    Math.max(100, Math.floor(deps.leaseMs / 3)),
  );
  keepAlive.unref();
  const recordProgress = async (progress: JobProgress) => {
    // Progress is best effort: a failed write must not fail the work (the lease renews anyway).
    try {
      if (!(await renewLease(deps.db, lease, progress))) lost = true;
    } catch (error) {
      log.warn({ err: error }, "could not record a job's progress");
    }
  };
  let outcome: JobOutcome;
  try {
    outcome = await workOn(deps, job, log, recordProgress);
  } finally {
    clearInterval(keepAlive);
  }
  if (lost) log.warn("the job's lease was lost meanwhile; its result is left to whoever holds it now");
  const firstSeq = await finishJob(deps.db, lease, outcome);
  if (firstSeq === undefined) return;
  const at = Date.now();
  outcome.events.forEach((event, index) => deps.bus.publish({ runId: job.runId, seq: firstSeq + index, at, event: event.data }));
  if (outcome.goesOnAt) deps.goOn?.(job.runId);
}

/** Does the job's work: its outcome, completed with the tool's output or failed with what went wrong. */
async function workOn(
  deps: JobRunnerDeps,
  job: ClaimedJob,
  log: Logger,
  recordProgress: (progress: JobProgress) => Promise<void>,
): Promise<JobOutcome> {
  try {
    if (job.attempts > MAX_ATTEMPTS) {
      throw new HarborError("TOOL_FAILED", `The work was started ${MAX_ATTEMPTS} times without finishing; it was given up.`);
    }
    const tool = toolOf(deps, job);
    const args = tool.input.parse(job.readArgs());
    const produced = await tool.work(args, recordProgress);
    const output = tool.output.parse(produced);
    return finished(job, { status: "completed", output }, tool.report(output, args), goesOnAt(deps, job));
  } catch (thrown) {
    const error = asHarborError(thrown);
    if (!HarborError.is(thrown)) log.error({ err: thrown }, "job failed");
    const failure = { code: error.code === "INTERNAL" ? "TOOL_FAILED" : error.code, message: error.message };
    return finished(
      job,
      { status: "failed", error: failure },
      `The ${job.toolName.replaceAll("_", " ")} did not finish: ${failure.message}`,
      goesOnAt(deps, job),
    );
  }
}

/**
 * The thread's new messages and the run's events for a finished job: the tool's result, then —
 * unless the run goes on from it (`goesOnAt`) — the tool's report and the run's end.
 */
function finished(
  job: ClaimedJob,
  result: { status: "completed"; output: unknown } | { status: "failed"; error: { code: string; message: string } },
  report: string,
  goesOnAt?: string,
): JobOutcome {
  const toolMessage = {
    id: randomUUID(),
    role: "tool" as const,
    toolCallId: job.toolCallId,
    content: JSON.stringify(result.status === "completed" ? result.output : { error: result.error }),
  };
  const toolResult: RunEvent = { type: "tool.result", messageId: toolMessage.id, toolCallId: job.toolCallId, content: toolMessage.content };
  const outcome = { status: result.status, ...(result.status === "completed" ? { output: result.output } : { error: result.error }) };
  if (goesOnAt) return { ...outcome, messages: [toolMessage], events: [{ type: toolResult.type, data: toolResult }], goesOnAt };
  const reply = { id: randomUUID(), role: "assistant" as const, content: report };
  const events: RunEvent[] = [
    toolResult,
    { type: "text.started", messageId: reply.id },
    ...chunkText(report).map((delta): RunEvent => ({ type: "text.delta", messageId: reply.id, delta })),
    { type: "text.ended", messageId: reply.id },
    result.status === "completed" ? { type: "run.completed" } : { type: "run.failed", code: "TOOL_FAILED", message: result.error.message },
  ];
  return {
    ...outcome,
    messages: [toolMessage, reply],
    events: events.map((event) => ({ type: event.type, data: event })),
  };
}

/** Responses (jobs) as their owner polls them; anyone else gets not found. */
export function responseService(db: Database, serverSecret: string) {
  return {
    /** With `threadId` (the session the wait began in), a response of another thread is not found either. */
    async get(identity: Identity, responseId: string, threadId?: string) {
      const job = await findJob(db, responseId);
      const mine = job && job.tenantId === identity.tenantId && job.ownerId === identity.userId;
      const onThread = (thread: string) =>
        threadId === undefined || storedThreadIds(serverSecret, identity.tenantId, threadId).includes(thread);
      if (!job || !mine || !onThread(job.threadId)) throw new NotFoundError("Response");
      return {
        id: job.id,
        status: job.status,
        threadId: job.threadClientId ?? job.threadId,
        ...(job.progress ? { progress: job.progress } : {}),
        ...(job.status === "completed" ? { output: job.output } : {}),
        ...(job.error ? { error: job.error } : {}),
      };
    },
  };
}
