import { errorResponse } from "@/server/api/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { asHarborError, HarborError } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** `GET /api/responses/{responseId}`: an external wait's status, output or error — for its owner only. */
export async function GET(request: Request, { params }: { params: Promise<{ responseId: string }> }) {
  const requestId = requestIdFrom(request.headers);
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
    const { responseId } = await params;
    return Response.json(await h.runtime.responses.get(identity, responseId), { headers });
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, "response request failed");
    return errorResponse(asHarborError(thrown), headers);
  }
}
