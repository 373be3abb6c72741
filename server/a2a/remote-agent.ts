/**
 * Harbor's client for remote A2A agents (protocol v1.0, @a2a-js/sdk's client). One call sends one
 * message and reads the remote task until it settles: done (completed, failed, rejected, canceled)
 * or waiting on its caller (input-required, auth-required) — the caller answers with the same
 * task id. Failures become HarborErrors whose message is a plain sentence for the user; the agent's
 * URL goes only into their details (the log), and none carries a credential. Harbor calls only
 * endpoints on the configured agent's origin, whatever its card says.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  Role,
  TaskState,
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  type SendMessageRequest,
  type SendMessageResult,
  type StreamResponse,
  type Task,
} from "@a2a-js/sdk";
import { ClientFactory, DefaultAgentCardResolver, type Client, type RequestOptions } from "@a2a-js/sdk/client";
import { A2AError } from "@a2a-js/sdk/errors";
import { HarborError, type RemoteAgentPort, type RemoteOutcome, type RemoteSend } from "@/server/runtime";

export type { RemoteOutcome, RemoteSend };

const DEFAULT_TIMEOUT_MS = 30_000;

/** What Harbor itself reads from an agent card; the SDK gets the whole card. */
const CardEssentials = z.object({
  name: z.string().min(1),
  capabilities: z.object({ streaming: z.boolean().optional() }).optional(),
  supportedInterfaces: z.array(z.object({ url: z.string(), protocolBinding: z.string() })).min(1),
});

interface Connection {
  client: Client;
  name: string;
  streaming: boolean;
}

export function remoteAgent(url: string, options: { timeoutMs?: number } = {}): RemoteAgentPort {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let discovery: Promise<{ connection: Connection } | { error: unknown }> | undefined;

  /**
   * The card is fetched once and shared. Discovery runs on its own timeout rather than the first
   * caller's signal, so one caller giving up does not fail the others; a failure is not cached.
   * The shared promise never rejects, so a discovery nobody waits for any more cannot surface as
   * an unhandled rejection.
   */
  async function connect(signal: AbortSignal): Promise<Connection> {
    signal.throwIfAborted();
    discovery ??= discover(url, AbortSignal.timeout(timeoutMs)).then(
      (connection) => ({ connection }),
      (error: unknown) => {
        discovery = undefined;
        return { error };
      },
    );
    const result = await untilAborted(discovery, signal);
    if ("error" in result) throw result.error;
    return result.connection;
  }

  /** Runs one operation under the timeout and the caller's signal, and turns failures into HarborErrors. */
  async function guarded<T>(
    callerSignal: AbortSignal | undefined,
    bearer: string | undefined,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    try {
      return await work(signal);
    } catch (error) {
      // The caller's own abort is theirs to interpret: hand back exactly what they aborted with.
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeout.aborted || isTimeout(error)) {
        throw new HarborError("REMOTE_AGENT_TIMEOUT", `The remote agent did not answer within ${duration(timeoutMs)}.`, {
          url,
          timeoutMs,
        });
      }
      throw asRemoteError(url, error, bearer);
    }
  }

  return {
    url,

    name() {
      return guarded(undefined, undefined, async (signal) => (await connect(signal)).name);
    },

    send(input) {
      return guarded(input.signal, input.bearer, async (signal) => {
        const { client, streaming } = await connect(signal);
        const request: SendMessageRequest = { tenant: "", message: userMessage(input), configuration: undefined, metadata: undefined };
        const options: RequestOptions = { signal, serviceParameters: input.bearer ? { Authorization: `Bearer ${input.bearer}` } : {} };
        if (streaming) return outcomeOfStream(url, client.sendMessageStream(request, options), input.taskId !== undefined);
        return outcomeOfResult(url, await client.sendMessage(request, options));
      });
    },

    cancel(taskId) {
      return guarded(undefined, undefined, async (signal) => {
        const { client } = await connect(signal);
        await client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal });
      });
    },
  };
}

async function discover(url: string, signal: AbortSignal): Promise<Connection> {
  let cardUrl: URL;
  try {
    cardUrl = new URL(AGENT_CARD_PATH, url);
  } catch {
    throw new HarborError("REMOTE_AGENT_UNAVAILABLE", `The remote agent cannot be reached: that is not a valid URL.`, { url });
  }
  const response = await fetch(cardUrl, { headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION }, signal });
  if (!response.ok) {
    throw new HarborError(
      "REMOTE_AGENT_UNAVAILABLE",
      `The remote agent cannot be reached: it has no agent card (HTTP ${response.status}).`,
      {
        url,
        status: response.status,
      },
    );
  }
  const raw: unknown = await response.json();
  const card = CardEssentials.safeParse(raw);
  if (!card.success) {
    throw new HarborError("REMOTE_AGENT_FAILED", `The remote agent publishes an agent card Harbor cannot read.`, { url });
  }
  // The SDK's resolver normalises card dialects (proto-style JSON) before the factory picks a transport.
  const normalized = new DefaultAgentCardResolver().normalizeAgentCard(raw);
  const client = await new ClientFactory().createFromAgentCard(pinnedToOrigin(url, normalized));
  return { client, name: card.data.name, streaming: card.data.capabilities?.streaming === true };
}

/**
 * The card is read from the configured address, but it names the endpoints to call: a card that
 * sends Harbor (and the bearer it forwards) to another site is refused. Only the interfaces on the
 * configured origin are kept; none left, and nothing is called. The addresses go to the log.
 */
function pinnedToOrigin(url: string, card: AgentCard): AgentCard {
  const origin = new URL(url).origin;
  const sameOrigin = (endpoint: string) => URL.canParse(endpoint) && new URL(endpoint).origin === origin;
  const kept = card.supportedInterfaces.filter((i) => sameOrigin(i.url));
  if (kept.length === 0) {
    throw new HarborError(
      "REMOTE_AGENT_FAILED",
      "The remote agent's card names an endpoint on another site; Harbor calls only the address it was configured with.",
      { url, endpoints: card.supportedInterfaces.map((i) => i.url) },
    );
  }
  return { ...card, supportedInterfaces: kept };
}

function userMessage(input: RemoteSend): Message {
  return {
    messageId: randomUUID(),
    taskId: input.taskId ?? "",
    contextId: input.contextId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: input.text }, mediaType: "text/plain", filename: "", metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The remote task as the events so far describe it. */
interface TaskView {
  taskId: string;
  contextId: string;
  state: TaskState | undefined;
  message: Message | undefined;
  artifacts: Map<string, Artifact>;
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_CANCELED,
]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/**
 * Reads a stream until the task settles. A stream that continues a task may open with a snapshot
 * of the task as it stood — still asking the question being answered — so a snapshot's
 * interrupted state only counts when it starts a task or is the last word before the stream ends.
 */
async function outcomeOfStream(url: string, events: AsyncGenerator<StreamResponse>, continuing: boolean): Promise<RemoteOutcome> {
  let view: TaskView | undefined;
  for await (const event of events) {
    const payload = event.payload;
    if (!payload) continue;
    switch (payload.$case) {
      case "message":
        return messageOutcome(payload.value);
      case "task": {
        view = fromTask(payload.value);
        const state = view.state;
        if (state !== undefined && (TERMINAL.has(state) || (!continuing && INTERRUPTED.has(state)))) return settled(url, view);
        break;
      }
      case "statusUpdate": {
        const update = payload.value;
        view ??= emptyView(update.taskId, update.contextId);
        view.state = update.status?.state;
        view.message = update.status?.message;
        if (view.state !== undefined && (TERMINAL.has(view.state) || INTERRUPTED.has(view.state))) return settled(url, view);
        break;
      }
      case "artifactUpdate": {
        const { artifact, append } = payload.value;
        view ??= emptyView(payload.value.taskId, payload.value.contextId);
        if (artifact) addArtifact(view, artifact, append);
        break;
      }
    }
  }
  if (!view) throw malformed(url, "its stream ended without a task");
  return settled(url, view);
}

function outcomeOfResult(url: string, result: SendMessageResult): RemoteOutcome {
  return "messageId" in result ? messageOutcome(result) : settled(url, fromTask(result));
}

/** An agent may answer with a plain message instead of a task: that is a finished answer. */
function messageOutcome(message: Message): RemoteOutcome {
  return { state: "completed", taskId: message.taskId, contextId: message.contextId, text: textOf(message.parts) };
}

function fromTask(task: Task): TaskView {
  const view = emptyView(task.id, task.contextId);
  view.state = task.status?.state;
  view.message = task.status?.message;
  for (const artifact of task.artifacts) view.artifacts.set(artifact.artifactId, artifact);
  return view;
}

function emptyView(taskId: string, contextId: string): TaskView {
  return { taskId, contextId, state: undefined, message: undefined, artifacts: new Map() };
}

function addArtifact(view: TaskView, artifact: Artifact, append: boolean): void {
  const existing = view.artifacts.get(artifact.artifactId);
  view.artifacts.set(artifact.artifactId, append && existing ? { ...existing, parts: [...existing.parts, ...artifact.parts] } : artifact);
}

/** The outcome of a task that reached a terminal or interrupted state; anything else is a broken answer. */
function settled(url: string, view: TaskView): RemoteOutcome {
  const { taskId, contextId } = view;
  const said = textOf(view.message?.parts ?? []);
  // The protocol's own enum: every state not named here is, by the comment above, a broken answer.
  // eslint-disable-next-line @typescript-eslint/switch-exhaustiveness-check
  switch (view.state) {
    case TaskState.TASK_STATE_COMPLETED: {
      const text =
        said ||
        [...view.artifacts.values()]
          .map((a) => textOf(a.parts))
          .filter(Boolean)
          .join("\n");
      return { state: "completed", taskId, contextId, text };
    }
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return { state: "input_required", taskId, contextId, prompt: said || "The remote agent needs more information to continue." };
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { state: "auth_required", taskId, contextId, prompt: said || "The remote agent needs you to sign in to continue." };
    case TaskState.TASK_STATE_FAILED:
      return { state: "failed", taskId, contextId, text: said };
    case TaskState.TASK_STATE_REJECTED:
      return { state: "rejected", taskId, contextId, text: said };
    case TaskState.TASK_STATE_CANCELED:
      return { state: "canceled", taskId, contextId, text: said };
    default:
      throw malformed(url, "it stopped answering before the task finished");
  }
}

function textOf(parts: Part[]): string {
  return parts
    .flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : []))
    .join("\n")
    .trim();
}

function malformed(url: string, why: string): HarborError {
  return new HarborError("REMOTE_AGENT_FAILED", `The remote agent sent an answer Harbor cannot use: ${why}.`, { url });
}

/** Resolves or rejects with `promise`, unless `signal` aborts first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}

/** System error codes (undici puts them on the `cause` of its "fetch failed" / "terminated" TypeErrors) that mean no usable connection. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if ("code" in current && typeof current.code === "string" && NETWORK_CODES.has(current.code)) return true;
    if (current instanceof TypeError && current.message === "fetch failed") return true;
  }
  return false;
}

/** The A2A protocol error behind `error`, if any (the SDK wraps one in a plain Error for stream events). */
function protocolError(error: unknown): A2AError | undefined {
  if (error instanceof A2AError) return error;
  if (error instanceof Error && error.cause instanceof A2AError) return error.cause;
  return undefined;
}

function asRemoteError(url: string, error: unknown, bearer: string | undefined): HarborError {
  if (HarborError.is(error)) return error;
  if (isNetworkFailure(error)) {
    return new HarborError("REMOTE_AGENT_UNAVAILABLE", `The remote agent cannot be reached.`, { url });
  }
  const refusal = protocolError(error);
  if (refusal) {
    // The remote's own words come from outside: they go to the log (trimmed, any credential it
    // echoes redacted), the user gets a plain sentence.
    const said = redact(refusal.message, bearer).slice(0, 300);
    return new HarborError("REMOTE_AGENT_FAILED", "The remote agent refused the request.", { url, said, reason: refusal.reason });
  }
  return malformed(url, error instanceof SyntaxError ? "it is not valid JSON" : "it does not follow the A2A protocol");
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, "[redacted]") : text;
}

function duration(ms: number): string {
  if (ms === 1000) return "1 second";
  return ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`;
}
