/**
 * Model token budgets' statements: a tenant's own limits, the tokens models reported (added per
 * tenant, user and UTC day after each request), and the sums a budget is checked against.
 */
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Executor } from "../client";
import { tenantPolicies } from "../schema";
import { column, rowsOf } from "./rows";
import { saveTenantPolicy } from "./tenant-policies";

/** Limits in tokens (input and output together); null follows the deployment's, 0 is no limit. */
export interface BudgetLimits {
  tenantDaily: number | null;
  tenantMonthly: number | null;
  userDaily: number | null;
  userMonthly: number | null;
}

export async function findBudgets(db: Executor, tenantId: string): Promise<BudgetLimits> {
  const [row] = await db.select().from(tenantPolicies).where(eq(tenantPolicies.tenantId, tenantId));
  return {
    tenantDaily: row?.tenantDailyTokens ?? null,
    tenantMonthly: row?.tenantMonthlyTokens ?? null,
    userDaily: row?.userDailyTokens ?? null,
    userMonthly: row?.userMonthlyTokens ?? null,
  };
}

export async function saveBudgets(db: Executor, tenantId: string, limits: BudgetLimits, userId: string): Promise<void> {
  await saveTenantPolicy(
    db,
    tenantId,
    {
      tenantDailyTokens: limits.tenantDaily,
      tenantMonthlyTokens: limits.tenantMonthly,
      userDailyTokens: limits.userDaily,
      userMonthlyTokens: limits.userMonthly,
    },
    userId,
  );
}

/** Adds one model request's reported tokens to its user's day (UTC). */
export async function addUsage(
  db: Executor,
  usage: { tenantId: string; userId: string; inputTokens: number; outputTokens: number },
): Promise<void> {
  await db.execute(sql`
    insert into model_usage (tenant_id, user_id, day, input_tokens, output_tokens, requests)
    values (${usage.tenantId}, ${usage.userId}, (now() at time zone 'utc')::date, ${usage.inputTokens}, ${usage.outputTokens}, 1)
    on conflict (tenant_id, user_id, day) do update set
      input_tokens = model_usage.input_tokens + excluded.input_tokens,
      output_tokens = model_usage.output_tokens + excluded.output_tokens,
      requests = model_usage.requests + 1`);
}

export interface UsageTotals {
  tenantDay: number;
  tenantMonth: number;
  userDay: number;
  userMonth: number;
}

/** What a budget check compares: the tenant's and the user's tokens today and this month (UTC), in one statement. */
export async function usageTotals(db: Executor, tenantId: string, userId: string): Promise<UsageTotals> {
  const result = await db.execute(sql`
    select
      coalesce(sum(input_tokens + output_tokens) filter (where day = today), 0) as tenant_day,
      coalesce(sum(input_tokens + output_tokens), 0) as tenant_month,
      coalesce(sum(input_tokens + output_tokens) filter (where day = today and user_id = ${userId}), 0) as user_day,
      coalesce(sum(input_tokens + output_tokens) filter (where user_id = ${userId}), 0) as user_month
    from model_usage, (select (now() at time zone 'utc')::date as today) d
    where tenant_id = ${tenantId} and day >= date_trunc('month', d.today)::date`);
  const [row] = rowsOf(
    result,
    z.object({ tenant_day: column.number, tenant_month: column.number, user_day: column.number, user_month: column.number }),
  );
  return {
    tenantDay: row?.tenant_day ?? 0,
    tenantMonth: row?.tenant_month ?? 0,
    userDay: row?.user_day ?? 0,
    userMonth: row?.user_month ?? 0,
  };
}

export interface UserUsage {
  userId: string;
  email: string | null;
  day: { inputTokens: number; outputTokens: number; requests: number };
  month: { inputTokens: number; outputTokens: number; requests: number };
}

/** Each user's tokens today and this month (UTC), as models reported them; `userId` narrows it to one. */
export async function usageByUser(db: Executor, tenantId: string, userId?: string): Promise<UserUsage[]> {
  const result = await db.execute(sql`
    select m.user_id, u.email,
      coalesce(sum(m.input_tokens) filter (where m.day = d.today), 0) as day_in,
      coalesce(sum(m.output_tokens) filter (where m.day = d.today), 0) as day_out,
      coalesce(sum(m.requests) filter (where m.day = d.today), 0) as day_requests,
      sum(m.input_tokens) as month_in, sum(m.output_tokens) as month_out, sum(m.requests) as month_requests
    from model_usage m
      cross join (select (now() at time zone 'utc')::date as today) d
      left join users u on u.id = m.user_id
    where m.tenant_id = ${tenantId} and m.day >= date_trunc('month', d.today)::date
      ${userId ? sql`and m.user_id = ${userId}` : sql``}
    group by m.user_id, u.email
    order by sum(m.input_tokens + m.output_tokens) desc`);
  return rowsOf(
    result,
    z.object({
      user_id: z.string(),
      email: z.string().nullable(),
      day_in: column.number,
      day_out: column.number,
      day_requests: column.number,
      month_in: column.number,
      month_out: column.number,
      month_requests: column.number,
    }),
  ).map((r) => ({
    userId: r.user_id,
    email: r.email,
    day: { inputTokens: r.day_in, outputTokens: r.day_out, requests: r.day_requests },
    month: { inputTokens: r.month_in, outputTokens: r.month_out, requests: r.month_requests },
  }));
}
