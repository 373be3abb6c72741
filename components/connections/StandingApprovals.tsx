"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CheckCheckIcon, ShieldOffIcon } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * Standing approvals the viewer gave or may use (admins: the tenant's): what each allows, where,
 * until when, how often it was used — and a way to revoke it (later requests ask again).
 */
export function StandingApprovals() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const list = useQuery(trpc.grants.list.queryOptions());
  const [confirming, setConfirming] = useState<string | null>(null);
  const revoke = useMutation(
    trpc.grants.revoke.mutationOptions({
      onSuccess: () => toast({ tone: "success", title: "Standing approval revoked", detail: "Later requests will ask again." }),
      onSettled: () => {
        setConfirming(null);
        return queryClient.invalidateQueries({ queryKey: trpc.grants.list.queryKey() });
      },
    }),
  );

  return (
    <section className="grid gap-3" aria-labelledby="standing-approvals-title" data-testid="standing-approvals">
      <div className="grid gap-1">
        <h2 id="standing-approvals-title" className="text-lg font-semibold tracking-tight">
          Standing approvals
        </h2>
        <p className="text-sm text-muted-foreground">
          Requests these cover go ahead without asking. Revoke one and the next such request asks again.
        </p>
      </div>
      {list.isPending ? (
        <div className="grid gap-3" role="status" aria-busy="true" aria-label="Loading standing approvals">
          <Skeleton className="h-20 rounded-xl" />
        </div>
      ) : list.isError ? (
        <ErrorAlert>Could not load standing approvals: {list.error.message}</ErrorAlert>
      ) : list.data.length === 0 ? (
        <Card>
          <EmptyState icon={CheckCheckIcon} title="No standing approvals." data-testid="grants-empty">
            When you approve a request, choose “Allow from now on…” to let similar ones through for a while.
          </EmptyState>
        </Card>
      ) : (
        <ul className="grid gap-3">
          {list.data.map((g) => (
            <li key={g.grantId} data-testid="grant" data-grant-id={g.grantId}>
              <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center">
                <span className="grid size-10 shrink-0 place-items-center rounded-lg bg-info-bg text-info-fg">
                  <CheckCheckIcon className="size-5" aria-hidden="true" />
                </span>
                <div className="min-w-0 flex-1">
                  <div className="flex flex-wrap items-center gap-2">
                    <h3 className="font-semibold">{g.toolTitle}</h3>
                    <Badge tone={g.scope === "thread" ? "violet" : "teal"}>
                      {g.scope === "thread" ? "This conversation" : "Any conversation"}
                    </Badge>
                    {g.current ? null : <Badge tone="warning">Tool changed: no longer applies</Badge>}
                  </div>
                  <p className="mt-0.5 text-sm [overflow-wrap:anywhere]" data-testid="grant-summary">
                    Allows {g.summary}
                  </p>
                  <p className="mt-0.5 text-sm text-muted-foreground [overflow-wrap:anywhere]">
                    {g.owner.you ? "For you" : `For ${g.owner.name ?? "someone"}`} · given by{" "}
                    {g.grantedBy.you ? "you" : (g.grantedBy.name ?? "an approver")} · until {when(g.expiresAt)} · used {g.uses}{" "}
                    {g.uses === 1 ? "time" : "times"}
                    {g.threadId && g.owner.you ? (
                      <>
                        {" · "}
                        <Link
                          href={`/chat/${encodeURIComponent(g.threadId)}`}
                          className="whitespace-nowrap text-primary underline underline-offset-2 hover:no-underline"
                        >
                          open conversation
                        </Link>
                      </>
                    ) : null}
                  </p>
                </div>
                {confirming === g.grantId ? (
                  <div className="flex flex-wrap gap-2">
                    <Button variant="ghost" onClick={() => setConfirming(null)} disabled={revoke.isPending}>
                      Keep
                    </Button>
                    <Button variant="danger" onClick={() => revoke.mutate({ grantId: g.grantId })} disabled={revoke.isPending}>
                      {revoke.isPending ? "Revoking…" : "Yes, revoke"}
                    </Button>
                  </div>
                ) : (
                  <Button
                    variant="secondary"
                    className="self-start sm:self-auto"
                    onClick={() => setConfirming(g.grantId)}
                    aria-label={`Revoke: ${g.summary}`}
                  >
                    <ShieldOffIcon aria-hidden="true" />
                    Revoke
                  </Button>
                )}
              </Card>
            </li>
          ))}
        </ul>
      )}
      {revoke.isError ? <ErrorAlert>{revoke.error.message}</ErrorAlert> : null}
    </section>
  );
}
