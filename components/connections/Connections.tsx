"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";

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
    <main className="page narrow-page" data-testid="connections">
      <h1>Connections</h1>
      <p className="muted">
        Accounts and keys you connected so the concierge can act for you. Harbor keeps them encrypted; disconnecting one also revokes the
        access at its provider.
      </p>
      {list.isPending ? (
        <ul className="connections" aria-busy="true">
          <li className="skeleton" />
          <li className="skeleton" />
        </ul>
      ) : list.isError ? (
        <p className="error banner" role="alert">
          Could not load your connections: {list.error.message}
        </p>
      ) : list.data.length === 0 ? (
        <div className="empty-state muted" data-testid="connections-empty">
          Nothing is connected. Ask the concierge to “check my calendar” and it will ask you to connect.
        </div>
      ) : (
        <ul className="connections">
          {list.data.map((c) => (
            <li key={c.provider} className="approval-card approved connection" data-testid="connection" data-provider={c.provider}>
              <div>
                <strong>{c.name}</strong> <span className="badge badge-resolved">{c.kind === "oauth" ? "OAuth" : "API key"}</span>
                <p className="muted small" style={{ margin: "0.25rem 0 0" }}>
                  Connected {when(c.connectedAt)}
                  {c.scopes.length > 0 ? ` · ${c.scopes.join(", ")}` : ""}
                </p>
              </div>
              {confirming === c.provider ? (
                <div className="decision-buttons">
                  <button type="button" className="button ghost" onClick={() => setConfirming(null)} disabled={disconnect.isPending}>
                    Keep
                  </button>
                  <button
                    type="button"
                    className="button danger-outline"
                    onClick={() => disconnect.mutate({ provider: c.provider })}
                    disabled={disconnect.isPending}
                  >
                    {disconnect.isPending ? "Disconnecting…" : "Yes, disconnect"}
                  </button>
                </div>
              ) : (
                <button type="button" className="button ghost" onClick={() => setConfirming(c.provider)}>
                  Disconnect
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {disconnect.isError ? (
        <p className="error small" role="alert">
          {disconnect.error.message}
        </p>
      ) : null}
      {disconnect.data && !disconnect.data.revoked ? (
        <p className="muted small" role="status">
          Disconnected here; the provider could not be told, so you may also revoke Harbor&apos;s access in your account there.
        </p>
      ) : null}
    </main>
  );
}
