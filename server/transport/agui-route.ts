/**
 * `POST /api/agents/{agentId}/runs`: validates an AG-UI `RunAgentInput`, derives identity,
 * starts the run and streams its events as SSE. Everything refusable is refused with an HTTP
 * status before the stream starts; after that, `RUN_ERROR` is the only error channel.
 */
import "server-only";
import type { IncomingMessage as NodeRequest, ServerResponse } from "node:http";
import { EventType, type BaseEvent, type Message, type RunErrorEvent } from "@ag-ui/core";
import { RunAgentInputSchema } from "@ag-ui/core/schemas";
import { z } from "zod";
import { errorAnswer, errorResponse } from "@/server/edge/errors";
import { nodeRequest, type EdgeRequest } from "@/server/edge/node-request";
import { settings } from "@/server/config";
import { id } from "@/server/edge/inputs";
import { identityFrom, rememberedIdentityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { log as serverLog, requestIdFrom, requestLogger } from "@/server/log";
import {
  asHarborError,
  HarborError,
  InvalidInputError,
  StaleCredentialError,
  isRemembered,
  type Identity,
  type IncomingMessage,
  type LoggedEvent,
  type StartRunRequest,
} from "@/server/runtime";
import { FORWARDED_PROPS_KEY, MULTITASK_POLICIES } from "@/server/domain";
import { runCancelled, runStarted, toAguiEvents, type TransportRun } from "./agui";
import { aguiPeerOf } from "./agui-version";
import { readJsonBody } from "./body";
import { crossSiteRefusal } from "./request-guards";
import { sseResponse, writeSse } from "@/server/edge/sse";

/** Harbor's limits on top of the AG-UI schema, and its own `forwardedProps.harbor` options. */
const HarborRunInput = z.object({
  threadId: id,
  runId: id,
  forwardedProps: z.object({ [FORWARDED_PROPS_KEY]: z.object({ multitask: z.enum(MULTITASK_POLICIES).optional() }).optional() }).optional(),
});

function firstIssue(error: z.ZodError): InvalidInputError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join(".") : "body";
  return new InvalidInputError(field, issue?.message ?? "invalid");
}

/** AG-UI message content may be text or content parts; the transcript keeps the text. */
function textOf(message: Message): string {
  const content = "content" in message ? message.content : undefined;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part && "text" in part && typeof part.text === "string" ? part.text : ""))
      .join("");
  }
  return "";
}

function toIncoming(messages: readonly Message[]): IncomingMessage[] {
  return messages.flatMap((m): IncomingMessage[] => {
    if (m.role === "tool") return [{ id: m.id, role: "tool", content: textOf(m), toolCallId: m.toolCallId }];
    return m.role === "user" || m.role === "assistant" || m.role === "system" || m.role === "developer"
      ? [{ id: m.id, role: m.role, content: textOf(m) }]
      : [];
  });
}

function isEmptyState(state: unknown): boolean {
  if (state === undefined || state === null) return true;
  if (Array.isArray(state)) return state.length === 0;
  return typeof state === "object" && Object.keys(state).length === 0;
}

async function* aguiStream(batches: AsyncIterableIterator<LoggedEvent[]>, transport: TransportRun): AsyncGenerator<BaseEvent[]> {
  for await (const batch of batches) yield batch.flatMap((logged) => toAguiEvents(logged, transport));
}

/** A refused request is still a well-formed transport run: it starts, then errors with the rule's code. */
async function* refusal(error: HarborError, transport: TransportRun): AsyncGenerator<BaseEvent[]> {
  const timestamp = Date.now();
  yield [
    runStarted(transport, timestamp),
    { type: EventType.RUN_ERROR, message: error.message, code: error.code, timestamp } satisfies RunErrorEvent,
  ];
}

/** Interrupts nobody could answer any more, abandoned: the transport run starts and finishes cancelled. */
async function* abandonment(transport: TransportRun): AsyncGenerator<BaseEvent[]> {
  const timestamp = Date.now();
  yield [runStarted(transport, timestamp), runCancelled(transport, timestamp)];
}

/** The identity `find` gives, or a 401. */
async function lookedUp(find: () => Promise<Identity | null>): Promise<Identity> {
  const identity = await find();
  if (!identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
  return identity;
}

/** What the endpoint answers, before it is put on a wire: a refusal with its status, or the stream. */
type AguiAnswer = { headers: Record<string, string> } & ({ error: HarborError } | { events: AsyncIterator<BaseEvent[]> });

async function answerAgentRun(request: EdgeRequest, agentId: string): Promise<AguiAnswer> {
  const requestId = requestIdFrom(request.headers);
  const log = requestLogger(requestId);
  const headers = { "x-request-id": requestId };
  try {
    const h = await harbor();
    // A new message's first statement writes, and so does an answer to a gate parked here: each
    // checks a remembered identity's credential as it does (see rememberedIdentityFrom).
    let identity = await lookedUp(() => rememberedIdentityFrom(h.db, request.headers));
    const crossSite = crossSiteRefusal(request);
    if (crossSite) throw crossSite;

    const body = await readJsonBody(request);
    const parsed = RunAgentInputSchema.safeParse(body);
    if (!parsed.success) throw firstIssue(parsed.error);
    const limits = HarborRunInput.safeParse(parsed.data);
    if (!limits.success) throw firstIssue(limits.error);
    const input = parsed.data;
    // Before anything starts: a client of another major version is told so, not half-served.
    const peer = aguiPeerOf(input.protocolVersion);
    // A message longer than the limit is refused whole (never cut): the user sees which one.
    const maxChars = settings().maxMessageChars;
    const tooLong = input.messages.findIndex((m) => m.role === "user" && textOf(m).length > maxChars);
    if (tooLong !== -1) throw new InvalidInputError(`messages[${tooLong}].content`, `longer than ${maxChars} characters`);
    const multitask = limits.data.forwardedProps?.[FORWARDED_PROPS_KEY]?.multitask;

    const transport: TransportRun = { threadId: input.threadId, runId: input.runId, peer };
    const run: StartRunRequest = {
      agentId,
      threadId: input.threadId,
      transportRunId: input.runId,
      messages: toIncoming(input.messages),
      state: input.state && typeof input.state === "object" && !Array.isArray(input.state) ? input.state : undefined,
      resume: input.resume?.map((entry) => ({ interactionId: entry.interruptId, status: entry.status, payload: entry.payload })),
      // As sent, before anything is dropped or reshaped: a private answer must come without either.
      carriesTranscript: input.messages.length > 0 || !isEmptyState(input.state),
      requestId,
      ...(multitask ? { multitask } : {}),
    };
    // A browser tool's result is read before anything is written: its identity is looked up.
    if (isRemembered(identity) && run.messages.some((m) => m.role === "tool")) {
      identity = await lookedUp(() => identityFrom(h.db, request.headers));
    }
    let started;
    try {
      started = await h.runtime.startRun(identity, run);
    } catch (thrown) {
      if (!StaleCredentialError.is(thrown)) throw thrown;
      // The remembered credential failed its check, or the run was refused: once more, looked up.
      identity = await lookedUp(() => rememberedIdentityFrom(h.db, request.headers, { fresh: true }));
      started = await h.runtime.startRun(identity, run);
    }
    if ("refused" in started) {
      log.info({ agentId, threadId: input.threadId, userId: identity.userId, code: started.refused.code }, "run refused");
      return { headers, events: refusal(started.refused, transport) };
    }
    if ("abandoned" in started) {
      log.info({ agentId, runId: started.abandoned.runId, threadId: input.threadId, userId: identity.userId }, "interrupts abandoned");
      return { headers, events: abandonment(transport) };
    }
    log.info({ agentId, runId: started.runId, threadId: started.threadId, userId: identity.userId }, "run started");
    return { headers, events: aguiStream(started.events, transport) };
  } catch (thrown) {
    if (!HarborError.is(thrown)) log.error({ err: thrown }, "AG-UI run request failed");
    return { headers, error: asHarborError(thrown) };
  }
}

/** The endpoint as Next's route handler serves it (app/api/agents/[agentId]/runs). */
export async function handleAgentRun(request: Request, agentId: string): Promise<Response> {
  const answer = await answerAgentRun(request, agentId);
  if ("error" in answer) return errorResponse(answer.error, answer.headers);
  return sseResponse(answer.events, request.signal, { headers: answer.headers, pingMs: settings().ssePingMs });
}

/**
 * The endpoint served from Node's HTTP server itself, in front of Next's router (see
 * server/lifecycle.ts): the same answers, written without a web Request, Response or stream.
 * The caller has set the headers every API answer carries.
 */
export function serveAgentRun(req: NodeRequest, res: ServerResponse, agentId: string, port: number): void {
  const request = nodeRequest(req, res, port);
  void answerAgentRun(request, agentId)
    .then((answer) => {
      if ("events" in answer) return writeSse(res, answer.events, { headers: answer.headers, pingMs: settings().ssePingMs });
      const { status, headers, body } = errorAnswer(answer.error, answer.headers);
      res.writeHead(status, headers).end(body);
    })
    .catch((error: unknown) => {
      // answerAgentRun answers every failure itself; only writing the answer can get here.
      serverLog.error({ err: error }, "AG-UI answer could not be written");
      res.destroy();
    });
}
