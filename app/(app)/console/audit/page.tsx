import { ShieldAlertIcon } from "lucide-react";
import { PageMessage } from "@/components/PageMessage";
import { AuditExport } from "@/components/console/AuditExport";
import { requireIdentity } from "@/server/auth/session";
import { AUDIT_EXPORT_MAX_DAYS, hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

export default async function AuditExportPage() {
  const identity = await requireIdentity("/console/audit");
  if (!hasRole(identity, "admin")) {
    return (
      <PageMessage icon={ShieldAlertIcon} title="Admins only" testId="console-forbidden">
        The audit export is for your organisation&apos;s admins.
      </PageMessage>
    );
  }
  return (
    <div className="grid flex-1 place-items-start justify-items-center overflow-y-auto p-4 sm:p-8">
      <AuditExport maxDays={AUDIT_EXPORT_MAX_DAYS} />
    </div>
  );
}
