"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRoundIcon, PlugIcon, UnplugIcon } from "lucide-react";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";
import { StandingApprovals } from "./StandingApprovals";

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The caller's connected providers — OAuth grants and API keys — and a way to disconnect each. */
export function Connections() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.connections.list.queryOptions());
  const [confirming, setConfirming] = useState<string | null>(null);
  const disconnect = useMutation(
    trpc.connections.disconnect.mutationOptions({
      onSettled: () => {
        setConfirming(null);
        return queryClient.invalidateQueries({ queryKey: trpc.connections.list.queryKey() });
      },
    }),
  );

  return (
    <div className="flex-1 overflow-y-auto" data-testid="connections">
      <div className="mx-auto grid max-w-3xl gap-6 px-4 py-6 sm:px-6 sm:py-10">
        <div className="grid gap-1.5">
          <h1 className="text-2xl font-semibold tracking-tight">Connections</h1>
          <p className="text-sm text-muted-foreground">
            Accounts and keys you connected so the concierge can act for you. Harbor keeps them encrypted; disconnecting one also revokes
            the access at its provider.
          </p>
        </div>
        {list.isPending ? (
          <div className="grid gap-3" role="status" aria-busy="true" aria-label="Loading connections">
            <Skeleton className="h-20 rounded-xl" />
            <Skeleton className="h-20 rounded-xl" />
          </div>
        ) : list.isError ? (
          <ErrorAlert>Could not load your connections: {list.error.message}</ErrorAlert>
        ) : list.data.length === 0 ? (
          <Card>
            <EmptyState icon={PlugIcon} title="Nothing is connected." data-testid="connections-empty">
              Ask the concierge to “check my calendar” and it will ask you to connect.
            </EmptyState>
          </Card>
        ) : (
          <ul className="grid gap-3">
            {list.data.map((c) => (
              <li key={c.provider} data-testid="connection" data-provider={c.provider}>
                <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center">
                  <span className="grid size-10 shrink-0 place-items-center rounded-lg bg-success-bg text-success-fg">
                    {c.kind === "oauth" ? (
                      <PlugIcon className="size-5" aria-hidden="true" />
                    ) : (
                      <KeyRoundIcon className="size-5" aria-hidden="true" />
                    )}
                  </span>
                  <div className="min-w-0 flex-1">
                    <div className="flex flex-wrap items-center gap-2">
                      <h2 className="font-semibold">{c.name}</h2>
                      <Badge tone="success">{c.kind === "oauth" ? "OAuth" : "API key"}</Badge>
                    </div>
                    <p className="mt-0.5 text-sm text-muted-foreground [overflow-wrap:anywhere]">
                      Connected {when(c.connectedAt)}
                      {c.scopes.length > 0 ? ` · ${c.scopes.join(", ")}` : ""}
                    </p>
                  </div>
                  {confirming === c.provider ? (
                    <div className="flex flex-wrap gap-2">
                      <Button variant="ghost" onClick={() => setConfirming(null)} disabled={disconnect.isPending}>
                        Keep
                      </Button>
                      <Button variant="danger" onClick={() => disconnect.mutate({ provider: c.provider })} disabled={disconnect.isPending}>
                        {disconnect.isPending ? "Disconnecting…" : "Yes, disconnect"}
                      </Button>
                    </div>
                  ) : (
                    <Button variant="secondary" className="self-start sm:self-auto" onClick={() => setConfirming(c.provider)}>
                      <UnplugIcon aria-hidden="true" />
                      Disconnect
                    </Button>
                  )}
                </Card>
              </li>
            ))}
          </ul>
        )}
        {disconnect.isError ? <ErrorAlert>{disconnect.error.message}</ErrorAlert> : null}
        {disconnect.data && !disconnect.data.revoked ? (
          <p className="text-sm text-muted-foreground" role="status">
            Disconnected here; the provider could not be told, so you may also revoke Harbor&apos;s access in your account there.
          </p>
        ) : null}
        <StandingApprovals />
      </div>
    </div>
  );
}
