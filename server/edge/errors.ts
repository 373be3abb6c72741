/**
 * The one place where runtime error codes become HTTP statuses and tRPC codes. (An AG-UI `RUN_ERROR`
 * carries the runtime code itself.)
 */
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { type HarborError, type ErrorCode } from "@/server/runtime";

/**
 * Each code's HTTP status and tRPC code. On the AG-UI stream, `RUN_ERROR.code` is the runtime code
 * itself: the documented, closed set a client switches on.
 */
const MAPPING: Record<ErrorCode, { http: number; trpc: TRPC_ERROR_CODE_KEY }> = {
  UNAUTHENTICATED: { http: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { http: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { http: 404, trpc: "NOT_FOUND" },
  INVALID_INPUT: { http: 400, trpc: "BAD_REQUEST" },
  UNSUPPORTED_PROTOCOL: { http: 400, trpc: "BAD_REQUEST" },
  PAYLOAD_TOO_LARGE: { http: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  PENDING_INTERACTION: { http: 409, trpc: "CONFLICT" },
  THREAD_FULL: { http: 409, trpc: "CONFLICT" },
  UNKNOWN_INTERRUPT: { http: 404, trpc: "NOT_FOUND" },
  ALREADY_RESOLVED: { http: 409, trpc: "CONFLICT" },
  ALREADY_VOTED: { http: 409, trpc: "CONFLICT" },
  LINK_USED: { http: 409, trpc: "CONFLICT" },
  EXPIRED: { http: 412, trpc: "PRECONDITION_FAILED" },
  INCOMPLETE_RESUME: { http: 400, trpc: "BAD_REQUEST" },
  INTERACTION_LOST: { http: 412, trpc: "PRECONDITION_FAILED" },
  INSTANCE_LOST: { http: 503, trpc: "SERVICE_UNAVAILABLE" },
  INSTANCE_STOPPING: { http: 503, trpc: "SERVICE_UNAVAILABLE" },
  OVERLOADED: { http: 503, trpc: "SERVICE_UNAVAILABLE" },
  PRIVATE_RESUME_HAS_TRANSCRIPT: { http: 400, trpc: "BAD_REQUEST" },
  ERR_TOOL_CONTEXT_LOST: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  ERR_TOOL_STATE_NOT_SERIALIZABLE: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  RUN_ENDED: { http: 409, trpc: "CONFLICT" },
  RUN_STATE_CONFLICT: { http: 409, trpc: "CONFLICT" },
  RUN_IN_PROGRESS: { http: 409, trpc: "CONFLICT" },
  TOO_MANY_INSTRUCTIONS: { http: 429, trpc: "TOO_MANY_REQUESTS" },
  TOO_MANY_SUBSCRIPTIONS: { http: 429, trpc: "TOO_MANY_REQUESTS" },
  TOOL_FAILED: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  REMOTE_AGENT_UNAVAILABLE: { http: 502, trpc: "BAD_GATEWAY" },
  REMOTE_AGENT_TIMEOUT: { http: 504, trpc: "TIMEOUT" },
  REMOTE_AGENT_FAILED: { http: 502, trpc: "BAD_GATEWAY" },
  MCP_UNAVAILABLE: { http: 502, trpc: "BAD_GATEWAY" },
  MCP_TIMEOUT: { http: 504, trpc: "TIMEOUT" },
  MCP_FAILED: { http: 502, trpc: "BAD_GATEWAY" },
  OAUTH_FAILED: { http: 502, trpc: "BAD_GATEWAY" },
  MODEL_UNAVAILABLE: { http: 502, trpc: "BAD_GATEWAY" },
  MODEL_OUTPUT_TOO_LARGE: { http: 502, trpc: "BAD_GATEWAY" },
  QUOTA_EXCEEDED: { http: 409, trpc: "CONFLICT" },
  BUDGET_EXCEEDED: { http: 429, trpc: "TOO_MANY_REQUESTS" },
  STEP_LIMIT: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  STATE_UNREADABLE: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
  INTERNAL: { http: 500, trpc: "INTERNAL_SERVER_ERROR" },
};

export function httpStatusOf(code: ErrorCode): number {
  return MAPPING[code].http;
}

export function toTRPCError(error: HarborError): TRPCError {
  return new TRPCError({ code: MAPPING[error.code].trpc, message: error.message, cause: error });
}

/** An HTTP error answer as plain values, for an edge that writes Node's response itself (errorResponse's twin). */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The JSON body of an HTTP error answer: `{ error: { code, message, field? } }`. */
export function errorAnswer(error: HarborError, headers: Record<string, string> = {}): ErrorAnswer {
  return {
    status: httpStatusOf(error.code),
    headers: { "content-type": "application/json", ...retryAfterOf(error), ...headers },
    body: JSON.stringify({ error: { code: error.code, message: error.message, ...error.details } }),
  };
}

/** errorAnswer as a web Response. */
export function errorResponse(error: HarborError, headers: HeadersInit = {}): Response {
  const answer = errorAnswer(error, Object.fromEntries(new Headers(headers)));
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** A refusal that says when to try again (`details.retryAfterS`) says it the HTTP way too. */
function retryAfterOf(error: HarborError): Record<string, string> {
  const seconds = error.details.retryAfterS;
  return typeof seconds === "number" ? { "retry-after": String(seconds) } : {};
}
