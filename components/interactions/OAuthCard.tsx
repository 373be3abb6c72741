"use client";

import { useEffect } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { ExternalLinkIcon, KeyRoundIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Countdown } from "./Countdown";
import { FinePrint, InteractionCard, Outcome } from "./InteractionCard";
import { isDead, RetryRequest } from "./RetryRequest";
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
  onRetry,
}: {
  interaction: InteractionView;
  toolName: string;
  busy: boolean;
  onCancel(): void;
  /** The consent window reported back (the conversation refreshes and follows the run). */
  onConsent(outcome: ConsentMessage["outcome"]): void;
  /** Asks again for a consent that expired or was lost (offered where the conversation ended on it). */
  onRetry?(): void;
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
    <InteractionCard
      tone={toneOf(status)}
      icon={KeyRoundIcon}
      title="Connect an account"
      badge={<StatusBadge status={status} kind="oauth" />}
      data-testid="oauth-card"
      data-status={status}
      aria-label="Connect an account"
    >
      <p className="text-sm [overflow-wrap:anywhere]">{interaction.message}</p>
      <footer className="grid gap-3">
        {status === "pending" ? (
          <>
            <p className="flex flex-wrap items-center gap-x-3 gap-y-0.5 text-sm">
              <span>
                {tools.title(toolName)} needs your permission at the provider<span className="text-muted-foreground"> · </span>
              </span>
              <Countdown until={interaction.expiresAt} />
            </p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="ghost" onClick={onCancel} disabled={busy}>
                Cancel
              </Button>
              {/* The way forward takes the focus, never Cancel: a stray Enter must not dismiss the request. */}
              <Button variant="primary" onClick={connect} disabled={busy || !url} data-autofocus>
                <ExternalLinkIcon aria-hidden="true" />
                Connect
              </Button>
            </div>
            <FinePrint>
              You sign in at the provider, not here; Harbor keeps the access it grants encrypted, and you can disconnect it any time.
            </FinePrint>
          </>
        ) : status === "resolved" ? (
          <Outcome ok>Connected · the conversation goes on</Outcome>
        ) : status === "cancelled" ? (
          <Outcome ok={false}>Not connected · the request was cancelled</Outcome>
        ) : status === "expired" ? (
          <Outcome ok={false}>Expired before you connected · ask again if you still need it</Outcome>
        ) : (
          <Outcome ok={false}>No longer waiting · please ask again</Outcome>
        )}
        {onRetry && isDead(status) ? <RetryRequest onRetry={onRetry} busy={busy} /> : null}
      </footer>
    </InteractionCard>
  );
}
