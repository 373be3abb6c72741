import { z } from "zod";
import { errorResponse } from "@/server/edge/errors";
import { id } from "@/server/edge/inputs";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { asHarborError, HarborError, InvalidInputError } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * `GET /api/responses/{responseId}[?threadId=…]`: an external wait's status, output or error — for
 * its owner only (and, with `threadId`, only in the thread it began in).
 */
export async function GET(request: Request, { params }: { params: Promise<{ responseId: string }> }) {
  const requestId = requestIdFrom(request.headers);
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
    const { responseId } = await params;
    const threadId = new URL(request.url).searchParams.get("threadId") ?? undefined;
    const parsed = z.object({ responseId: id, threadId: id.optional() }).safeParse({ responseId, threadId });
    if (!parsed.success) throw new InvalidInputError(String(parsed.error.issues[0]?.path[0] ?? "responseId"), "not a valid id");
    return Response.json(await h.runtime.responses.get(identity, parsed.data.responseId, parsed.data.threadId), { headers });
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, "response request failed");
    return errorResponse(asHarborError(thrown), headers);
  }
}
