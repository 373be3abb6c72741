/**
 * Parking a run: its interactions, checkpoint and `paused` status are stored with the events that
 * announce the pause (one statement), and the invocation is held until every interaction is answered.
 */
import { z } from "zod";
import type { InteractionInsert, JobInsert } from "@/server/db/queries/run-writes";
import { kindRules, type Checkpoint } from "@/server/domain";
import { HarborError } from "../errors";
import type { GateDeadline, InterruptView, RunEvent, RunJournal } from "../log";
import type { GateSpan, Parking, RunState } from "../agent";
import { APPROVAL_RESPONSE_SCHEMA } from "./answers";
import { notify, type CoordinatorContext } from "./context";
import { defaultTtlMs } from "./durability";
import { signResumeToken } from "./resume-token";

type ParkingRequest = Parking["requests"][number];

/** The answer's JSON Schema, computed once per schema object (forms are shared by every call). */
const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();
function responseSchemaOf(request: ParkingRequest): Record<string, unknown> | undefined {
  if (request.kind === "approval") return APPROVAL_RESPONSE_SCHEMA;
  if (request.responseSchema) return request.responseSchema;
  if (!request.answer) return undefined;
  let schema = schemaCache.get(request.answer);
  if (!schema) {
    schema = z.toJSONSchema(request.answer) as Record<string, unknown>;
    schemaCache.set(request.answer, schema);
  }
  return schema;
}

/**
 * A gate's deadline from its tool's declaration: a reminder and an escalation fall strictly between
 * the request and its expiry, or the declaration is wrong (said loudly, not ignored).
 */
function deadlineOf(request: ParkingRequest, now: number, expiresAt: Date): GateDeadline {
  const policy = request.deadline ?? {};
  const ttl = expiresAt.getTime() - now;
  const within = (span: GateSpan | undefined, what: string): number | undefined => {
    if (span === undefined) return undefined;
    const ms = typeof span === "number" ? span : Math.round((ttl * Number.parseFloat(span)) / 100);
    if (!Number.isFinite(ms) || ms <= 0 || ms >= ttl) {
      throw new HarborError(
        "TOOL_FAILED",
        `The tool ${request.tool?.name ?? ""} declares ${what} of ${span}: it must fall within its ${ttl} ms to decide.`,
      );
    }
    return ms;
  };
  const remindBefore = within(policy.remindBefore, "a reminder");
  const escalateAfter = within(policy.escalate?.after, "an escalation");
  return {
    ...(remindBefore ? { remindAt: expiresAt.getTime() - remindBefore } : {}),
    ...(policy.escalate && escalateAfter ? { escalateAt: now + escalateAfter, escalateTo: policy.escalate.to } : {}),
    onExpiry: policy.onExpiry ?? "reject",
  };
}

function deadlineColumns(deadline: GateDeadline | undefined) {
  if (!deadline) return {};
  return {
    remindAt: deadline.remindAt ? new Date(deadline.remindAt) : null,
    escalateAt: deadline.escalateAt ? new Date(deadline.escalateAt) : null,
    escalateTo: deadline.escalateTo ?? null,
    onExpiry: deadline.onExpiry,
  };
}

/** The event that tells the run's log of one request, as its kind is announced. */
function announcementOf(view: InterruptView): RunEvent {
  const announcedAs = kindRules(view.kind).announcedAs;
  switch (announcedAs) {
    case "client_tool.requested":
      return { type: "client_tool.requested", requestId: view.id, toolCallId: view.toolCallId ?? "", toolName: view.tool?.name ?? "" };
    case "external_wait.started":
      return { type: "external_wait.started", responseId: view.id, toolCallId: view.toolCallId ?? "" };
    case "pause.requested":
      return { type: "pause.requested", ...view };
  }
}

/** Whether the work asked for is held by its background job rather than by a process. */
const heldByJob = (kind: ParkingRequest["kind"]) => kindRules(kind).durability === "job";

/** What a park writes and announces, computed before anything is held or stored. */
interface ParkPlan {
  views: InterruptView[];
  written: InteractionInsert[];
  jobs: JobInsert[];
}

function planPark(ctx: CoordinatorContext, state: RunState, parking: Parking): ParkPlan {
  const { deps } = ctx;
  const now = Date.now();
  const expiryOf = (r: ParkingRequest) => new Date(now + (r.ttlMs ?? defaultTtlMs(deps, r.kind)));
  const deadlines = new Map(parking.requests.flatMap((r) => (r.deadline ? [[r.id, deadlineOf(r, now, expiryOf(r))] as const] : [])));
  const views: InterruptView[] = parking.requests.map((r) => ({
    id: r.id,
    runId: state.runId,
    kind: r.kind,
    reason: kindRules(r.kind).pauseReason,
    policy: r.policy,
    message: r.message,
    expiresAt: expiryOf(r).getTime(),
    responseSchema: responseSchemaOf(r),
    resumeToken: signResumeToken(deps.resumeTokenKey, {
      interactionId: r.id,
      tenantId: state.tenantId,
      userId: state.ownerId,
      threadId: state.threadId,
      expiresAt: expiryOf(r),
    }),
    ...(r.toolCallId ? { toolCallId: r.toolCallId } : {}),
    ...(r.tool ? { tool: r.tool } : {}),
    ...(r.detail ? { detail: r.detail } : {}),
    ...(r.quorum ? { quorum: r.quorum } : {}),
    ...(deadlines.has(r.id) ? { deadline: deadlines.get(r.id) } : {}),
  }));
  const written: InteractionInsert[] = parking.requests.map((r) => ({
    id: r.id,
    tenantId: state.tenantId,
    threadId: state.threadId,
    ownerId: state.ownerId,
    kind: r.kind,
    pauseReason: kindRules(r.kind).pauseReason,
    policy: r.policy,
    toolCallId: r.toolCallId,
    toolName: r.tool?.name,
    toolArgs: r.tool?.args,
    message: r.message,
    responseSchema: responseSchemaOf(r),
    detail: r.detail,
    quorum: r.quorum,
    instanceId: deps.instanceId,
    expiresAt: expiryOf(r),
    ...deadlineColumns(deadlines.get(r.id)),
  }));
  const jobs = parking.requests
    .filter((r) => heldByJob(r.kind))
    .map((r) => ({
      id: r.id,
      tenantId: state.tenantId,
      ownerId: state.ownerId,
      threadId: state.threadId,
      agentId: state.agentId,
      toolCallId: r.toolCallId ?? "",
      toolName: r.tool?.name ?? "",
      args: r.tool?.args ?? {},
    }));
  return { views, written, jobs };
}

/**
 * Parks a run: stores its interactions, checkpoint and `paused` status with the events that
 * announce the pause (one statement), and holds the invocation until every interaction is answered.
 */
export async function park(
  ctx: CoordinatorContext,
  state: RunState,
  journal: RunJournal,
  parking: Parking,
  checkpoint: Checkpoint,
): Promise<void> {
  const { parked, gates } = ctx;
  const { views, written, jobs } = planPark(ctx, state, parking);
  const events: RunEvent[] = [
    ...views.map(announcementOf),
    { type: "snapshot", state: state.sharedState, messages: state.transcript },
    { type: "run.paused", interrupts: views, ...(parking.usage ? { usage: parking.usage } : {}) },
  ];
  // External work is held by its job, durably, not by this process: nothing to keep in memory.
  const held = views.filter((v) => !heldByJob(v.kind));
  // Held before the write commits, so a resolution racing the commit finds the invocation.
  const answers = new Map(parking.requests.flatMap((r) => (r.answer ? [[r.id, r.answer] as const] : [])));
  if (held.length > 0)
    parked.set(state.runId, {
      journal,
      waitingOn: held.map((v) => v.id),
      expiresAt: Math.min(...views.map((v) => v.expiresAt)),
      handles: parking.handles.size > 0 ? parking.handles : undefined,
      answers: answers.size > 0 ? answers : undefined,
    });
  try {
    await journal.append(events, {
      alongside: {
        run: {
          status: "paused",
          pauseReason: parking.requests.map((r) => kindRules(r.kind).pauseReason).find((reason) => reason !== null) ?? null,
          checkpoint: { ...checkpoint },
          ...(checkpoint.usage ? { usage: checkpoint.usage } : {}),
        },
        interactions: written,
        jobs,
      },
    });
  } catch (error) {
    parked.delete(state.runId);
    throw error;
  }
  // Only once written: an answer checked against this copy must find the row it claims.
  if (parked.has(state.runId)) gates.remember(state.runId, written);
  notify(
    ctx,
    views.map((v) => ({
      tenantId: state.tenantId,
      interactionId: v.id,
      runId: state.runId,
      ownerId: state.ownerId,
      policy: v.policy,
      status: "pending",
    })),
  );
  if (jobs.length > 0) ctx.deps.onJobsStarted?.();
}
