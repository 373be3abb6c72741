import { useId, type ReactNode } from "react";
import type { RouterOutputs } from "@/components/trpc/types";
import { Badge } from "@/components/ui/Badge";
import { cn } from "@/components/ui/cn";

export type BudgetView = RouterOutputs["budgets"]["get"];
export type UserUsage = BudgetView["usage"][number];
export type LimitKey = keyof BudgetView["limits"];
export type Period = "day" | "month";
type Tokens = UserUsage["day"];

/** Thousands separators, the same on every screen and as the server's own messages say them. */
export const count = (n: number) => n.toLocaleString("en");

/** What a budget counts: input and output together, as the model reported them. */
export const tokensOf = (t: Tokens) => t.inputTokens + t.outputTokens;

/** "1 request", "12 requests". */
export const requests = (n: number) => `${count(n)} ${n === 1 ? "request" : "requests"}`;

/** From this share of a budget on, runs warn in their log (the server's own threshold). */
const WARN_AT = 0.8;

/** Where a use stands against its limit: no limit, fine, near (runs warn), full (runs stop). */
export type Level = "none" | "ok" | "near" | "full";

export function levelOf(used: number, limit: number): Level {
  if (limit <= 0) return "none";
  if (used >= limit) return "full";
  return used >= limit * WARN_AT ? "near" : "ok";
}

/**
 * The share as a person reads it, rounded down so that 99.6 % never shows as the 100 % at which runs
 * stop; some use that rounds to nothing still shows as "< 1 %".
 */
export function percentOf(used: number, limit: number): string {
  const percent = Math.floor((used / limit) * 100);
  return percent === 0 && used > 0 ? "< 1 %" : `${count(percent)} %`;
}

const WHEN: Record<Period, string> = { day: "today", month: "this month" };

/** "41,200 of 50,000 tokens today · 82 %", or "41,200 tokens today" (the "No limit" badge says the rest). */
export function usageText(used: number, limit: number, period: Period): string {
  return limit > 0
    ? `${count(used)} of ${count(limit)} tokens ${WHEN[period]} · ${percentOf(used, limit)}`
    : `${count(used)} tokens ${WHEN[period]}`;
}

const FILL: Record<Level, string> = {
  none: "bg-primary",
  ok: "bg-primary",
  near: "bg-warning-fg",
  full: "bg-danger-fg",
};
// The track shows what is left of the budget, so it has to be seen in both schemes (muted was too faint).
const TRACK: Record<Level, string> = {
  none: "bg-border",
  ok: "bg-border",
  near: "bg-warning-bg ring-1 ring-warning-border ring-inset",
  full: "bg-danger-bg",
};

/** Level words next to the colour, so the meter never speaks by colour alone. */
export function LevelBadge({ level }: { level: Level }) {
  if (level === "near") return <Badge tone="warning">Near the limit</Badge>;
  if (level === "full") return <Badge tone="danger">Used up</Badge>;
  if (level === "none") return <Badge>No limit</Badge>;
  return null;
}

/**
 * One budget as a labelled meter: the bar (role="meter", its value in words for screen readers), the
 * numbers under it, and from 80 % a sentence on what runs do about it. Without a limit there is no
 * bar, only the tokens used.
 */
export function BudgetMeter({
  label,
  period,
  used,
  limit,
  full,
  detail,
  testId,
}: {
  label: string;
  period: Period;
  used: number;
  limit: number;
  /** What is said once the budget is used up: whose runs stop, and until when. */
  full: string;
  detail?: ReactNode;
  testId?: string;
}) {
  const id = useId();
  const level = levelOf(used, limit);
  const text = usageText(used, limit, period);
  // Some use always shows as a sliver, however large the budget.
  const width = limit > 0 ? Math.min(100, Math.max(used > 0 ? 1 : 0, (used / limit) * 100)) : 0;
  return (
    <div className="grid content-start gap-2" data-testid={testId} data-level={level}>
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <span id={`${id}-label`} className="text-sm font-medium">
          {label}
        </span>
        <LevelBadge level={level} />
      </div>
      {limit > 0 ? (
        <div
          role="meter"
          aria-labelledby={`${id}-label`}
          aria-valuemin={0}
          aria-valuemax={limit}
          // A meter's value stays within its range; the words say by how much it is past.
          aria-valuenow={Math.min(used, limit)}
          aria-valuetext={text}
          className={cn("h-2.5 overflow-hidden rounded-full", TRACK[level])}
        >
          <div className={cn("h-full rounded-full transition-[width] duration-300", FILL[level])} style={{ width: `${width}%` }} />
        </div>
      ) : null}
      <p className="text-sm font-medium tabular-nums" data-testid={testId ? `${testId}-text` : undefined}>
        {text}
      </p>
      {detail ? <p className="text-xs text-muted-foreground tabular-nums">{detail}</p> : null}
      {level === "full" ? (
        <p className="text-sm text-danger-fg" data-testid={testId ? `${testId}-full` : undefined}>
          {full}
        </p>
      ) : level === "near" ? (
        <p className="text-sm text-warning-fg">Runs now say so in their log; at 100 % they stop before asking the model.</p>
      ) : null}
    </div>
  );
}

/** "30,000 in · 11,200 out · 3 requests": what the model reported, for a line under a meter or a cell. */
export function Reported({ tokens }: { tokens: Tokens }) {
  return (
    <>
      {count(tokens.inputTokens)} in · {count(tokens.outputTokens)} out · {requests(tokens.requests)}
    </>
  );
}
