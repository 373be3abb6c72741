import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";
import { log } from "@/server/log";

export const dynamic = "force-dynamic";

function handler(request: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createContext(request.headers),
    // The request id of the log lines, so a caller can quote it.
    responseMeta: ({ ctx }) => (ctx ? { headers: new Headers({ "x-request-id": ctx.requestId }) } : {}),
    // Procedures log their own failures; this catches the ones before a context exists.
    onError: ({ error, ctx, path }) => {
      if (!ctx && error.code === "INTERNAL_SERVER_ERROR") log.error({ err: error.cause ?? error, path }, "tRPC request failed");
    },
  });
}

export { handler as GET, handler as POST };
