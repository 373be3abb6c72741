import { CircleCheckIcon, CircleSlashIcon, type LucideIcon } from "lucide-react";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "@/components/ui/cn";

export type CardTone = "pending" | "approved" | "closed";

const TONE_BORDER: Record<CardTone, string> = {
  pending: "border-warning-border",
  approved: "border-success-border",
  closed: "border-border",
};
const TONE_ICON: Record<CardTone, string> = {
  pending: "bg-warning-bg text-warning-fg",
  approved: "bg-success-bg text-success-fg",
  closed: "bg-neutral-bg text-neutral-fg",
};

/**
 * The frame every request in a conversation or the inbox shares: an icon, a title and a status
 * badge on top, then what is asked, then what the viewer can do (or what happened).
 */
export function InteractionCard({
  tone,
  icon: Icon,
  title,
  titleAs: Title = "h2",
  badge,
  className,
  children,
  ...props
}: Omit<ComponentProps<"article">, "title"> & {
  tone: CardTone;
  icon: LucideIcon;
  title: ReactNode;
  titleAs?: "h2" | "h3";
  badge: ReactNode;
}) {
  return (
    <article className={cn("grid min-w-0 gap-3 rounded-xl border bg-card p-4 shadow-xs", TONE_BORDER[tone], className)} {...props}>
      <header className="flex min-w-0 items-start gap-3">
        <span className={cn("grid size-8 shrink-0 place-items-center rounded-lg", TONE_ICON[tone])}>
          <Icon className="size-4" aria-hidden="true" />
        </span>
        <Title className="min-w-0 flex-1 self-center text-[0.9375rem] leading-snug font-semibold [overflow-wrap:anywhere]">{title}</Title>
        <span className="self-center">{badge}</span>
      </header>
      {children}
    </article>
  );
}

/** The arguments of a call, label above value on phones and beside it on wider screens; long values wrap. */
export function ArgList({ entries }: { entries: [string, string][] }) {
  if (entries.length === 0) return null;
  return (
    <dl className="grid gap-x-4 gap-y-2 rounded-lg bg-muted/60 px-3 py-2.5 text-sm sm:grid-cols-[minmax(5rem,max-content)_minmax(0,1fr)]">
      {entries.map(([label, value]) => (
        <div key={label} className="grid min-w-0 gap-0.5 sm:col-span-2 sm:grid-cols-subgrid sm:gap-x-4">
          <dt className="text-muted-foreground capitalize">{label}</dt>
          <dd className="min-w-0 font-medium whitespace-pre-wrap [overflow-wrap:anywhere]">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What happened, in one line: done (a check) or not done (a slashed circle). */
export function Outcome({ ok, children }: { ok: boolean; children: ReactNode }) {
  const Icon = ok ? CircleCheckIcon : CircleSlashIcon;
  return (
    <p
      className={cn(
        "flex items-start gap-1.5 text-sm font-medium [overflow-wrap:anywhere]",
        ok ? "text-success-fg" : "text-muted-foreground",
      )}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span className="min-w-0">{children}</span>
    </p>
  );
}

/** Small print under a card's controls. */
export function FinePrint({ className, ...props }: ComponentProps<"p">) {
  return <p className={cn("text-xs text-muted-foreground", className)} {...props} />;
}
