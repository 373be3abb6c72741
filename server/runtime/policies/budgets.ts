/**
 * Model token budgets: per tenant and per user, per UTC day and month, checked before each model
 * request (never after): at 80 % the run's log says so once, at 100 % the run ends with
 * BUDGET_EXCEEDED before the request is sent. Tokens are counted as the model reported them, after
 * each request. A tenant's admins set its limits; the deployment's settings are the defaults.
 */
import type { Database } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import {
  addUsage,
  findBudgets,
  saveBudgets,
  usageByUser,
  usageTotals,
  type BudgetLimits,
  type UsageTotals,
} from "@/server/db/queries/budgets";
import type { BudgetPeriod, BudgetScope, RunEvent, TokenCount } from "@/server/domain";
import { assertAdmin, hasRole, verifiedOnly, type Identity } from "../access";
import type { RunState } from "../agent";
import { HarborError } from "../errors";

/** The deployment's limits in tokens (0: no limit), for tenants that set none of their own. */
export interface BudgetDefaults {
  tenantDaily: number;
  tenantMonthly: number;
  userDaily: number;
  userMonthly: number;
}

/** From this share of a budget on, the run's log warns. */
const WARN_AT = 0.8;

type Effective = Record<keyof BudgetDefaults, number>;

const BUDGETS: { key: keyof BudgetDefaults; scope: BudgetScope; period: BudgetPeriod; used: keyof UsageTotals }[] = [
  { key: "tenantDaily", scope: "tenant", period: "day", used: "tenantDay" },
  { key: "tenantMonthly", scope: "tenant", period: "month", used: "tenantMonth" },
  { key: "userDaily", scope: "user", period: "day", used: "userDay" },
  { key: "userMonthly", scope: "user", period: "month", used: "userMonth" },
];

function effective(own: BudgetLimits, defaults: BudgetDefaults): Effective {
  return {
    tenantDaily: own.tenantDaily ?? defaults.tenantDaily,
    tenantMonthly: own.tenantMonthly ?? defaults.tenantMonthly,
    userDaily: own.userDaily ?? defaults.userDaily,
    userMonthly: own.userMonthly ?? defaults.userMonthly,
  };
}

const anyLimit = (limits: Effective) => Object.values(limits).some((limit) => limit > 0);

function exceeded(scope: BudgetScope, period: BudgetPeriod, used: number, limit: number): HarborError {
  const whose = scope === "tenant" ? "This workspace" : "You";
  const when = period === "day" ? "today (UTC)" : "this month (UTC)";
  return new HarborError(
    "BUDGET_EXCEEDED",
    `${whose} used ${used.toLocaleString("en")} of ${limit.toLocaleString("en")} model tokens ${when}: the model was not asked. An admin can raise the budget.`,
    { scope, period, used, limit },
  );
}

export function budgetService(db: Database, defaults: BudgetDefaults) {
  /** The limits in force for a tenant: its own, else the deployment's. */
  const limitsOf = async (tenantId: string) => effective(await findBudgets(db, tenantId), defaults);

  return {
    /**
     * Before a model request of `run`: throws BUDGET_EXCEEDED when a budget it draws on is used up;
     * otherwise the warnings (80 % or more) that `warned` has not said yet for this run.
     */
    async check(run: Pick<RunState, "tenantId" | "ownerId">, warned: Set<string>): Promise<RunEvent[]> {
      const limits = await limitsOf(run.tenantId);
      if (!anyLimit(limits)) return [];
      const used = await usageTotals(db, run.tenantId, run.ownerId);
      const warnings: RunEvent[] = [];
      for (const budget of BUDGETS) {
        const limit = limits[budget.key];
        if (limit <= 0) continue;
        const spent = used[budget.used];
        if (spent >= limit) throw exceeded(budget.scope, budget.period, spent, limit);
        if (spent >= limit * WARN_AT && !warned.has(budget.key)) {
          warned.add(budget.key);
          warnings.push({ type: "budget.warning", scope: budget.scope, period: budget.period, used: spent, limit });
        }
      }
      return warnings;
    },

    /** Counts what one model request reported against its run's tenant and user. */
    async record(run: Pick<RunState, "tenantId" | "ownerId">, usage: TokenCount | undefined): Promise<void> {
      if (!usage || usage.inputTokens + usage.outputTokens === 0) return;
      await addUsage(db, { tenantId: run.tenantId, userId: run.ownerId, ...usage });
    },

    /** The limits (the tenant's own, the defaults, in force) and the usage: every user's for admins, one's own for members. */
    async view(identity: Identity) {
      const own = await findBudgets(db, identity.tenantId);
      const admin = hasRole(identity, "admin");
      return {
        own,
        defaults,
        limits: effective(own, defaults),
        usage: await usageByUser(db, identity.tenantId, admin ? undefined : identity.userId),
      };
    },

    /** Sets the tenant's own limits (null: the deployment's; 0: none); admins only, audited. */
    async set(identity: Identity, limits: BudgetLimits) {
      assertAdmin(identity, "model budgets");
      const verified = verifiedOnly(identity);
      const before = await findBudgets(db, verified.tenantId);
      await db.transaction(async (tx) => {
        await saveBudgets(tx, verified.tenantId, limits, verified.userId);
        await appendAudit(tx, {
          tenantId: verified.tenantId,
          actorId: verified.userId,
          action: "budget.set",
          subjectType: "tenant",
          subjectId: verified.tenantId,
          outcome: "changed",
          details: { from: { ...before }, to: { ...limits } },
        });
      });
    },
  };
}

export type BudgetService = ReturnType<typeof budgetService>;
