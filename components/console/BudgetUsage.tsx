import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { BudgetMeter, Reported, tokensOf, type BudgetView, type Period } from "./BudgetMeter";

const UNTIL: Record<Period, string> = { day: "until midnight UTC", month: "until the month ends (UTC)" };
const NONE = { inputTokens: 0, outputTokens: 0, requests: 0 };

/** The tenant's tokens today and this month: every user's added up (admins get every user's rows). */
function tenantTotals(view: BudgetView) {
  const add = (period: Period) =>
    view.usage.reduce(
      (sum, u) => ({
        inputTokens: sum.inputTokens + u[period].inputTokens,
        outputTokens: sum.outputTokens + u[period].outputTokens,
        requests: sum.requests + u[period].requests,
      }),
      NONE,
    );
  return { day: add("day"), month: add("month") };
}

/** The whole workspace's use against its own budgets (admins). */
export function WorkspaceUsage({ view }: { view: BudgetView }) {
  const totals = tenantTotals(view);
  return (
    <Card data-testid="workspace-usage">
      <CardHeader>
        <CardTitle>Workspace usage</CardTitle>
        <CardDescription>Everyone in your organisation together, in tokens as the model reported them.</CardDescription>
      </CardHeader>
      {/* Beside the limits on wide screens the card is half as wide: the meters go one above the other. */}
      <CardContent className="grid gap-6 sm:grid-cols-2 lg:grid-cols-1">
        <BudgetMeter
          label="Today (UTC)"
          period="day"
          used={tokensOf(totals.day)}
          limit={view.limits.tenantDaily}
          detail={<Reported tokens={totals.day} />}
          full={`The workspace's daily budget is used up: runs now stop before asking the model, ${UNTIL.day} or until it is raised.`}
          testId="tenant-day"
        />
        <BudgetMeter
          label="This month (UTC)"
          period="month"
          used={tokensOf(totals.month)}
          limit={view.limits.tenantMonthly}
          detail={<Reported tokens={totals.month} />}
          full={`The workspace's monthly budget is used up: runs now stop before asking the model, ${UNTIL.month} or until it is raised.`}
          testId="tenant-month"
        />
      </CardContent>
    </Card>
  );
}

/** A member's own use against the limits each user has (the only usage a member is shown). */
export function YourUsage({ view }: { view: BudgetView }) {
  // A member's answer holds their own row only, or none before their first model request this month.
  const mine = view.usage[0] ?? { day: NONE, month: NONE };
  return (
    <Card data-testid="your-usage">
      <CardHeader>
        <CardTitle>Your usage</CardTitle>
        <CardDescription>
          Your own model use, in tokens as the model reported them, against the limits your organisation&apos;s admins set for each person.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6 sm:grid-cols-2">
        <BudgetMeter
          label="Today (UTC)"
          period="day"
          used={tokensOf(mine.day)}
          limit={view.limits.userDaily}
          detail={<Reported tokens={mine.day} />}
          full={`Your daily budget is used up: your runs now stop before asking the model, ${UNTIL.day}. An admin can raise it.`}
          testId="user-day"
        />
        <BudgetMeter
          label="This month (UTC)"
          period="month"
          used={tokensOf(mine.month)}
          limit={view.limits.userMonthly}
          detail={<Reported tokens={mine.month} />}
          full={`Your monthly budget is used up: your runs now stop before asking the model, ${UNTIL.month}. An admin can raise it.`}
          testId="user-month"
        />
      </CardContent>
    </Card>
  );
}
