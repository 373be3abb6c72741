/**
 * Tools and the tool-context split. A tool's state is either plain JSON (`ctx.state`: checkpointed
 * with a pause, restored on resume) or a live handle (`ctx.handles`: kept by the serving process,
 * re-attached on resume). Neither is ever dropped silently: state that is not plain JSON fails the
 * pause, a handle that cannot be re-attached fails the resume with `ERR_TOOL_CONTEXT_LOST`.
 */
import type { z } from "zod";
import type {
  EscalationGroup,
  ExpiryDefault,
  GrantBounds,
  InteractionKind,
  OutboxKind,
  RemotePrompt,
  ResolverPolicy,
} from "@/server/domain";
import type { McpToolDefinition } from "./mcp-tools";
import type { HandleRegistry } from "./tool-context";

/** How a gate or a tool-level pause was answered. */
export interface Resolution {
  interactionId: string;
  kind: InteractionKind;
  status: "resolved" | "rejected" | "cancelled";
  /**
   * The validated answer: an approval's `{ approved, reason? }`, a browser tool's `{ output }`, a
   * private form's `{ value }` (held in memory only, on its way to the tool's `deliver`).
   */
  payload?: Record<string, unknown>;
  actorId: string;
}

export interface ToolContext {
  readonly runId: string;
  readonly threadId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly toolCallId: string;
  /**
   * The same for every execution of this call, wherever and however often it runs (an instance
   * that stalled and was taken over, a retry): hand it to the outside service as its idempotency
   * key (`Idempotency-Key`), so the service acts once.
   */
  readonly idempotencyKey: string;
  /**
   * Set for a gated tool: who approved it — on its gate (`interactionId`), or beforehand with a
   * standing approval the call fell within (`grantId`; no pause).
   */
  readonly approval?: { interactionId?: string; grantId?: string; approvedBy: string };
  /** Set when the tool runs again after its own pause: how the pause was answered. */
  readonly resumedWith?: Resolution;
  /** Plain JSON the tool keeps across its pauses. */
  readonly state: Record<string, unknown>;
  readonly handles: HandleRegistry;
  /** Parks the run on the coordinator; the tool runs again, with `resumedWith`, once it is answered. */
  pause(request: ToolPauseRequest): never;
  /** For a tool declaring `auth`: the owner's access token for that provider, valid when the call began. */
  readonly accessToken?: string;
  /**
   * The resource refused `accessToken` (revoked, expired early): the runtime refreshes it and runs
   * the tool once more, or — when the grant is gone — asks the owner to connect again.
   */
  credentialRejected(): never;
  /**
   * Records what the call did in the owner's outbox, in the same statement as the call's result:
   * the record and the result commit together or not at all, once per tool call. Returns the
   * record's id.
   */
  recordInOutbox(entry: { kind: OutboxKind; details: Record<string, unknown> }): string;
}

/** What a tool asks the coordinator for when it pauses itself. */
export interface ToolPauseRequest {
  message: string;
  policy?: ResolverPolicy;
}

/** How a standing approval may bind one argument (see `approval.grantable`). */
export type GrantableField = "equal" | { atMost: number };

/** A tool the runtime executes. */
/** A span of a gate's time to decide: milliseconds, or a share of its TTL (`"25%"`), which settings that shorten the TTL shorten too. */
export type GateSpan = number | `${number}%`;

/**
 * What a gate's deadline does while nobody decides: remind those who may decide `remindBefore` it
 * expires; escalate to another group `escalate.after` it was requested (they may decide it from
 * then on); and on expiry apply the safe default — `reject` (the default: the action never runs,
 * the run ends `expired`) or `cancel` (the run ends `cancelled`). Each is a row's timer (it
 * survives restarts), recorded in the run's log, the audit and webhooks.
 */
export interface DeadlinePolicy {
  remindBefore?: GateSpan;
  escalate?: { to: EscalationGroup; after: GateSpan };
  onExpiry?: ExpiryDefault;
}

export interface ServerToolDefinition<Input = unknown, Output = unknown> {
  readonly kind?: "server";
  readonly name: string;
  /**
   * The tool's version, as its approvals bind it: bump it when what the tool does changes (by
   * default, a digest of its name, description, input schema and gate).
   */
  readonly version?: string;
  /** How people read the tool's name (the UI shows it; a model never sees it). */
  readonly title?: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly output: z.ZodType<Output>;
  /**
   * Gate every call behind a human decision before it runs: who decides, how the request reads,
   * how long it waits before it expires (default HARBOR_APPROVAL_TTL_MS), and — for `approvers` —
   * how many of them must approve (a quorum, fixed or by the call's arguments; default 1).
   */
  readonly approval?: {
    policy: ResolverPolicy;
    describe(args: Input): string;
    ttlMs?: number;
    quorum?: number | ((args: Input) => number);
    deadline?: DeadlinePolicy;
    /**
     * Standing approvals: the approver may also allow later calls of this tool whose arguments
     * stay within bounds taken from the approved call — for the conversation or some hours. Each
     * field listed is bound: `"equal"` to the approved value, `{ atMost }` to a number no larger
     * than the approved one, which the approver may raise up to `atMost`. Fields not listed are
     * free. Not offered on gates that need several approvers.
     */
    grantable?: {
      fields: Partial<Record<keyof Input & string, GrantableField>>;
      /** The bounds in words, for the decision and the list of grants ("emails to bob@x.test"). */
      describe(bounds: GrantBounds): string;
    };
  };
  /**
   * The call needs the owner's OAuth credential for `provider`: without a usable one the run parks
   * (reason `oauth`) until the owner connects at the provider; then the tool runs with `ctx.accessToken`.
   */
  readonly auth?: { provider: string; scopes: readonly string[] };
  execute(args: Input, ctx: ToolContext): Promise<Output>;
}

/**
 * A tool the browser executes (`@client_tool`): the run announces the call and waits on the
 * coordinator until the owner's client delivers an output that matches `output`.
 */
export interface ClientToolDefinition<Input = unknown, Output = unknown> {
  readonly kind: "client";
  readonly name: string;
  /** How people read the tool's name (the UI shows it; a model never sees it). */
  readonly title?: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly output: z.ZodType<Output>;
}

/** Where a private value is delivered: the run's identity, never a transcript. */
export interface PrivateInputContext {
  readonly runId: string;
  readonly threadId: string;
  readonly tenantId: string;
  readonly userId: string;
  readonly toolCallId: string;
  /**
   * Keeps `value` for the run's owner under `provider`, sealed before it is stored (replacing what
   * was kept there): the one way a tool stores a secret, so no agent touches the database.
   */
  keepSecret(provider: string, value: string): Promise<void>;
}

/**
 * A private form (`@client_input`): the run parks with the form's JSON Schema; the owner's value
 * goes once to `deliver` — trusted server code that returns nothing — and is kept nowhere else.
 * Only `respond`'s declared answer, computed without the value, becomes the tool's result.
 */
export interface PrivateInputToolDefinition<Input = unknown, Output = unknown, Form = unknown> {
  readonly kind: "private_input";
  readonly name: string;
  /** How people read the tool's name (the UI shows it; a model never sees it). */
  readonly title?: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly form: z.ZodType<Form>;
  readonly output: z.ZodType<Output>;
  /** The prompt shown with the form. */
  describe(args: Input): string;
  deliver(value: Form, ctx: PrivateInputContext): Promise<void>;
  respond(args: Input): Output;
}

/** How far an external tool's work has come; shown to whoever polls its response. */
export interface JobProgress {
  step: number;
  total: number;
  label: string;
}

/**
 * Durable background work (an external wait): the run announces the call and finishes its
 * transport run; the work goes on in a job that survives restarts (it may run again from the start
 * after a crash, so `work` must be safe to repeat); its result is appended to the thread once.
 */
export interface ExternalToolDefinition<Input = unknown, Output = unknown> {
  readonly kind: "external";
  readonly name: string;
  /** How people read the tool's name (the UI shows it; a model never sees it). */
  readonly title?: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly output: z.ZodType<Output>;
  work(args: Input, progress: (step: JobProgress) => Promise<void>): Promise<Output>;
  /** The assistant's message once the work is done. */
  report(output: Output, args: Input): string;
}

/** How a remote agent's task stands after a message: done, or waiting for its caller. */
export type RemoteOutcome =
  | { state: "completed"; taskId: string; contextId: string; text: string }
  | { state: RemotePrompt; taskId: string; contextId: string; prompt: string }
  | { state: "failed" | "rejected" | "canceled"; taskId: string; contextId: string; text: string };

/** One message to a remote agent. */
export interface RemoteSend {
  text: string;
  /** Continue this remote task (answer its question) instead of starting a new one. */
  taskId?: string;
  contextId?: string;
  /** Sent as `Authorization: Bearer <bearer>` on this call only; never logged, never stored. */
  bearer?: string;
  signal?: AbortSignal;
}

/** A remote agent as the runtime uses it (A2A: `server/a2a/remote-agent.ts`). */
export interface RemoteAgentPort {
  readonly url: string;
  /** The agent card's name (discovered on first use, then cached). */
  name(): Promise<string>;
  send(input: RemoteSend): Promise<RemoteOutcome>;
  cancel(taskId: string): Promise<void>;
}

/** What a remote agent's call results in (its final answer, as the model sees it). */
export interface RemoteAgentResult {
  agent: string;
  status: "completed";
  text: string;
}

/**
 * Delegates to a remote agent (A2A). A task that needs more input or a credential parks the run
 * (reason `a2a`) with the agent's question; the owner's answer goes to the same remote task. The
 * task's ids are plain JSON in the checkpoint, so the wait survives a restart; cancelling the run
 * cancels the remote task.
 */
export interface RemoteAgentToolDefinition<Input = unknown> {
  readonly kind: "remote_agent";
  readonly name: string;
  /** How people read the tool's name (the UI shows it; a model never sees it). */
  readonly title?: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  readonly output: z.ZodType<RemoteAgentResult>;
  readonly agent: RemoteAgentPort;
  /** The first message sent to the remote agent. */
  message(args: Input): string;
}

export type ToolDefinition<Input = unknown, Output = unknown> =
  | ServerToolDefinition<Input, Output>
  | ClientToolDefinition<Input, Output>
  | PrivateInputToolDefinition<Input, Output>
  | ExternalToolDefinition<Input, Output>
  | RemoteAgentToolDefinition<Input>
  | McpToolDefinition;

/** Erases a tool's types for registries; the definition still validates its own input and output. */
export function tool<Input, Output>(definition: ToolDefinition<Input, Output>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** `tool` for a private form, whose value type is the form's. */
export function privateInputTool<Input, Output, Form>(definition: PrivateInputToolDefinition<Input, Output, Form>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

export type ToolRegistry = ReadonlyMap<string, ToolDefinition>;
