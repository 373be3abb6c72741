/**
 * One tool call on its own session, as a small state machine the run loop steps through:
 * `start` and `answer` each resolve with what happened next — the result, a form the owner must
 * fill in (the call then waits, holding its session: the live handle), a page the owner must open
 * (the call is let go, to be tried again), or the server's demand for authorization.
 *
 * Two clocks: the server's silence (no answer, no progress for `timeoutMs`) fails the call with
 * MCP_TIMEOUT and cancels it there; the owner's silence (a form unanswered for `holdMs`) lets the
 * session go, so an abandoned question never holds a connection for ever.
 */
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import {
  HarborError,
  type McpCallOutcome,
  type McpCallRequest,
  type McpElicitAnswer,
  type McpLiveCall,
  type McpServerAddress,
} from "@/server/runtime";
import { isUnauthorized, unreachable, wantedBy, type Session } from "./session";

/** The most characters of a result's text kept (and shown to the model). */
const MAX_RESULT_CHARS = 100_000;
/** How long a cancelled call's session stays open for its `notifications/cancelled` to get out. */
const CANCEL_GRACE_MS = 2_000;
/** Longer than any wait here: the SDK's own per-request clock is replaced by the two below. */
const NO_SDK_TIMEOUT = 2_147_483_647;

export interface CallLimits {
  allowLocal: boolean;
  timeoutMs: number;
  holdMs: number;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const UrlElicitation = z.object({ url: z.string(), elicitationId: z.string(), message: z.string().optional() });

export class LiveToolCall implements McpLiveCall {
  private session: Session | undefined;
  private next = deferred<McpCallOutcome>();
  /** The server's question, waiting for the owner's answer. */
  private question: ((result: ElicitResult) => void) | undefined;
  private readonly abort = new AbortController();
  private silence: NodeJS.Timeout | undefined;
  private hold: NodeJS.Timeout | undefined;
  private timedOut = false;
  private ended = false;

  constructor(
    private readonly server: McpServerAddress,
    private readonly tool: string,
    private readonly request: McpCallRequest,
    private readonly limits: CallLimits,
  ) {}

  /** Calls the tool on `session` (opened with `elicited` as its question handler). */
  start(session: Session): Promise<McpCallOutcome> {
    this.session = session;
    this.listenSilence();
    const signal = this.request.signal ? AbortSignal.any([this.request.signal, this.abort.signal]) : this.abort.signal;
    session.client
      .callTool({ name: this.tool, arguments: this.request.args }, CallToolResultSchema, {
        signal,
        timeout: NO_SDK_TIMEOUT,
        onprogress: (p) => {
          this.listenSilence();
          this.request.onProgress?.({
            progress: p.progress,
            ...(p.total !== undefined ? { total: p.total } : {}),
            ...(p.message ? { message: p.message } : {}),
          });
        },
      })
      .then((result) => this.settle({ type: "result", result: this.resultOf(CallToolResultSchema.parse(result)) }))
      .catch((error: unknown) => void this.failed(error));
    return this.next.promise;
  }

  /** The session's question handler: a form waits for the owner; a page ends this attempt. */
  elicited(params: ElicitRequest["params"]): Promise<ElicitResult> {
    if (params.mode === "url") {
      const page = UrlElicitation.parse(params);
      this.settle({
        type: "url",
        message: page.message ?? "Open this page to continue.",
        url: page.url,
        elicitationId: page.elicitationId,
      });
      return Promise.resolve({ action: "cancel" });
    }
    clearTimeout(this.silence);
    this.hold = setTimeout(() => this.close(), this.limits.holdMs);
    this.hold.unref();
    const answered = new Promise<ElicitResult>((resolve) => (this.question = resolve));
    const form = params as { message: string; requestedSchema: Record<string, unknown> };
    this.next.resolve({ type: "form", message: form.message, schema: form.requestedSchema, live: this });
    return answered;
  }

  answer(answer: McpElicitAnswer): Promise<McpCallOutcome> {
    const question = this.question;
    if (!question || this.ended) {
      return Promise.reject(new HarborError("MCP_FAILED", `The MCP server ${this.server.name} no longer waits for this answer.`));
    }
    this.question = undefined;
    clearTimeout(this.hold);
    this.next = deferred();
    this.listenSilence();
    question(elicitResultOf(answer));
    return this.next.promise;
  }

  close(): void {
    this.question?.({ action: "cancel" });
    this.question = undefined;
    this.abort.abort();
    this.end(CANCEL_GRACE_MS);
  }

  alive(): boolean {
    return !this.ended && this.question !== undefined && !this.session?.closed();
  }

  /** (Re)starts the server's clock: it must answer or report progress within `timeoutMs`. */
  private listenSilence(): void {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      this.timedOut = true;
      this.abort.abort();
    }, this.limits.timeoutMs);
    this.silence.unref();
  }

  /** Ends the call; `graceMs` keeps the session a moment so the cancellation it just sent reaches the server. */
  private end(graceMs = 0): void {
    this.ended = true;
    clearTimeout(this.silence);
    clearTimeout(this.hold);
    const session = this.session;
    if (graceMs === 0) void session?.close();
    else setTimeout(() => void session?.close(), graceMs).unref();
  }

  private settle(outcome: McpCallOutcome): void {
    this.end();
    this.next.resolve(outcome);
  }

  private async failed(error: unknown): Promise<void> {
    const wasEnded = this.ended;
    this.end(this.abort.signal.aborted || this.request.signal?.aborted ? CANCEL_GRACE_MS : 0);
    if (this.request.signal?.aborted) return this.next.reject(this.request.signal.reason ?? error);
    // Ended here on purpose (a page to open, an owner who never answered): nothing more to say.
    if (wasEnded) return this.next.reject(new HarborError("MCP_FAILED", `The call of ${this.tool} was let go.`));
    if (this.timedOut) {
      return this.next.reject(
        new HarborError(
          "MCP_TIMEOUT",
          `The MCP server ${this.server.name} did not answer ${this.tool} within ${this.limits.timeoutMs} ms.`,
          {
            server: this.server.name,
          },
        ),
      );
    }
    if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) return this.pageRequired(error);
    const challenge = this.session?.challenge();
    if (isUnauthorized(error) && challenge) {
      return this.next.resolve({ type: "unauthorized", ...(await wantedBy(this.server, challenge, this.limits.allowLocal)) });
    }
    if (error instanceof McpError) {
      const reason = error.message.slice(0, 300);
      return this.next.reject(
        Object.assign(
          new HarborError("MCP_FAILED", `The MCP server ${this.server.name} refused ${this.tool}: ${reason}`, { server: this.server.name }),
          {
            cause: error,
          },
        ),
      );
    }
    this.next.reject(unreachable(this.server, error));
  }

  /** `UrlElicitationRequiredError`: the first page it names; the call is tried again once the owner is done. */
  private pageRequired(error: McpError): void {
    const pages = z.object({ elicitations: z.array(UrlElicitation).min(1) }).safeParse(error.data);
    if (!pages.success) {
      return this.next.reject(new HarborError("MCP_FAILED", `The MCP server ${this.server.name} asked for a page without naming it.`));
    }
    const page = pages.data.elicitations[0]!;
    this.next.resolve({ type: "url", message: page.message ?? error.message, url: page.url, elicitationId: page.elicitationId });
  }

  private resultOf(result: CallToolResult) {
    const text = result.content
      .map((part) => {
        switch (part.type) {
          case "text":
            return part.text;
          case "resource":
            return "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
          case "resource_link":
            return `[${part.name}: ${part.uri}]`;
          case "image":
          case "audio":
            return `[${part.type} ${part.mimeType}]`;
        }
      })
      .join("\n");
    const structured = result.structuredContent;
    return {
      server: this.server.name,
      tool: this.tool,
      isError: result.isError ?? false,
      text: text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text,
      ...(structured ? { structured } : {}),
    };
  }
}

/** The owner's answer as MCP carries it: a form's values are strings, numbers, booleans or lists of strings. */
function elicitResultOf(answer: McpElicitAnswer): ElicitResult {
  if (answer.action !== "accept") return { action: answer.action };
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [key, value] of Object.entries(answer.content)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") content[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === "string")) content[key] = value;
  }
  return { action: "accept", content };
}
