import { errorResponse } from "@/server/api/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { asHarborError, AuditExportRequest, HarborError, InvalidInputError } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * `GET /api/audit/export?from=2026-01-01&to=2026-12-31&format=jsonl|csv`: the tenant's hash-chained
 * audit log for the range as a file download (admins; session or bearer token). Streamed a page at
 * a time; check it with `node scripts/verify-audit.mjs <file>`.
 */
export async function GET(request: Request) {
  const requestId = requestIdFrom(request.headers);
  const headers = { "x-request-id": requestId, "cache-control": "no-store" };
  const log = requestLogger(requestId);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) throw new HarborError("UNAUTHENTICATED", "Sign in or send a bearer token.");
    const params = new URL(request.url).searchParams;
    const parsed = AuditExportRequest.safeParse({
      from: params.get("from") ?? undefined,
      to: params.get("to") ?? undefined,
      format: params.get("format") ?? "jsonl",
    });
    if (!parsed.success) throw new InvalidInputError(String(parsed.error.issues[0]?.path[0] ?? "from"), "not valid");
    const { from, to, format } = parsed.data;
    const chunks = (await h.runtime.audit.openExport(identity, parsed.data))[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          log.error({ err: error }, "audit export failed mid-stream");
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return?.();
      },
    });
    const name = `harbor-audit-${from.slice(0, 10)}-${to.slice(0, 10)}.${format}`;
    return new Response(body, {
      headers: {
        ...headers,
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/jsonl; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
      },
    });
  } catch (thrown) {
    if (!HarborError.is(thrown)) log.error({ err: thrown }, "audit export request failed");
    return errorResponse(asHarborError(thrown), headers);
  }
}
