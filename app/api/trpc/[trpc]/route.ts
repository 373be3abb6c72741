import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { errorResponse } from "@/server/api/errors";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";
import { log } from "@/server/log";
import { HarborError } from "@/server/runtime";
import { readBoundedText } from "@/server/transport/body";

export const dynamic = "force-dynamic";

async function handler(request: Request) {
  let bounded = request;
  if (request.method === "POST") {
    // The fetch adapter has no body limit of its own: read it here, within the 1 MiB limit.
    try {
      const body = await readBoundedText(request);
      const headers = new Headers(request.headers);
      headers.delete("content-length");
      headers.delete("transfer-encoding");
      bounded = new Request(request.url, { method: "POST", headers, body });
    } catch (error) {
      if (HarborError.is(error)) return errorResponse(error);
      throw error;
    }
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: bounded,
    router: appRouter,
    createContext: () => createContext(bounded.headers),
    // The request id of the log lines, so a caller can quote it.
    responseMeta: ({ ctx }) => (ctx ? { headers: new Headers({ "x-request-id": ctx.requestId }) } : {}),
    // Procedures log their own failures; this catches the ones before a context exists.
    onError: ({ error, ctx, path }) => {
      if (!ctx && error.code === "INTERNAL_SERVER_ERROR") log.error({ err: error.cause ?? error, path }, "tRPC request failed");
    },
  });
}

export { handler as GET, handler as POST };
