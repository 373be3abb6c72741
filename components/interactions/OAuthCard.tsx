"use client";

import { useEffect } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { Countdown } from "./Countdown";
import { StatusBadge, toneOf } from "./StatusBadge";
import { useToolCatalog } from "./tools";

/** What the callback page tells the chat that opened it. */
interface ConsentMessage {
  type: "harbor.oauth";
  outcome: "connected" | "declined";
  threadId: string;
}

function isConsentMessage(data: unknown): data is ConsentMessage {
  return typeof data === "object" && data !== null && (data as { type?: unknown }).type === "harbor.oauth";
}

/**
 * A tool waits for the user's consent at an OAuth provider. "Connect" opens the provider's consent
 * page in a small window; its callback resolves the pause on the server, and the conversation
 * follows the run as it continues. Without a popup the page itself goes there and comes back.
 */
export function OAuthCard({
  interaction,
  toolName,
  busy,
  onCancel,
  onConsent,
}: {
  interaction: InteractionView;
  toolName: string;
  busy: boolean;
  onCancel(): void;
  /** The consent window reported back (the conversation refreshes and follows the run). */
  onConsent(outcome: ConsentMessage["outcome"]): void;
}) {
  const tools = useToolCatalog();
  const status = interaction.status;
  const url = interaction.detail?.authorizationUrl;

  useEffect(() => {
    if (status !== "pending") return;
    const listener = (event: MessageEvent) => {
      if (event.origin !== window.location.origin || !isConsentMessage(event.data)) return;
      if (event.data.threadId === interaction.threadId) onConsent(event.data.outcome);
    };
    window.addEventListener("message", listener);
    return () => window.removeEventListener("message", listener);
  }, [status, interaction.threadId, onConsent]);

  function connect() {
    if (!url) return;
    const popup = window.open(url, "harbor-oauth", "popup,width=520,height=700");
    if (!popup) window.location.assign(url);
  }

  return (
    <article className={`approval-card ${toneOf(status)}`} data-testid="oauth-card" data-status={status} aria-label="Connect an account">
      <header className="approval-head">
        <span className="approval-title">Connect an account</span>
        <StatusBadge status={status} kind="oauth" />
      </header>
      <p className="small" style={{ margin: 0 }}>
        {interaction.message}
      </p>
      <footer className="approval-foot">
        {status === "pending" ? (
          <>
            <p className="small who-decides">
              {tools.title(toolName)} needs your permission at the provider · <Countdown until={interaction.expiresAt} />
            </p>
            <div className="decision-buttons">
              <button type="button" className="button ghost" onClick={onCancel} disabled={busy}>
                Cancel
              </button>
              <button type="button" className="button primary" onClick={connect} disabled={busy || !url}>
                Connect
              </button>
            </div>
            <p className="muted small" style={{ margin: 0 }}>
              You sign in at the provider, not here; Harbor keeps the access it grants encrypted, and you can disconnect it any time.
            </p>
          </>
        ) : status === "resolved" ? (
          <p className="small outcome ok">Connected · the conversation goes on</p>
        ) : status === "cancelled" ? (
          <p className="small outcome no">Not connected · the request was cancelled</p>
        ) : status === "expired" ? (
          <p className="small outcome no">Expired before you connected · ask again if you still need it</p>
        ) : (
          <p className="small outcome no">No longer waiting · please ask again</p>
        )}
      </footer>
    </article>
  );
}
