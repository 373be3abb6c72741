/**
 * The audit export as an HTTP file download (`GET /api/audit/export`): the query string checked,
 * then the runtime's export streamed a page at a time with `Content-Disposition: attachment`.
 */
import { AuditExportRequest, InvalidInputError, type Identity, type Runtime } from "@/server/runtime";
import type { LogLines } from "@/server/log";

export async function auditDownload(
  audit: Pick<Runtime["audit"], "openExport">,
  identity: Identity,
  params: URLSearchParams,
  headers: Record<string, string>,
  log: LogLines,
): Promise<Response> {
  const parsed = AuditExportRequest.safeParse({
    from: params.get("from") ?? undefined,
    to: params.get("to") ?? undefined,
    format: params.get("format") ?? "jsonl",
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "from");
    throw new InvalidInputError(field, field === "format" ? "must be jsonl or csv" : "must be a date (YYYY-MM-DD) or an ISO date-time");
  }
  const { from, to, format } = parsed.data;
  const chunks = (await audit.openExport(identity, parsed.data))[Symbol.asyncIterator]();
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
}
