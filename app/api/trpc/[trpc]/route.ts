import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";

export const dynamic = "force-dynamic";

function handler(request: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: () => createContext(request.headers),
    // The request id of the log lines, so a caller can quote it.
    responseMeta: ({ ctx }) => (ctx ? { headers: new Headers({ "x-request-id": ctx.requestId }) } : {}),
  });
}

export { handler as GET, handler as POST };
