import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { errorResponse } from "@/server/edge/errors";
import { appRouter } from "@/server/api/root";
import { createContext, withSubscriptionPings } from "@/server/api/trpc";
import { log } from "@/server/log";
import { HarborError } from "@/server/runtime";
import { readBoundedText } from "@/server/transport/body";
import { crossSiteRefusal, parseBoundedJson } from "@/server/transport/request-guards";

export const dynamic = "force-dynamic";

/** The most calls one batch may carry (a larger one is a 400). */
const MAX_BATCH = 10;

/**
 * Checks before tRPC reads anything: a cookie-authenticated write from another site is refused; the
 * body (within 1 MiB) and the query's `input` must be JSON no deeper than 64 levels, with storable text.
 */
async function guarded(request: Request): Promise<Request> {
  const crossSite = crossSiteRefusal(request);
  if (crossSite) throw crossSite;
  const input = new URL(request.url).searchParams.get("input");
  if (input !== null) parseBoundedJson(input, "input");
  if (request.method !== "POST") return request;
  // The fetch adapter has no body limit of its own: read it here.
  const body = await readBoundedText(request);
  if (body.length > 0) parseBoundedJson(body);
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(request.url, { method: "POST", headers, body });
}

async function handler(request: Request) {
  let checked: Request;
  try {
    checked = await guarded(request);
  } catch (error) {
    if (HarborError.is(error)) return errorResponse(error);
    throw error;
  }
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: checked,
    router: appRouter,
    maxBatchSize: MAX_BATCH,
    createContext: () => createContext(checked.headers),
    // The request id of the log lines, so a caller can quote it.
    responseMeta: ({ ctx }) => (ctx ? { headers: new Headers({ "x-request-id": ctx.requestId }) } : {}),
    // Procedures log their own failures; this catches the ones before a context exists.
    onError: ({ error, ctx, path }) => {
      if (!ctx && error.code === "INTERNAL_SERVER_ERROR") log.error({ err: error.cause ?? error, path }, "tRPC request failed");
    },
  });
  return withSubscriptionPings(response);
}

export { handler as GET, handler as POST };
