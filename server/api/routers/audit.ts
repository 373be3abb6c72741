import { z } from "zod";
import { AUDIT_EXPORT_PAGE_ROWS, AuditExportRequest } from "@/server/runtime";
import { adminProcedure, createTRPCRouter } from "../trpc";

export const auditRouter = createTRPCRouter({
  /**
   * A page of the tenant's hash-chained audit log for a date range (at most 366 days), as JSON
   * Lines or CSV, each row with its `prev_hash` and `hash` (admins). Pass `nextAfterSeq` back as
   * `afterSeq` for the next page.
   */
  export: adminProcedure
    .input(
      AuditExportRequest.extend({
        afterSeq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
        limit: z.number().int().min(1).max(AUDIT_EXPORT_PAGE_ROWS).optional(),
      }),
    )
    .query(({ ctx, input }) => ctx.harbor.runtime.audit.exportPage(ctx.identity, input)),
});
