/**
 * The coordinator: the ONE pause primitive. The run loop only says what it waits for; the
 * coordinator mints the interactions, checkpoints the run, emits `pause.requested`, ends the
 * transport run, holds the invocation, and — when a valid resolution lands — hands the run back
 * to be driven on. Every resolution, from AG-UI, tRPC or the console, goes through `resolve`, which
 * enforces the six rules (identity and policy, expiry, once, completeness, no edits, reject is
 * terminal) here and nowhere else.
 */
import type { Logger } from "pino";
import { z } from "zod";
import type { Database } from "@/server/db";
import {
  actOnDueDeadlines,
  castVote,
  claimForMany,
  type ClaimRequest,
  closeInteractions,
  findInteractions,
  holdConsent,
  releaseConsent,
  interactionsToResolve,
  pendingOfRun,
  type Claim,
  type CloseTarget,
  type InteractionRow,
  type RunEnding,
} from "@/server/db/queries/interactions";
import type { NewGrant } from "@/server/db/queries/grants";
import type { InteractionInsert } from "@/server/db/queries/run-writes";
import type { StoredContinuation } from "@/server/db/queries/runs";
import type { CancelledBy, Checkpoint, EscalationGroup, InteractionKind, InteractionStatus, ResolverPolicy, Vote } from "@/server/domain";

export type { Checkpoint } from "@/server/domain";
import { HarborError, ForbiddenError, InvalidInputError, NotFoundError, StaleCredentialError } from "../errors";
import type { GateDeadline, InterruptView, RunEvent } from "../log";
import { credentialToCheck, hasRole, isRemembered, verifiedOnly, type Identity } from "../access";
import type { EventBus } from "../log";
import type { RunJournal } from "../log";
import { batched } from "../log";
import { ParkedGates } from "./parked-gates";
import { RemoteAuthAnswer, RemoteInputAnswer, type Parking } from "../agent";
import { grantFor, GrantRequest } from "../policies";
import { signResumeToken, verifyResumeToken } from "./resume-token";
import type { RunState } from "../agent";
import type { GateSpan, HandleRegistry, Resolution } from "../agent";

/** A parked invocation, as the serving process holds it: small, because thousands may wait. */
export interface ParkedRun {
  journal: RunJournal;
  waitingOn: string[];
  expiresAt: number;
  resolutions?: Map<string, Resolution>;
  handles?: Map<string, HandleRegistry>;
  /** Schemas answers must match, by interaction (a browser tool's output). */
  answers?: Map<string, z.ZodType>;
}

/** A run whose every interaction is answered: to be driven on (its continuation came with the claim). */
export interface ReadyRun {
  runId: string;
  parked: ParkedRun;
  continuation?: StoredContinuation;
}

/** One answer to one interaction: a `resume[]` entry, or an approve/reject from tRPC or the console. */
export interface ResolutionInput {
  interactionId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
  /** Optional proof of the pause's scope, checked against the caller's identity. */
  resumeToken?: string;
}

/**
 * Where an answer came from: recorded in the audit log; an OAuth pause takes only its callback's.
 * `link`: an approver's signed decision link (`decision-links.ts`), decided under the same rules.
 */
export type ResolveVia = "agui" | "trpc" | "console" | "oauth_callback" | "link";

export interface InteractionChange {
  tenantId: string;
  interactionId: string;
  runId: string;
  ownerId: string;
  policy: ResolverPolicy;
  status: InteractionStatus;
  /** The group the gate was escalated to (it may decide it too). */
  escalatedTo?: EscalationGroup;
}

/** The requester cancelling their own open approval request: always theirs to take back. */
function isWithdrawal(row: Pick<InteractionRow, "kind" | "ownerId">, identity: Identity, status: ResolutionInput["status"]): boolean {
  return status === "cancelled" && row.kind === "approval" && row.ownerId === identity.userId;
}

/** Whether the gate was escalated to a group `identity` belongs to. */
function escalatedTo(row: Pick<InteractionRow, "kind" | "escalatedAt" | "escalateTo">, identity: Identity): boolean {
  if (row.kind !== "approval" || !row.escalatedAt || !row.escalateTo) return false;
  return hasRole(identity, row.escalateTo === "admins" ? "admin" : "approver");
}

/**
 * An approval is approve or reject, with an optional reason: nothing else, so arguments cannot be
 * edited. An approval may also take the gate's standing approval offer (`grant`, see grants.ts).
 */
export const ApprovalAnswer = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(500).optional(),
  grant: GrantRequest.optional(),
});

/** JSON Schema of `ApprovalAnswer`, sent as the interrupt's `responseSchema`. */
export const APPROVAL_RESPONSE_SCHEMA = z.toJSONSchema(ApprovalAnswer) as Record<string, unknown>;

/** The answer's JSON Schema, computed once per schema object (forms are shared by every call). */
const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();
function responseSchemaOf(request: Parking["requests"][number]): Record<string, unknown> | undefined {
  if (request.kind === "approval") return APPROVAL_RESPONSE_SCHEMA;
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
function deadlineOf(request: Parking["requests"][number], now: number, expiresAt: Date): GateDeadline {
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

/** External work ends by itself and an operator resumes when ready: a week bounds a forgotten one. */
const EXTERNAL_WAIT_TTL_MS = 7 * 24 * 3600_000;

/**
 * Waits whose run continues from its checkpoint alone — an operator's pause, an OAuth consent, a
 * remote agent's question (its task ids are plain JSON): whichever process receives the answer
 * takes the run over, also after a restart. Approvals and browser-tool waits join them when
 * configured (`HARBOR_DURABLE_WAITS`); a private form never does (its value is never replayed).
 */
const ALWAYS_DURABLE: readonly InteractionKind[] = ["operator", "oauth", "a2a"];
/** Waits that may be made durable; the rest of the process-held ones live and die with their process. */
export const OPTIONALLY_DURABLE = ["approval", "client_tool"] as const satisfies readonly InteractionKind[];
const PROCESS_HELD: readonly InteractionKind[] = [...OPTIONALLY_DURABLE, "private_input"];

/** Thrown by `resolve` when a live process-held wait belongs to another instance: the answer goes there. */
export class HeldElsewhere extends Error {
  constructor(
    readonly instanceId: string,
    readonly runId: string,
  ) {
    super(`held by instance ${instanceId}`);
  }
}
/** Durable waits are swept every this many sweeps (a minute at the default 5 s interval). */
const DURABLE_SWEEP_EVERY = 12;

const LOST_MESSAGE = "Harbor restarted while this was waiting, so it can no longer be answered. Please ask again.";

export interface CoordinatorDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  approvalTtlMs: number;
  /** How long an OAuth consent may take. */
  oauthTtlMs: number;
  /** How long a remote agent's question waits for its answer. */
  a2aTtlMs: number;
  resumeTokenKey: Uint8Array;
  bus: EventBus;
  /** A pause stored jobs (external work): the runner should look for them now. */
  onJobsStarted?: () => void;
  /** A journal continuing a run's log from its last stored event (taking over a durable pause). */
  journalFor(runId: string): Promise<RunJournal>;
  /** Waits closed unanswered (cancelled, expired, lost): their runs' remote work must stop too. */
  onWaitsClosed?(closed: readonly { runId: string; kind: InteractionKind }[]): void;
  /** Process-held waits made durable (`HARBOR_DURABLE_WAITS`). */
  durableWaits?: readonly (typeof OPTIONALLY_DURABLE)[number][];
  /** The output schema of a browser tool, to check an answer to a wait this process did not park. */
  clientToolOutput?(toolName: string): z.ZodType | undefined;
}

export function createCoordinator(deps: CoordinatorDeps) {
  const parked = new Map<string, ParkedRun>();
  const gates = new ParkedGates();
  /** What a run parked here still waits on (undefined when it is not parked here). */
  const openWaitsOf = (runId: string) => {
    const run = parked.get(runId);
    return run?.waitingOn.filter((id) => !run.resolutions?.has(id));
  };
  const DURABLE_KINDS: readonly InteractionKind[] = [...ALWAYS_DURABLE, ...(deps.durableWaits ?? [])];
  const LOST_WITH_PROCESS = PROCESS_HELD.filter((k) => !DURABLE_KINDS.includes(k));
  const listeners = new Set<(change: InteractionChange) => void>();
  // Concurrent answers share their claim's statement (see group-commit.ts); answers to one gate or
  // one run never share one, so each is decided as if alone.
  const claim = batched(
    (entries: readonly { request: ClaimRequest; keys: readonly string[] }[]) =>
      claimForMany(
        deps.db,
        entries.map((entry) => entry.request),
        deps.instanceId,
      ),
    { keys: (entry) => entry.keys },
  );

  function notify(changes: readonly InteractionChange[]) {
    for (const change of changes) for (const listener of listeners) listener(change);
  }

  /**
   * Parks a run: stores its interactions, checkpoint and `paused` status with the events that
   * announce the pause (one statement), and holds the invocation until every interaction is answered.
   */
  async function park(state: RunState, journal: RunJournal, parking: Parking, checkpoint: Checkpoint): Promise<void> {
    const now = Date.now();
    const defaultTtl = (kind: Parking["requests"][number]["kind"]) =>
      kind === "external_wait" || kind === "operator"
        ? EXTERNAL_WAIT_TTL_MS
        : kind === "oauth"
          ? deps.oauthTtlMs
          : kind === "a2a"
            ? deps.a2aTtlMs
            : deps.approvalTtlMs;
    const expiryOf = (r: Parking["requests"][number]) => new Date(now + (r.ttlMs ?? defaultTtl(r.kind)));
    const deadlines = new Map(parking.requests.flatMap((r) => (r.deadline ? [[r.id, deadlineOf(r, now, expiryOf(r))] as const] : [])));
    const views: InterruptView[] = parking.requests.map((r) => ({
      id: r.id,
      runId: state.runId,
      kind: r.kind,
      reason: r.reason,
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
    const events: RunEvent[] = [
      ...views.map((v): RunEvent =>
        v.kind === "client_tool"
          ? { type: "client_tool.requested", requestId: v.id, toolCallId: v.toolCallId ?? "", toolName: v.tool?.name ?? "" }
          : v.kind === "external_wait"
            ? { type: "external_wait.started", responseId: v.id, toolCallId: v.toolCallId ?? "" }
            : { type: "pause.requested", ...v },
      ),
      { type: "snapshot", state: state.sharedState, messages: state.transcript },
      { type: "run.paused", interrupts: views, ...(parking.usage ? { usage: parking.usage } : {}) },
    ];
    // External work is held by its job, durably, not by this process: nothing to keep in memory.
    const held = views.filter((v) => v.kind !== "external_wait");
    const written: InteractionInsert[] = parking.requests.map((r) => ({
      id: r.id,
      tenantId: state.tenantId,
      threadId: state.threadId,
      ownerId: state.ownerId,
      kind: r.kind,
      pauseReason: r.reason,
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
            pauseReason: parking.requests.find((r) => r.reason)?.reason ?? null,
            checkpoint: { ...checkpoint },
            ...(checkpoint.usage ? { usage: checkpoint.usage } : {}),
          },
          interactions: written,
          jobs: parking.requests
            .filter((r) => r.kind === "external_wait")
            .map((r) => ({
              id: r.id,
              tenantId: state.tenantId,
              ownerId: state.ownerId,
              threadId: state.threadId,
              agentId: state.agentId,
              toolCallId: r.toolCallId ?? "",
              toolName: r.tool?.name ?? "",
              args: r.tool?.args ?? {},
            })),
        },
      });
    } catch (error) {
      parked.delete(state.runId);
      throw error;
    }
    // Only once written: an answer checked against this copy must find the row it claims.
    if (parked.has(state.runId)) gates.remember(state.runId, written);
    notify(
      views.map((v) => ({
        tenantId: state.tenantId,
        interactionId: v.id,
        runId: state.runId,
        ownerId: state.ownerId,
        policy: v.policy,
        status: "pending",
      })),
    );
    if (parking.requests.some((r) => r.kind === "external_wait")) deps.onJobsStarted?.();
  }

  /**
   * Rule 1, identity and policy: other tenants see nothing; within the tenant, the policy decides.
   * A tenant's admin steering from the console may also decide approval gates (nobody decides their
   * own `approvers` gate: four-eyes holds for admins too). The requester may withdraw (cancel) their
   * own approval request, whoever decides it: nothing gated runs, so the four-eyes rule is kept.
   */
  function authorize(row: InteractionRow, identity: Identity, via: ResolveVia, status: ResolutionInput["status"]): void {
    if (isWithdrawal(row, identity, status)) return;
    const operator = via === "console" && hasRole(identity, "admin") && row.kind === "approval";
    if (operator && row.ownerId !== identity.userId) return;
    // Escalated: the group it went to may decide it too (never its requester).
    if (escalatedTo(row, identity) && row.ownerId !== identity.userId) return;
    if (row.policy === "owner" && row.ownerId !== identity.userId) {
      throw new ForbiddenError("Only the person who started this run can answer it.");
    }
    if (row.policy === "admins" && !hasRole(identity, "admin")) {
      throw new ForbiddenError("An operator paused this run: only an admin of the tenant can resume it.");
    }
    if (row.policy === "approvers") {
      if (row.ownerId === identity.userId) throw new ForbiddenError("You cannot approve your own request: another approver must decide.");
      if (!hasRole(identity, "approver")) throw new ForbiddenError("Only the tenant's approvers can decide this request.");
    }
  }

  function assertOpen(row: InteractionRow): void {
    if (row.status === "pending") return;
    if (row.status === "lost") throw new HarborError("INTERACTION_LOST", LOST_MESSAGE, { interactionId: row.id });
    if (row.status === "expired")
      throw new HarborError("EXPIRED", "This request expired before it was answered.", { interactionId: row.id });
    throw alreadyResolved(row.id, row.status);
  }

  function alreadyResolved(id: string, status = "answered"): HarborError {
    return new HarborError("ALREADY_RESOLVED", `This request was already ${status}; the action is not repeated.`, { interactionId: id });
  }

  /**
   * Rule 5: strict answers only, by the interaction's own schema. A cancelled entry carries no
   * payload. `payload` is what the run receives; the claim's `decision` is what is stored — for a
   * private form, only that a value was submitted.
   */
  function toClaim(
    row: InteractionRow,
    entry: ResolutionInput,
    index: number,
    via: ResolveVia,
    actorId: string,
  ): Claim & { payload: Record<string, unknown>; grant?: NewGrant } {
    if (entry.status === "cancelled") {
      if (entry.payload !== undefined) throw new InvalidInputError(`resume[${index}].payload`, "a cancelled entry carries no payload");
      const decision = { approved: false, reason: "cancelled" };
      return { id: row.id, status: "cancelled", decision, payload: decision };
    }
    const invalid = (error: z.ZodError, expected: string) => {
      const issue = error.issues[0];
      const field = ["resume", index, "payload", ...(issue?.path ?? [])].join(".").replace(/\.(\d+)\./, "[$1].");
      return new InvalidInputError(field, `${issue?.message ?? "invalid"} (${expected})`);
    };
    if (row.kind === "operator") {
      if (entry.payload !== undefined)
        throw new InvalidInputError(`resume[${index}].payload`, "an operator's pause is resumed without a payload");
      return { id: row.id, status: "resolved", decision: { resumed: true }, payload: {} };
    }
    if (row.kind === "oauth") {
      // Only the provider's callback proves consent; the owner may only give up (cancel).
      if (via !== "oauth_callback") {
        throw new ForbiddenError("This pause ends when you connect at the provider: open its authorization URL (or cancel it).");
      }
      return { id: row.id, status: "resolved", decision: { connected: true }, payload: { connected: true } };
    }
    if (row.kind === "a2a") {
      const credential = row.detail?.prompt === "auth_required";
      const answer = (credential ? RemoteAuthAnswer : RemoteInputAnswer).safeParse(entry.payload);
      if (!answer.success)
        throw invalid(answer.error, credential ? "the remote agent asks for { credential }" : "the remote agent asks for { text }");
      // A credential goes once to the remote agent and is kept nowhere; a text answer is part of the record.
      return { id: row.id, status: "resolved", decision: credential ? { submitted: true } : answer.data, payload: answer.data };
    }
    if (row.kind === "client_tool" || row.kind === "private_input") {
      const schema =
        parked.get(row.runId)?.answers?.get(row.id) ??
        (row.kind === "client_tool" && DURABLE_KINDS.includes("client_tool") && row.toolName
          ? deps.clientToolOutput?.(row.toolName)
          : undefined);
      if (!schema) throw new HarborError("INTERACTION_LOST", LOST_MESSAGE, { interactionId: row.id });
      const answer = schema.safeParse(entry.payload);
      if (row.kind === "private_input") {
        // Zod's issue messages name what was expected, never the value received.
        if (!answer.success) throw invalid(answer.error, "the form's fields do not match its schema");
        return { id: row.id, status: "resolved", decision: { submitted: true }, payload: { value: answer.data } };
      }
      if (!answer.success) throw invalid(answer.error, `the output of ${row.toolName ?? "the tool"} does not match its schema`);
      return { id: row.id, status: "resolved", decision: { output: answer.data }, payload: { output: answer.data } };
    }
    const parsed = ApprovalAnswer.safeParse(entry.payload);
    if (!parsed.success) throw invalid(parsed.error, "an approval answers { approved, reason?, grant? } only");
    const { grant: asked, ...answer } = parsed.data;
    if (!asked || !answer.approved) {
      if (asked) throw new InvalidInputError(`resume[${index}].payload.grant`, "only an approval gives a standing approval");
      return { id: row.id, status: answer.approved ? "resolved" : "rejected", decision: answer, payload: answer };
    }
    const grant = grantFor(row, asked, actorId, `resume[${index}].payload.grant`);
    const decision = { ...answer, grantId: grant.id };
    return { id: row.id, status: "resolved", decision, payload: decision, grant };
  }

  /**
   * One approver's vote on a quorum gate. An approval that leaves the quorum short is recorded and
   * the gate stays open (undefined); otherwise the votes the decision keeps (a rejection's with it).
   */
  async function vote(identity: Identity, row: InteractionRow, claim: Claim): Promise<Vote[] | undefined> {
    const reason = typeof claim.decision.reason === "string" ? claim.decision.reason : undefined;
    const cast: Vote = {
      by: identity.userId,
      approved: claim.status === "resolved",
      ...(reason && claim.status !== "cancelled" ? { reason } : {}),
      at: new Date().toISOString(),
    };
    if (claim.status !== "resolved") return [...row.votes, cast];
    const tally = await castVote(deps.db, { id: row.id, tenantId: identity.tenantId }, cast);
    if (!tally) {
      const [now] = await findInteractions(deps.db, [row.id]);
      if (now) assertOpen(now);
      throw new HarborError("ALREADY_VOTED", "You already approved this request; it waits for the other approvers.", {
        interactionId: row.id,
      });
    }
    if (tally.approvals >= tally.quorum) return tally.votes;
    notify([
      { tenantId: row.tenantId, interactionId: row.id, runId: row.runId, ownerId: row.ownerId, policy: row.policy, status: "pending" },
    ]);
    return undefined;
  }

  /**
   * Ends pending interactions that can no longer be answered, with their runs; tells live readers
   * (the run's final event) and inboxes.
   */
  async function closeWhere(to: "expired" | "lost" | "cancelled", target: CloseTarget, ending: RunEnding) {
    const closed = await closeInteractions(deps.db, to, target, ending);
    const at = Date.now();
    for (const c of closed) {
      gates.forget(parked.get(c.runId)?.waitingOn ?? [c.id]);
      parked.delete(c.runId);
      for (const { seq, event } of c.finalEvents) deps.bus.publish({ runId: c.runId, seq, at, event });
    }
    notify(closed.map((c) => ({ ...c, interactionId: c.id, status: to })));
    if (closed.length > 0) deps.onWaitsClosed?.(closed);
    return closed;
  }

  /** Closes what is still pending among `rows`, as `to`; returns the ids it closed. */
  async function closeUnanswerable(to: "expired" | "lost", rows: readonly InteractionRow[]): Promise<Set<string>> {
    const failure = failureOf(to);
    // An expired gate's safe default decides how its run ends: failed `expired`, or cancelled.
    const cancelling = to === "expired" ? rows.filter((r) => r.onExpiry === "cancel") : [];
    const failing = rows.filter((r) => !cancelling.includes(r));
    const closed = [
      ...(failing.length > 0 ? await closeWhere(to, { ids: failing.map((r) => r.id) }, { failure }) : []),
      ...(cancelling.length > 0 ? await closeWhere(to, { ids: cancelling.map((r) => r.id) }, { cancelledBy: "system" }) : []),
    ];
    return new Set(closed.map((c) => c.id));
  }

  function failureOf(to: "expired" | "lost") {
    return to === "expired"
      ? { code: "EXPIRED" as const, message: "The request expired before it was answered; its run ended." }
      : { code: "INTERACTION_LOST" as const, message: LOST_MESSAGE };
  }

  /** Closes what is still pending among `rows`; throws why it cannot be answered. */
  async function closeAndRefuse(to: "expired" | "lost", rows: readonly InteractionRow[]): Promise<never> {
    const closed = await closeUnanswerable(to, rows);
    // Closing changes only pending rows: one that was not closed was answered by someone else meanwhile.
    const answered = rows.find((r) => !closed.has(r.id));
    if (answered) throw alreadyResolved(answered.id);
    const failure = failureOf(to);
    throw new HarborError(failure.code, failure.message, { interactionId: rows[0]!.id });
  }

  /**
   * An AG-UI resume that only abandons (`cancelled`) interrupts nobody can answer any more: expired,
   * or lost with their process. A 1.x client holds an interrupt pending until a `RUN_FINISHED`
   * closes it, so refusing with EXPIRED would lock the thread for it: instead what is still open
   * (an overdue gate the sweep has not reached) closes as expiring does, its run ending by the
   * gate's safe default, and the caller finishes the transport run. Undefined for any other resume
   * (answers, live interrupts, another thread's or tenant's ids, or some missing): `resolve` rules.
   */
  async function abandonUnanswerable(
    identity: Identity,
    entries: readonly ResolutionInput[],
    threadId: string,
  ): Promise<{ runId: string } | undefined> {
    // Only bare cancellations, each interrupt once; anything else is `resolve`'s to judge (and refuse).
    const bare = (e: ResolutionInput) => e.status === "cancelled" && e.payload === undefined && e.resumeToken === undefined;
    const ids = entries.map((e) => e.interactionId);
    if (entries.length === 0 || !entries.every(bare) || new Set(ids).size !== ids.length) return undefined;
    // Gates this process parked and that are still live are answerable: nothing to read.
    if (gates.vouchFor(ids)) return undefined;
    // Nothing is read for a remembered identity before its credential is checked (Identity.unverified).
    verifiedOnly(identity);
    const loaded = await interactionsToResolve(deps.db, ids, threadId);
    const rows = ids.map((id) => loaded.find((r) => r.id === id));
    const now = Date.now();
    const overdue = (r: InteractionRow) => r.status === "pending" && r.expiresAt.getTime() <= now;
    const unanswerable = (r: InteractionRow | undefined): r is InteractionRow =>
      r !== undefined &&
      r.tenantId === identity.tenantId &&
      r.threadId === threadId &&
      // Background work is nobody's to answer, abandoned or not: `resolve` says so.
      r.kind !== "external_wait" &&
      (r.status === "expired" || r.status === "lost" || overdue(r));
    if (!rows.every(unanswerable)) return undefined;
    // Every open interrupt of the thread must be part of it, as for any resume.
    if (loaded.some((r) => r.status === "pending" && r.kind !== "external_wait" && !ids.includes(r.id))) return undefined;
    for (const row of rows) authorize(row, identity, "agui", "cancelled");
    const open = rows.filter(overdue);
    const closed = open.length > 0 ? await closeUnanswerable("expired", open) : new Set<string>();
    // Not closed here: the sweep (or another abandonment) closed it meanwhile, or someone answered it.
    const raced = open.filter((r) => !closed.has(r.id)).map((r) => r.id);
    if (raced.length > 0) {
      const answered = (await findInteractions(deps.db, raced)).find((r) => r.status !== "expired" && r.status !== "lost");
      if (answered) throw alreadyResolved(answered.id, answered.status);
    }
    return { runId: rows[0]!.runId };
  }

  /**
   * Resolves interactions for `identity`, all or none. With `threadId` (an AG-UI resume) the entries
   * must answer every open interaction of that thread. Returns the runs whose every interaction is
   * now answered, ready to be driven on; the caller drives them.
   */
  async function resolve(
    identity: Identity,
    entries: readonly ResolutionInput[],
    options: {
      threadId?: string;
      via: ResolveVia;
      withTranscript?: boolean;
      /**
       * Instances whose waits made durable are taken over here — they stopped or are gone — rather
       * than answered by their holder.
       */
      takeOverFrom?: ReadonlySet<string>;
    },
  ): Promise<ReadyRun[]> {
    const unknown = (id: string) =>
      options.threadId
        ? new HarborError("UNKNOWN_INTERRUPT", `This thread has no interrupt "${id}".`, { interruptId: id })
        : new NotFoundError("Interaction");
    const ids = entries.map((e) => e.interactionId);
    if (new Set(ids).size !== ids.length) throw new InvalidInputError("resume", "each interrupt may be answered once per request");
    // A remembered identity (see Identity.unverified) answers only gates parked here, with nothing
    // read or written before the claim that checks its credential: anything else, or any refusal,
    // is told to it looked up (StaleCredentialError).
    const remembered = isRemembered(identity);
    const lookUpFirst = (): never => {
      throw new StaleCredentialError();
    };
    /** `check`, whose refusals a remembered identity is told only once looked up. */
    const checked = <T>(check: () => T): T => {
      try {
        return check();
      } catch (error) {
        if (remembered && HarborError.is(error)) lookUpFirst();
        throw error;
      }
    };
    const loaded =
      gates.vouchFor(ids, options.threadId ? openWaitsOf : undefined) ??
      (remembered ? lookUpFirst() : await interactionsToResolve(deps.db, ids, options.threadId));
    const rows = new Map(loaded.filter((r) => ids.includes(r.id)).map((r) => [r.id, r]));
    const ordered = checked(() => {
      const found = entries.map((entry) => {
        const row = rows.get(entry.interactionId);
        if (!row || row.tenantId !== identity.tenantId) throw unknown(entry.interactionId);
        if (options.threadId && row.threadId !== options.threadId) throw unknown(entry.interactionId);
        return row;
      });
      for (const [index, row] of found.entries()) authorize(row, identity, options.via, entries[index]!.status);
      const background = found.find((r) => r.kind === "external_wait");
      if (background) {
        throw new ForbiddenError("This work completes by itself: poll its response instead of answering it.");
      }
      const privateForm = found.find((r) => r.kind === "private_input" || (r.kind === "a2a" && r.detail?.prompt === "auth_required"));
      if (privateForm && options.withTranscript) {
        throw new HarborError(
          "PRIVATE_RESUME_HAS_TRANSCRIPT",
          "Answer a private form with resume[] alone: messages and state would be echoed in snapshots.",
          { interactionId: privateForm.id },
        );
      }
      for (const row of found) assertOpen(row);
      return found;
    });

    const overdue = ordered.filter((r) => r.expiresAt.getTime() <= Date.now());
    if (overdue.length > 0) {
      if (remembered) lookUpFirst();
      await closeAndRefuse("expired", overdue);
    }
    // A process-held wait of another instance is answered there, where its live state is (the caller
    // forwards it); one made durable is taken over here only once its holder stops or is gone.
    const heldThere = (r: InteractionRow) =>
      !DURABLE_KINDS.includes(r.kind) ||
      ((OPTIONALLY_DURABLE as readonly InteractionKind[]).includes(r.kind) && !options.takeOverFrom?.has(r.instanceId));
    const elsewhere = ordered.find((r) => r.instanceId !== deps.instanceId && heldThere(r));
    if (elsewhere) throw new HeldElsewhere(elsewhere.instanceId, elsewhere.runId);
    // A durable wait: whichever process answers it takes the run over from its checkpoint — held
    // aside until the claim is won, so a refused answer leaves nothing behind.
    const takeovers = new Map<string, ParkedRun>();
    for (const row of ordered) {
      if (!DURABLE_KINDS.includes(row.kind) || parked.get(row.runId)?.waitingOn.includes(row.id)) continue;
      if (takeovers.has(row.runId)) continue;
      if (remembered) lookUpFirst();
      // It goes on once every open wait of the run is answered, not only this one.
      const open = await pendingOfRun(deps.db, row.runId);
      takeovers.set(row.runId, {
        journal: await deps.journalFor(row.runId),
        waitingOn: open.some((o) => o.id === row.id) ? open.map((o) => o.id) : [row.id],
        expiresAt: row.expiresAt.getTime(),
      });
    }
    const holding = (runId: string) => parked.get(runId) ?? takeovers.get(runId);
    const orphaned = ordered.filter((r) => !holding(r.runId));
    if (orphaned.length > 0) {
      if (remembered) lookUpFirst();
      await closeAndRefuse("lost", orphaned);
    }
    const claims = checked(() => {
      if (options.threadId) {
        const missing = loaded.filter(
          (r) => r.status === "pending" && r.kind !== "external_wait" && r.threadId === options.threadId && !rows.has(r.id),
        );
        if (missing.length > 0) {
          throw new HarborError(
            "INCOMPLETE_RESUME",
            `Answer every open interrupt of the thread in one resume; missing: ${missing.map((r) => r.id).join(", ")}.`,
            { missing: missing.map((r) => r.id) },
          );
        }
      }
      return ordered.map((row, index) => toClaim(row, entries[index]!, index, options.via, identity.userId));
    });
    if (remembered && entries.some((e) => e.resumeToken)) lookUpFirst();
    for (const [index, entry] of entries.entries()) {
      const row = ordered[index]!;
      if (entry.resumeToken) {
        await verifyResumeToken(deps.resumeTokenKey, entry.resumeToken, {
          interactionId: row.id,
          tenantId: identity.tenantId,
          threadId: row.threadId,
          userId: row.policy === "owner" ? identity.userId : undefined,
        });
      }
    }

    // A quorum: an approval is a vote until enough approvers agree; the vote that completes it
    // claims the gate like any answer, and one rejection decides at once.
    // A requester's withdrawal is no vote: it closes the gate at once.
    const ballot = ordered.findIndex((row, index) => row.quorum > 1 && !isWithdrawal(row, identity, entries[index]!.status));
    if (ballot !== -1) {
      if (remembered) lookUpFirst();
      if (claims.length > 1) throw new InvalidInputError("resume", "a gate that needs several approvers is answered on its own");
      const tally = await vote(identity, ordered[0]!, claims[0]!);
      if (!tally) return [];
      claims[0]!.decision = { ...claims[0]!.decision, votes: tally };
    }

    // Rule 3, once: the compare-and-set decides; whoever loses the race changes nothing.
    const won = await claim({
      request: {
        claims: claims.map(({ id, status, decision }) => ({ id, status, decision })),
        actor: { tenantId: identity.tenantId, userId: identity.userId, via: options.via },
        grants: claims.flatMap((c) => (c.grant ? [c.grant] : [])),
        unverified: credentialToCheck(identity),
      },
      keys: [...ids.map((id) => `gate:${id}`), ...ordered.map((row) => `run:${row.runId}`)],
    });
    if (won.ids.length !== claims.length) {
      gates.forget(ids);
      // Lost the race, or the credential failed the claim's check: either way, looked up first.
      if (remembered) lookUpFirst();
      const now = await findInteractions(deps.db, ids);
      for (const row of now) assertOpen(row);
      throw new HarborError("EXPIRED", "This request expired before it was answered.");
    }
    gates.forget(ids);
    notify(
      claims.map((c, i) => ({
        tenantId: identity.tenantId,
        interactionId: c.id,
        runId: ordered[i]!.runId,
        ownerId: ordered[i]!.ownerId,
        policy: ordered[i]!.policy,
        status: c.status,
      })),
    );

    const ready: ReadyRun[] = [];
    for (const [index, claim] of claims.entries()) {
      const runId = ordered[index]!.runId;
      const run = holding(runId);
      if (!run) continue;
      parked.set(runId, run);
      run.resolutions ??= new Map();
      run.resolutions.set(claim.id, {
        interactionId: claim.id,
        kind: ordered[index]!.kind,
        status: claim.status,
        payload: claim.payload,
        actorId: identity.userId,
      } satisfies Resolution);
      if (run.waitingOn.every((id) => run.resolutions?.has(id))) {
        gates.forget(run.waitingOn);
        parked.delete(runId);
        ready.push({ runId, parked: run, continuation: won.continuations.get(runId) });
      }
    }
    return ready;
  }

  /**
   * An open consent of this identity (for `provider`, when given); refuses exactly as `resolve`
   * would (an expired one ends its run).
   */
  async function openConsent(identity: Identity, interactionId: string, provider?: string): Promise<InteractionRow> {
    const [row] = await findInteractions(deps.db, [interactionId]);
    if (
      !row ||
      row.tenantId !== identity.tenantId ||
      row.kind !== "oauth" ||
      (provider !== undefined && row.detail?.provider !== provider)
    ) {
      throw new NotFoundError("Consent request");
    }
    authorize(row, identity, "oauth_callback", "resolved");
    assertOpen(row);
    if (row.expiresAt.getTime() <= Date.now()) await closeAndRefuse("expired", [row]);
    return row;
  }

  /**
   * The OAuth callback's hold, before it exchanges anything: the interaction is this identity's
   * open consent for `provider`, and no other callback is completing it. `release` lets another
   * try when the exchange failed; resolving it (`resolve` via `oauth_callback`) ends the hold.
   */
  async function holdOpenConsent(identity: Identity, interactionId: string, provider: string): Promise<{ threadId: string }> {
    const row = await openConsent(identity, interactionId, provider);
    if (!(await holdConsent(deps.db, row.id))) {
      const [now] = await findInteractions(deps.db, [row.id]);
      if (now) assertOpen(now);
      throw new HarborError("ALREADY_RESOLVED", "This sign-in is already being completed; the action is not repeated.", {
        interactionId: row.id,
      });
    }
    return { threadId: row.threadId };
  }

  /**
   * Ends waits whose time ran out while nobody answered (their runs end `expired`): this process's
   * own, and — less often, since any process may hold them — durable ones, also those an earlier
   * process left behind.
   */
  let sweeps = 0;
  async function sweepExpired(): Promise<void> {
    const startedAt = Date.now();
    await actOnDeadlines();
    const durable = sweeps++ % DURABLE_SWEEP_EVERY === 0;
    if (parked.size === 0 && !durable) return;
    const expiredOf = { expiredOf: deps.instanceId, ...(durable ? { durableKinds: DURABLE_KINDS } : {}) };
    await closeWhere(
      "expired",
      { ...expiredOf, onExpiry: "reject" },
      { failure: { code: "EXPIRED", message: "The request expired before it was answered." } },
    );
    await closeWhere("expired", { ...expiredOf, onExpiry: "cancel" }, { cancelledBy: "system" });
    forgetOverdue(startedAt);
  }

  /**
   * Parked runs whose time ran out before this sweep began are closed by now: here, by the sweep's
   * statements, or by another instance (a client that abandoned an expired interrupt there). Either
   * way nothing can answer them any more, so this process lets go of what it still held.
   */
  function forgetOverdue(before: number): void {
    for (const [runId, run] of parked) {
      if (run.expiresAt > before) continue;
      gates.forget(run.waitingOn);
      parked.delete(runId);
    }
  }

  /**
   * Reminders and escalations that fell due, of any instance's gates (they are rows): logged,
   * audited and told to webhooks by the statement; here, told to live readers and inboxes.
   */
  async function actOnDeadlines(): Promise<void> {
    const acted = await actOnDueDeadlines(deps.db);
    const at = Date.now();
    for (const a of acted) {
      if (a.logged) deps.bus.publish({ runId: a.runId, seq: a.logged.seq, at, event: a.logged.event });
      deps.log.info({ interactionId: a.id, runId: a.runId, action: a.action, escalateTo: a.escalateTo }, "gate deadline acted");
    }
    notify(
      acted.map((a) => ({
        tenantId: a.tenantId,
        interactionId: a.id,
        runId: a.runId,
        ownerId: a.ownerId,
        policy: a.policy,
        status: "pending" as const,
        ...(a.escalateTo && a.action === "escalate" ? { escalatedTo: a.escalateTo } : {}),
      })),
    );
  }

  /**
   * Cancels a parked run: its open interactions close as `cancelled`, the run ends `cancelled`
   * with `run.cancelled { by }` and a note in its thread.
   */
  async function cancel(runId: string, by: CancelledBy): Promise<boolean> {
    const closed = await closeWhere("cancelled", { runId }, { cancelledBy: by });
    return closed.length > 0;
  }

  return {
    park,
    resolve,
    abandonUnanswerable,
    /**
     * The thread the named gates wait on, as this process parked them — its tenant and owner are
     * theirs — when it can vouch for every one and all are on `threadId`; else undefined (read it).
     */
    threadOfParkedGates: (ids: readonly string[], threadId: string) => gates.threadOf(ids, threadId),
    openConsent,
    holdOpenConsent,
    releaseConsent: (interactionId: string) => releaseConsent(deps.db, interactionId),
    cancel,
    sweepExpired,
    /**
     * Dead instances' process-held waits (those not made durable) can no longer be answered: they
     * close as `lost`, their runs with them (`INTERACTION_LOST`), audited. Durable ones stay open
     * for whichever instance is answered.
     */
    async closeWaitsOf(deadInstances: readonly string[]): Promise<number> {
      if (deadInstances.length === 0 || LOST_WITH_PROCESS.length === 0) return 0;
      const closed = await closeWhere(
        "lost",
        { heldBy: deadInstances, kinds: LOST_WITH_PROCESS },
        { failure: { code: "INTERACTION_LOST", message: LOST_MESSAGE } },
      );
      return closed.length;
    },
    /** Whether a wait of this kind outlives its process. */
    isDurable: (kind: InteractionKind) => DURABLE_KINDS.includes(kind),
    /** Whether anyone here follows interaction changes (an inbox, a chat). */
    watching: () => listeners.size > 0,
    /** Tells this instance's inboxes of a change another instance made. */
    announce: (change: InteractionChange) => notify([change]),
    /** Live changes of interactions, for inboxes. Returns the unsubscribe function. */
    onChange(listener: (change: InteractionChange) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** How many invocations this process holds parked (benchmarks, health). */
    get parkedCount(): number {
      return parked.size;
    },
  };
}

export type Coordinator = ReturnType<typeof createCoordinator>;
