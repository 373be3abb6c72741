/** A tenant's own policies (retention days, model budgets): one row, each column null until set. */
import type { Executor } from "../client";
import { tenantPolicies } from "../schema";

type PolicyColumns = Omit<typeof tenantPolicies.$inferInsert, "tenantId" | "updatedBy" | "updatedAt">;

/** Writes some of a tenant's policy columns (the others stay), saying who changed them and when. */
export async function saveTenantPolicy(db: Executor, tenantId: string, columns: PolicyColumns, userId: string): Promise<void> {
  const values = { ...columns, updatedBy: userId, updatedAt: new Date() };
  await db
    .insert(tenantPolicies)
    .values({ tenantId, ...values })
    .onConflictDoUpdate({ target: tenantPolicies.tenantId, set: values });
}
