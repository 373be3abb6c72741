"use client";

import { useQuery } from "@tanstack/react-query";
import { ChevronRightIcon, SendIcon } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge, type BadgeTone } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";
import type { WebhookDeliveryStatus } from "@/server/domain";
import { relative } from "./format";

type Delivery = RouterOutputs["webhooks"]["deliveries"][number];

const STATUS_TONES: Record<WebhookDeliveryStatus, BadgeTone> = { pending: "warning", delivered: "success", failed: "danger" };

const clock = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });

/** How long until `iso`, in words a glance reads: "in 12s", "in 5m", "in 3h", "now". */
function until(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (seconds <= 0) return "now";
  if (seconds < 60) return `in ${seconds}s`;
  if (seconds < 3600) return `in ${Math.floor(seconds / 60)}m`;
  return `in ${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}

/** What the receiver answered: its status, or why there was none (a refused connection, a timeout). */
function answer(statusCode: number | null, error: string | null): string {
  if (statusCode === null) return error ?? "no answer";
  // A status other than 2xx is the error itself: said once.
  return error && error !== `answered HTTP ${statusCode}` ? `HTTP ${statusCode} — ${error}` : `HTTP ${statusCode}`;
}

/** A webhook's recent deliveries, newest first, refreshed every few seconds while the page is open. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const trpc = useTRPC();
  const deliveries = useQuery(trpc.webhooks.deliveries.queryOptions({ webhookId, limit: 50 }, { refetchInterval: 2_000 }));
  return (
    <section className="grid gap-2" aria-labelledby="deliveries-title">
      <div className="flex items-baseline justify-between gap-2">
        <h3 id="deliveries-title" className="text-sm font-semibold">
          Recent deliveries
        </h3>
        {deliveries.data ? <span className="text-xs text-muted-foreground">latest {deliveries.data.length} of at most 50</span> : null}
      </div>
      {deliveries.isPending ? (
        <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading deliveries">
          {[0, 1, 2].map((n) => (
            <Skeleton key={n} className="h-16 rounded-xl" />
          ))}
        </div>
      ) : deliveries.isError ? (
        <ErrorAlert>Could not load the deliveries: {deliveries.error.message}</ErrorAlert>
      ) : deliveries.data.length === 0 ? (
        <Card>
          <EmptyState icon={SendIcon} title="Nothing sent yet." data-testid="deliveries-empty">
            A message is sent here each time a pause it listens for is requested, resolved or expires.
          </EmptyState>
        </Card>
      ) : (
        <ul className="grid gap-2" data-testid="deliveries">
          {deliveries.data.map((d) => (
            <DeliveryItem key={d.id} delivery={d} />
          ))}
        </ul>
      )}
    </section>
  );
}

function DeliveryItem({ delivery: d }: { delivery: Delivery }) {
  const [open, setOpen] = useState(false);
  const data = (d.payload.data ?? {}) as Record<string, unknown>;
  const tool = typeof data.toolName === "string" ? data.toolName : typeof data.kind === "string" ? data.kind : null;
  // The pause's status says something once it is decided or gone; an escalation says to whom.
  const pauseStatus =
    d.event === "pause.escalated" && typeof data.escalatedTo === "string"
      ? `to ${data.escalatedTo}`
      : typeof data.status === "string" && (d.event === "pause.resolved" || d.event === "pause.expired")
        ? data.status
        : null;
  const logId = `attempts-${d.id}`;
  return (
    <li data-testid="delivery" data-delivery-id={d.id} data-status={d.status} data-event={d.event}>
      <Card className="grid gap-2 p-3 sm:p-4">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <Badge tone={STATUS_TONES[d.status]} data-testid="delivery-status">
            {d.status === "pending" ? <span className="size-1.5 animate-pulse-soft rounded-full bg-current" aria-hidden="true" /> : null}
            {d.status}
          </Badge>
          <span className="font-mono text-sm font-medium">{d.event}</span>
          {tool ? (
            // On a phone it takes a line of its own, under the event.
            <span
              className="order-last basis-full text-sm text-muted-foreground sm:order-none sm:basis-auto"
              data-testid="delivery-subject"
            >
              <span className="hidden sm:inline" aria-hidden="true">
                ·{" "}
              </span>
              {tool}
              {pauseStatus ? ` · ${pauseStatus}` : ""}
            </span>
          ) : null}
          <time dateTime={d.createdAt} title={clock(d.createdAt)} className="ml-auto text-xs whitespace-nowrap text-muted-foreground">
            {relative(d.createdAt)}
          </time>
        </div>
        <dl className="grid grid-cols-2 gap-x-4 gap-y-1.5 text-xs sm:grid-cols-4">
          <div className="min-w-0">
            <dt className="text-muted-foreground">Attempts</dt>
            <dd className="font-medium tabular-nums">{d.attempts}</dd>
          </div>
          <div className="min-w-0">
            <dt className="text-muted-foreground">Last answer</dt>
            <dd className={cn("font-medium [overflow-wrap:anywhere]", d.lastError && "text-danger-fg")} data-testid="delivery-answer">
              {d.attempts === 0 ? "—" : answer(d.lastStatusCode, d.lastError)}
            </dd>
          </div>
          <div className="min-w-0">
            <dt className="text-muted-foreground">{d.status === "delivered" ? "Delivered" : "Next attempt"}</dt>
            <dd className="font-medium">
              {d.status === "delivered" && d.deliveredAt ? (
                <time dateTime={d.deliveredAt} title={clock(d.deliveredAt)}>
                  {relative(d.deliveredAt)}
                </time>
              ) : d.status === "pending" && d.nextAttemptAt ? (
                <time dateTime={d.nextAttemptAt} title={clock(d.nextAttemptAt)}>
                  {until(d.nextAttemptAt)}
                </time>
              ) : d.status === "failed" ? (
                "none: given up"
              ) : (
                "—"
              )}
            </dd>
          </div>
          <div className="min-w-0">
            <dt className="text-muted-foreground">Created</dt>
            <dd className="font-medium">
              <time dateTime={d.createdAt}>{clock(d.createdAt)}</time>
            </dd>
          </div>
        </dl>
        {d.log.length > 0 ? (
          <div className="grid gap-2">
            <button
              type="button"
              className="flex cursor-pointer items-center gap-1 justify-self-start rounded text-xs font-medium text-primary underline-offset-2 hover:underline"
              aria-expanded={open}
              aria-controls={logId}
              onClick={() => setOpen((o) => !o)}
            >
              <ChevronRightIcon className={cn("size-3.5 transition-transform", open && "rotate-90")} aria-hidden="true" />
              {open ? "Hide" : "Show"} {d.log.length === 1 ? "the attempt" : `all ${d.log.length} attempts`}
            </button>
            {open ? (
              <ol id={logId} className="grid gap-1 border-l-2 pl-3 text-xs" data-testid="delivery-attempts">
                {d.log.map((a) => (
                  <li key={a.attempt} className="flex flex-wrap gap-x-3 gap-y-0.5">
                    <span className="font-medium">Attempt {a.attempt}</span>
                    <span
                      className={cn(
                        "[overflow-wrap:anywhere]",
                        a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300 ? "text-success-fg" : "text-danger-fg",
                      )}
                    >
                      {answer(a.statusCode, a.error)}
                    </span>
                    <span className="text-muted-foreground tabular-nums">{a.durationMs} ms</span>
                    <time dateTime={a.at} className="text-muted-foreground">
                      {clock(a.at)}
                    </time>
                  </li>
                ))}
              </ol>
            ) : null}
          </div>
        ) : null}
      </Card>
    </li>
  );
}
