/**
 * tRPC v11: context, procedures and error formatting. No data transformer, so curl speaks plain JSON.
 */
import "server-only";
import { initTRPC } from "@trpc/server";
import { ZodError } from "zod";
import { identityFrom } from "@/server/auth/identity";
import { settings } from "@/server/config";
import { harbor, type Harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger, type LogLines } from "@/server/log";
import { asHarborError, HarborError, hasRole, type VerifiedIdentity } from "@/server/runtime";
import { withTrpcPings } from "@/server/edge/sse";
import { toTRPCError } from "@/server/edge/errors";

/**
 * What procedures may use: the runtime and the services beside it, never the database. (Identity is
 * derived here, from the session or a bearer token, before any procedure runs.)
 */
export type ProcedureServices = Pick<Harbor, "runtime" | "agents" | "oauth" | "outbox">;

export interface Context {
  harbor: ProcedureServices;
  identity: VerifiedIdentity | null;
  requestId: string;
  log: LogLines;
}

export async function createContext(headers: Headers): Promise<Context> {
  const h = await harbor();
  const requestId = requestIdFrom(headers);
  const services: ProcedureServices = { runtime: h.runtime, agents: h.agents, oauth: h.oauth, outbox: h.outbox };
  return { harbor: services, identity: await identityFrom(h.db, headers), requestId, log: requestLogger(requestId) };
}

/**
 * What a subscription's stream tells tRPC's client (in its `connected` event): a client that hears
 * nothing at all, not even a ping, for three ping intervals takes the connection for dead and
 * opens a new one (`runs.events` resumes from Last-Event-ID).
 */
export function subscriptionSse(pingMs: number) {
  return { client: { reconnectAfterInactivityMs: 3 * pingMs } };
}

/**
 * A subscription's response with tRPC's ping event after HARBOR_SSE_PING_MS of silence, so proxies
 * keep a quiet feed (an inbox with nothing new) open. Added to the stream's bytes rather than by
 * tRPC's `sse.ping`, which costs a timer per event (see `withTrpcPings`). Other responses pass.
 */
export function withSubscriptionPings(response: Response): Response {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  return new Response(withTrpcPings(response.body, settings().ssePingMs), response);
}

const t = initTRPC.context<Context>().create({
  // A getter, read as each subscription opens: `next build` loads this module too, without the
  // server's environment, so the settings must not be read when it loads.
  sse: {
    get client() {
      return subscriptionSse(settings().ssePingMs).client;
    },
  },
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // An unexpected failure before any procedure ran (creating the context) keeps its text to the log.
    const unexpected = error.code === "INTERNAL_SERVER_ERROR" && !HarborError.is(cause);
    return {
      ...shape,
      message: unexpected ? asHarborError(cause).message : shape.message,
      data: {
        ...shape.data,
        // Never ship stack traces to clients.
        stack: undefined,
        harborCode: HarborError.is(cause) ? cause.code : undefined,
        zodIssues: cause instanceof ZodError ? cause.issues : undefined,
      },
    };
  },
});

/**
 * Runtime errors become their tRPC equivalents here, for every procedure. Anything unexpected is
 * logged and answered as INTERNAL: a driver's message can hold SQL and its values.
 */
const mapErrors = t.middleware(async ({ next, ctx, path }) => {
  const result = await next();
  if (result.ok) return result;
  const cause = result.error.cause;
  if (HarborError.is(cause)) return { ...result, error: toTRPCError(cause) } as typeof result;
  if (result.error.code !== "INTERNAL_SERVER_ERROR") return result;
  ctx.log.error({ err: cause ?? result.error, path }, "tRPC procedure failed");
  return { ...result, error: toTRPCError(asHarborError(cause)) } as typeof result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapErrors);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
  return next({ ctx: { ...ctx, identity: ctx.identity } });
});

export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (!hasRole(ctx.identity, "admin")) throw new HarborError("FORBIDDEN", "Admins only.");
  return next();
});
