import { auditDownload } from "@/server/api/audit-download";
import { errorResponse } from "@/server/edge/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { asHarborError, HarborError } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * `GET /api/audit/export?from=2026-01-01&to=2026-12-31&format=jsonl|csv`: the tenant's hash-chained
 * audit log for the range as a file download (admins; session or bearer token). Check it with
 * `node scripts/verify-audit.mjs <file>`.
 */
export async function GET(request: Request) {
  const requestId = requestIdFrom(request.headers);
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  const log = requestLogger(requestId);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
    return await auditDownload(h.runtime.audit, identity, new URL(request.url).searchParams, headers, log);
  } catch (thrown) {
    if (!HarborError.is(thrown)) log.error({ err: thrown }, "audit export request failed");
    return errorResponse(asHarborError(thrown), headers);
  }
}
