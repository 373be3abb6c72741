import { UsersIcon } from "lucide-react";
import { Badge, type BadgeTone } from "@/components/ui/Badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { count, levelOf, percentOf, tokensOf, type BudgetView, type Level, type UserUsage } from "./BudgetMeter";

const TONE: Record<Level, BadgeTone> = { none: "neutral", ok: "neutral", near: "warning", full: "danger" };

/** Most use first: this month's tokens, then today's, then by email so the order holds still. */
function byUse(a: UserUsage, b: UserUsage): number {
  return (
    tokensOf(b.month) - tokensOf(a.month) || tokensOf(b.day) - tokensOf(a.day) || (a.email ?? a.userId).localeCompare(b.email ?? b.userId)
  );
}

/** A user's share of each user limit, as badges that say their level in words; "No limit" when there is none. */
function Shares({ usage, limits }: { usage: UserUsage; limits: BudgetView["limits"] }) {
  const shares = [
    { period: "Today", used: tokensOf(usage.day), limit: limits.userDaily },
    { period: "Month", used: tokensOf(usage.month), limit: limits.userMonthly },
  ].filter((s) => s.limit > 0);
  if (shares.length === 0) return <span className="text-muted-foreground">No limit</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {shares.map((s) => {
        const level = levelOf(s.used, s.limit);
        return (
          <Badge key={s.period} tone={TONE[level]} className="tabular-nums">
            {s.period} {percentOf(s.used, s.limit)}
            {level === "full" ? <span className="sr-only"> (used up)</span> : null}
          </Badge>
        );
      })}
    </span>
  );
}

const who = (u: UserUsage) => u.email ?? u.userId;

/**
 * Each user's tokens today and this month (admins): a table on wide screens, a card per user on
 * narrow ones, so nothing scrolls sideways on a phone.
 */
export function UsageByUser({ view }: { view: BudgetView }) {
  const rows = [...view.usage].sort(byUse);
  return (
    <Card data-testid="usage-by-user">
      <CardHeader>
        <CardTitle>By user</CardTitle>
        <CardDescription>
          Input and output tokens as the model reported them, and model requests, per UTC day and month. Most use first.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {rows.length === 0 ? (
          <EmptyState icon={UsersIcon} title="No model use yet this month" data-testid="usage-empty">
            Each person&apos;s tokens show here after their first model request.
          </EmptyState>
        ) : (
          <>
            <table className="hidden w-full text-sm tabular-nums lg:table" data-testid="usage-table">
              <colgroup span={1} />
              <colgroup span={3} />
              <colgroup span={3} />
              <colgroup span={1} />
              <thead className="text-xs text-muted-foreground">
                <tr>
                  <th scope="col" rowSpan={2} className="pb-2 text-left align-bottom font-medium">
                    User
                  </th>
                  <th scope="colgroup" colSpan={3} className="border-b px-2 pb-1 text-center font-medium">
                    Today
                  </th>
                  <th scope="colgroup" colSpan={3} className="border-b px-2 pb-1 text-center font-medium">
                    This month
                  </th>
                  <th scope="col" rowSpan={2} className="pb-2 pl-3 text-left align-bottom font-medium">
                    Of each user&apos;s limits
                  </th>
                </tr>
                <tr>
                  {["Input", "Output", "Requests", "Input", "Output", "Requests"].map((label, i) => (
                    <th key={i} scope="col" className="px-2 pt-1 pb-2 text-right font-medium">
                      {label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((u) => (
                  <tr key={u.userId} className="border-t" data-testid="usage-row" data-user={who(u)}>
                    <th scope="row" className="max-w-64 py-2.5 pr-2 text-left font-medium [overflow-wrap:anywhere]">
                      {who(u)}
                    </th>
                    <td className="px-2 py-2.5 text-right">{count(u.day.inputTokens)}</td>
                    <td className="px-2 py-2.5 text-right">{count(u.day.outputTokens)}</td>
                    <td className="px-2 py-2.5 text-right">{count(u.day.requests)}</td>
                    <td className="px-2 py-2.5 text-right">{count(u.month.inputTokens)}</td>
                    <td className="px-2 py-2.5 text-right">{count(u.month.outputTokens)}</td>
                    <td className="px-2 py-2.5 text-right">{count(u.month.requests)}</td>
                    <td className="py-2.5 pl-3">
                      <Shares usage={u} limits={view.limits} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <ul className="grid gap-3 sm:grid-cols-2 lg:hidden" data-testid="usage-cards">
              {rows.map((u) => (
                <li key={u.userId} className="grid content-start gap-2 rounded-lg border p-3" data-testid="usage-card" data-user={who(u)}>
                  <span className="text-sm font-medium [overflow-wrap:anywhere]">{who(u)}</span>
                  {/* The wide table's numbers, one small table per user: columns a phone has room for. */}
                  <table className="w-full text-sm tabular-nums">
                    <thead className="text-xs text-muted-foreground">
                      <tr>
                        <th scope="col" className="pb-1 text-left font-medium">
                          <span className="sr-only">Period</span>
                        </th>
                        {["Input", "Output", "Requests"].map((label) => (
                          <th key={label} scope="col" className="pb-1 pl-2 text-right font-medium">
                            {label}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {(["day", "month"] as const).map((period) => (
                        <tr key={period} className="border-t">
                          <th scope="row" className="py-1.5 text-left font-normal text-muted-foreground">
                            {period === "day" ? "Today" : "This month"}
                          </th>
                          <td className="py-1.5 pl-2 text-right">{count(u[period].inputTokens)}</td>
                          <td className="py-1.5 pl-2 text-right">{count(u[period].outputTokens)}</td>
                          <td className="py-1.5 pl-2 text-right">{count(u[period].requests)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
                    <span className="text-muted-foreground">Of user limits</span>
                    <Shares usage={u} limits={view.limits} />
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </CardContent>
    </Card>
  );
}
