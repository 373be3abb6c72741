import { Budgets } from "@/components/console/Budgets";
import { requireIdentity } from "@/server/auth/session";
import { hasRole } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** Every signed-in user may open it: admins see and set the tenant's budgets, members their own use. */
export default async function BudgetsPage() {
  const identity = await requireIdentity("/console/budgets");
  return <Budgets admin={hasRole(identity, "admin")} />;
}
