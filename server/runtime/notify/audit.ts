/**
 * The audit export: a tenant's hash-chained audit rows for a date range, as JSON Lines or CSV, for
 * its admins. The chain itself is kept by the database (the `audit_log` insert trigger); this module
 * only reads it, in bounded pages, and writes each row exactly as it was hashed so that
 * `scripts/verify-audit.mjs` can recompute every hash from the file alone.
 */
import { z } from "zod";
import type { Executor } from "@/server/db";
import { appendAudit, auditChainPage, type ChainedAuditRow } from "@/server/db/queries/audit";
import { ForbiddenError, InvalidInputError } from "../errors";
import { hasRole, type Identity } from "../access";

/** The longest range one export covers. */
export const AUDIT_EXPORT_MAX_DAYS = 366;
/** Rows per page: one tRPC answer at most, and one database read of a streamed download. */
export const AUDIT_EXPORT_PAGE_ROWS = 1000;

const DAY_MS = 86_400_000;
/** Instants an export may name (PostgreSQL has no year 0, and neither side needs the far future). */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9000, 0, 1);

/** A UTC day (`2026-12-01`: its start; as `to`, its end) or an exact moment with an offset. */
const moment = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

export const AuditExportFormat = z.enum(["jsonl", "csv"]);
export type AuditExportFormat = z.infer<typeof AuditExportFormat>;

/** What an export asks for, from any boundary (tRPC, the download route). */
export const AuditExportRequest = z.strictObject({
  from: moment,
  to: moment,
  format: AuditExportFormat,
});
export type AuditExportRequest = z.infer<typeof AuditExportRequest>;

/** The columns of both formats, in this order; the names are the canonical content's keys. */
export const AUDIT_EXPORT_COLUMNS = [
  "id",
  "seq",
  "tenant_id",
  "created_at",
  "actor_id",
  "action",
  "subject_type",
  "subject_id",
  "outcome",
  "details",
  "prev_hash",
  "hash",
] as const;

function startOf(value: string, end: boolean): Date {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = new Date(`${value}T00:00:00.000Z`);
    return end ? new Date(day.getTime() + DAY_MS) : day;
  }
  return new Date(value);
}

/** The range as half-open instants `[from, to)`; refused when empty or longer than the limit. */
export function exportRange(request: Pick<AuditExportRequest, "from" | "to">): { from: Date; to: Date } {
  const from = startOf(request.from, false);
  const to = startOf(request.to, true);
  if (Number.isNaN(from.getTime())) throw new InvalidInputError("from", "not a valid date");
  if (Number.isNaN(to.getTime())) throw new InvalidInputError("to", "not a valid date");
  if (from.getTime() < EARLIEST || from.getTime() > LATEST) throw new InvalidInputError("from", "must be between 1970 and 9000");
  if (to.getTime() < EARLIEST || to.getTime() > LATEST) throw new InvalidInputError("to", "must be between 1970 and 9000");
  if (to.getTime() <= from.getTime()) throw new InvalidInputError("to", "must be after from");
  if (to.getTime() - from.getTime() > AUDIT_EXPORT_MAX_DAYS * DAY_MS)
    throw new InvalidInputError("to", `an export covers at most ${AUDIT_EXPORT_MAX_DAYS} days`);
  return { from, to };
}

/** One row as a JSON Lines line: `details` is embedded as the stored jsonb text, untouched. */
function jsonLine(row: ChainedAuditRow): string {
  const s = (value: string | null) => JSON.stringify(value);
  return (
    `{"id":${row.id},"seq":${row.seq},"tenant_id":${s(row.tenantId)},"created_at":${s(row.createdAt)},` +
    `"actor_id":${s(row.actorId)},"action":${s(row.action)},"subject_type":${s(row.subjectType)},` +
    `"subject_id":${s(row.subjectId)},"outcome":${s(row.outcome)},"details":${row.details},` +
    `"prev_hash":${s(row.prevHash)},"hash":${s(row.hash)}}\n`
  );
}

/**
 * A spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
 * formula (a member can name a thread `=HYPERLINK(…)`). Such a value gets a leading `'`, which
 * spreadsheets show as text; a value that starts with `'` gets one too, so reading strips exactly
 * one from any field that starts with it (`scripts/verify-audit.mjs` does).
 */
const FORMULA_START = /^[=+\-@\t\r']/;

/** RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled; formulas neutralised. */
function csvField(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** One row as a CSV record (CRLF); a null `actor_id` is the empty field. */
function csvLine(row: ChainedAuditRow): string {
  const fields = [
    String(row.id),
    String(row.seq),
    row.tenantId,
    row.createdAt,
    row.actorId ?? "",
    row.action,
    row.subjectType,
    row.subjectId,
    row.outcome,
    row.details,
    row.prevHash,
    row.hash,
  ];
  return `${fields.map(csvField).join(",")}\r\n`;
}

export const CSV_HEADER = `${AUDIT_EXPORT_COLUMNS.join(",")}\r\n`;

function render(rows: readonly ChainedAuditRow[], format: AuditExportFormat): string {
  return rows.map(format === "jsonl" ? jsonLine : csvLine).join("");
}

export interface AuditExportPage {
  format: AuditExportFormat;
  /** This page's text: JSON Lines, or CSV (its header on the first page only). */
  content: string;
  rows: number;
  /** Pass as `afterSeq` for the next page; null when this was the last. */
  nextAfterSeq: number | null;
}

export function auditService(db: Executor) {
  function authorize(identity: Identity): void {
    if (!hasRole(identity, "admin")) throw new ForbiddenError("Only admins export the audit log.");
  }

  /** The export itself is recorded, once per export (its first page). */
  async function recordExport(identity: Identity, range: { from: Date; to: Date }, format: AuditExportFormat, via: string) {
    await appendAudit(db, {
      tenantId: identity.tenantId,
      actorId: identity.userId,
      action: "audit.export",
      subjectType: "audit",
      subjectId: identity.tenantId,
      outcome: "exported",
      details: { from: range.from.toISOString(), to: range.to.toISOString(), format, via },
    });
  }

  async function page(identity: Identity, range: { from: Date; to: Date }, afterSeq: number, limit: number) {
    return auditChainPage(db, { tenantId: identity.tenantId, from: range.from, to: range.to, afterSeq, limit });
  }

  return {
    /** One page of the caller's tenant's export (admins); start with `afterSeq` 0. */
    exportPage: async (
      identity: Identity,
      request: AuditExportRequest & { afterSeq?: number; limit?: number },
    ): Promise<AuditExportPage> => {
      authorize(identity);
      const range = exportRange(request);
      const afterSeq = request.afterSeq ?? 0;
      const limit = Math.min(request.limit ?? AUDIT_EXPORT_PAGE_ROWS, AUDIT_EXPORT_PAGE_ROWS);
      if (afterSeq === 0) await recordExport(identity, range, request.format, "trpc");
      const rows = await page(identity, range, afterSeq, limit);
      const header = request.format === "csv" && afterSeq === 0 ? CSV_HEADER : "";
      return {
        format: request.format,
        content: header + render(rows, request.format),
        rows: rows.length,
        nextAfterSeq: rows.length === limit ? (rows.at(-1)?.seq ?? null) : null,
      };
    },

    /**
     * The whole export as text chunks, read a page at a time (so memory stays bounded however many
     * rows the range holds). Checks and records the export before it returns.
     */
    openExport: async (identity: Identity, request: AuditExportRequest): Promise<AsyncIterable<string>> => {
      authorize(identity);
      const range = exportRange(request);
      await recordExport(identity, range, request.format, "download");
      return (async function* () {
        if (request.format === "csv") yield CSV_HEADER;
        let afterSeq = 0;
        for (;;) {
          const rows = await page(identity, range, afterSeq, AUDIT_EXPORT_PAGE_ROWS);
          if (rows.length > 0) yield render(rows, request.format);
          const last = rows.at(-1);
          if (!last || rows.length < AUDIT_EXPORT_PAGE_ROWS) return;
          afterSeq = last.seq;
        }
      })();
    },
  };
}
