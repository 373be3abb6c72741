/**
 * Runtime events: what happened in a run, in Harbor's own terms. Every event is appended to the
 * run's event log with a per-run sequence number before anyone sees it; the AG-UI transport,
 * timelines and reconnecting clients are all readers of that log. Private values never enter it.
 */
import type { ErrorCode } from "./errors";
import type { TokenCount } from "./checkpoint";
import type { SteeringType } from "./steering";
import type {
  CancelledBy,
  EscalationGroup,
  ExpiryDefault,
  InteractionDetail,
  InteractionKind,
  MessageRole,
  PauseReason,
  ResolverPolicy,
  StoredToolCall,
} from "./vocabulary";

/** One message of a thread's conversation, as the planner and the transcript see it. */
export interface TranscriptMessage {
  id: string;
  role: MessageRole;
  content: string;
  /** An assistant message's tool calls. */
  toolCalls?: StoredToolCall[];
  /** A tool message's call. */
  toolCallId?: string;
}

/** An open interaction as clients see it: enough to render the decision and to answer it. */
export interface InterruptView {
  /** The interaction id: also the interrupt id, `pauseId` and the id tRPC takes. */
  id: string;
  runId: string;
  kind: InteractionKind;
  /** Null for waits that are not pauses (a browser tool's result): those are no AG-UI interrupt. */
  reason: PauseReason | null;
  policy: ResolverPolicy;
  message: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  resumeToken: string;
  /** JSON Schema of the answer: an approval's decision, a private form's fields. */
  responseSchema?: Record<string, unknown>;
  toolCallId?: string;
  tool?: { name: string; args: Record<string, unknown> };
  /** An OAuth pause's provider and consent URL; a remote agent's name and kind of question. */
  detail?: InteractionDetail;
  /** How many of the tenant's approvers must approve (present when more than one). */
  quorum?: number;
  /** What its deadline does (a gate whose tool declares one): reminder, escalation, safe default. */
  deadline?: GateDeadline;
}

/** A gate's deadline as its interrupt and inbox show it (times in milliseconds since the epoch). */
export interface GateDeadline {
  remindAt?: number;
  escalateAt?: number;
  escalateTo?: EscalationGroup;
  onExpiry: ExpiryDefault;
}

/** Whose tokens a budget counts (the tenant's, or one user's), and over what (a UTC day or month). */
export const BUDGET_SCOPES = ["tenant", "user"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export const BUDGET_PERIODS = ["day", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export type RunEvent =
  /** A transport exchange begins: the run's first, or a resume continuing it. */
  | { type: "run.started"; runId: string; threadId: string; agentId: string; resumed?: boolean }
  | { type: "text.started"; messageId: string }
  | { type: "text.delta"; messageId: string; delta: string }
  /**
   * `interrupted`: the run's instance died while the text streamed; what was published but not
   * stored yet is lost (see the runtime's log room).
   */
  | { type: "text.ended"; messageId: string; interrupted?: boolean }
  | { type: "tool.call"; messageId: string; toolCallId: string; name: string; args: Record<string, unknown> }
  | { type: "tool.result"; messageId: string; toolCallId: string; content: string }
  /** How far a call in flight has come, as its tool reports (an MCP server's progress notifications). */
  | { type: "tool.progress"; toolCallId: string; progress: number; total?: number; message?: string }
  | ({ type: "pause.requested" } & InterruptView)
  /** A browser tool must run: the owner's client delivers its output (AG-UI `CUSTOM harnest.client_tool`). */
  | { type: "client_tool.requested"; requestId: string; toolCallId: string; toolName: string }
  /** Durable work started; its response id is polled (AG-UI `CUSTOM harnest.external_wait`). */
  | { type: "external_wait.started"; responseId: string; toolCallId: string }
  /**
   * A gate's deadline acted while nobody decided (written by whichever instance's sweep saw it due,
   * while the run is parked): a reminder to those who may decide, an escalation to another group.
   * Log-only: the console's timeline and the audit show them; AG-UI clients are not sent them.
   */
  | { type: "pause.reminder"; pauseId: string; expiresAt: number }
  | { type: "pause.escalated"; pauseId: string; to: EscalationGroup; expiresAt: number }
  /** A gated call passed on a standing approval (no pause): the grant and who gave it. */
  | { type: "grant.used"; grantId: string; toolCallId: string; toolName: string; grantedBy: string }
  /**
   * A model request failed before any of its answer came (`reason`: "HTTP 503", "no connection" —
   * never the prompt or a key) and is asked again after `delayMs`, as attempt `attempt` of `maxAttempts`.
   */
  | { type: "model.retrying"; attempt: number; maxAttempts: number; delayMs: number; reason: string }
  /** A model token budget this run draws on is 80 % used or more (said once per run and budget). */
  | { type: "budget.warning"; scope: BudgetScope; period: BudgetPeriod; used: number; limit: number }
  | { type: "pause.resumed"; pauseId: string; runId: string; decision: "approved" | "rejected" | "cancelled" | "resolved"; actorId: string }
  /** Steering honored at a safe point (or decided on a parked run); `detail` is what it said. */
  | { type: "steer.applied"; instruction: SteeringType; actorId: string; detail?: string }
  | { type: "children.started"; runIds: string[] }
  | { type: "snapshot"; state: Record<string, unknown>; messages: TranscriptMessage[] }
  /**
   * The run waits: its transport run ends (with these interrupts, for pauses); the invocation waits.
   * `usage`: what this stretch of the run (since it started or last went on) spent on models, if any.
   */
  | { type: "run.paused"; interrupts: InterruptView[]; usage?: TokenCount }
  /** The run waits for its turn (its thread's running run, or the scheduler): `position` runs are ahead. */
  | { type: "run.queued"; position: number }
  /**
   * The instance executing the run stopped before it ended: the run was handed back between two
   * steps, waits in the cluster's queue, and goes on from its checkpoint on another instance.
   */
  | { type: "run.handed_off"; from: string }
  /** Someone cancelled the run: the last event before `run.completed { status: "cancelled" }`. */
  | { type: "run.cancelled"; by: CancelledBy }
  | { type: "run.completed"; status?: "rejected" | "cancelled"; usage?: TokenCount }
  | { type: "run.failed"; code: ErrorCode; message: string };

export interface LoggedEvent {
  readonly runId: string;
  readonly seq: number;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly event: RunEvent;
}
