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
import { HarborError, ToolContextLostError } from "../errors";

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
  | RemoteAgentToolDefinition<Input>;

/** Erases a tool's types for registries; the definition still validates its own input and output. */
export function tool<Input, Output>(definition: ToolDefinition<Input, Output>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** `tool` for a private form, whose value type is the form's. */
export function privateInputTool<Input, Output, Form>(definition: PrivateInputToolDefinition<Input, Output, Form>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

export type ToolRegistry = ReadonlyMap<string, ToolDefinition>;

const PAUSE = Symbol.for("harbor.pause-signal");

const REJECTED = Symbol.for("harbor.credential-rejected");

/** Thrown by `ctx.credentialRejected`: control flow, like a pause. */
export class CredentialRejectedSignal {
  readonly [REJECTED] = true;
  static is(value: unknown): value is CredentialRejectedSignal {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[REJECTED] === true;
  }
}

/** Thrown by `ctx.pause`: control flow, not an error, so it never travels as a HarborError. */
export class PauseSignal {
  readonly [PAUSE] = true;
  constructor(readonly request: ToolPauseRequest) {}
  static is(value: unknown): value is PauseSignal {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PAUSE] === true;
  }
}

interface HandleEntry {
  handle: unknown;
  reattach?: () => unknown | Promise<unknown>;
  alive?: (handle: unknown) => boolean;
}

export interface RegisterOptions<T> {
  /** Re-creates the handle when the one held cannot be used any more. */
  reattach?: () => T | Promise<T>;
  /** Tells whether a held handle still works (a socket that closed during the pause does not). */
  alive?: (handle: T) => boolean;
}

/** A tool call's live handles, held by the serving process while the run is parked. */
export class HandleRegistry {
  private readonly entries = new Map<string, HandleEntry>();

  register<T>(key: string, handle: T, options: RegisterOptions<T> = {}): void {
    this.entries.set(key, {
      handle,
      reattach: options.reattach,
      alive: options.alive as ((handle: unknown) => boolean) | undefined,
    });
  }

  /** The handle registered under `key`; a tool asking for one it never registered fails loudly. */
  get<T>(key: string): T {
    const entry = this.entries.get(key);
    if (!entry) throw new ToolContextLostError(key, "no handle is registered under this key");
    return entry.handle as T;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Re-attaches every handle a paused call registered (`keys`, from its checkpoint) before the call
   * runs again: the held handle if it still works, else a fresh one from `reattach`.
   */
  static async reattach(keys: readonly string[], held: HandleRegistry | undefined): Promise<HandleRegistry> {
    const registry = new HandleRegistry();
    for (const key of keys) {
      const entry = held?.entries.get(key);
      if (!entry) throw new ToolContextLostError(key, "the serving process no longer holds it");
      if (!entry.alive || entry.alive(entry.handle)) {
        registry.entries.set(key, entry);
        continue;
      }
      if (!entry.reattach) throw new ToolContextLostError(key, "it stopped working and declares no way to re-attach");
      let fresh: unknown;
      try {
        fresh = await entry.reattach();
      } catch (error) {
        throw new ToolContextLostError(key, `re-attaching failed (${error instanceof Error ? error.message : String(error)})`);
      }
      registry.entries.set(key, { ...entry, handle: fresh });
    }
    return registry;
  }
}

/**
 * Throws ERR_TOOL_STATE_NOT_SERIALIZABLE naming the first value under `root` that is not plain JSON
 * (functions, class instances, Maps, Dates, undefined, non-finite numbers, cycles …).
 */
export function assertPlainJson(value: unknown, root: string): void {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string): void => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return;
    if (typeof v === "number") {
      if (Number.isFinite(v)) return;
      throw notSerializable(path, "a non-finite number");
    }
    if (typeof v !== "object") throw notSerializable(path, typeof v === "undefined" ? "undefined" : `a ${typeof v}`);
    if (seen.has(v)) throw notSerializable(path, "a reference cycle");
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach((item, index) => visit(item, `${path}[${index}]`));
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        throw notSerializable(path, `an instance of ${(v.constructor as { name?: string } | undefined)?.name ?? "a class"}`);
      }
      for (const [key, item] of Object.entries(v)) visit(item, `${path}.${key}`);
    }
    seen.delete(v);
  };
  visit(value, root);
}

function notSerializable(path: string, what: string): HarborError {
  return new HarborError(
    "ERR_TOOL_STATE_NOT_SERIALIZABLE",
    `${path} is ${what}, which cannot be checkpointed: keep plain JSON in ctx.state and register live objects with ctx.handles.register.`,
    { path },
  );
}
