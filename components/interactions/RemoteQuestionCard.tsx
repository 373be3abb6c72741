"use client";

import { useState, type FormEvent } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { BotIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Field, Input } from "@/components/ui/Input";
import { Countdown } from "./Countdown";
import { FinePrint, InteractionCard, Outcome } from "./InteractionCard";
import { isDead, RetryRequest } from "./RetryRequest";
import { StatusBadge, toneOf } from "./StatusBadge";

/**
 * A remote agent (A2A) asks its caller something: more input (a reply box) or a credential (a
 * password field whose value goes once to the remote agent and is kept nowhere, not even here).
 */
export function RemoteQuestionCard({
  interaction,
  busy,
  onAnswer,
  onCancel,
  onRetry,
}: {
  interaction: InteractionView;
  busy: boolean;
  onAnswer(payload: { text: string } | { credential: string }): void;
  onCancel(): void;
  /** Asks again for a question that expired or was lost (offered where the conversation ended on it). */
  onRetry?(): void;
}) {
  const [value, setValue] = useState("");
  const status = interaction.status;
  const credential = interaction.detail?.prompt === "auth_required";
  const agent = interaction.detail?.agent ?? "The remote agent";

  function submit(event: FormEvent) {
    event.preventDefault();
    const answer = value;
    setValue("");
    onAnswer(credential ? { credential: answer } : { text: answer });
  }

  return (
    <InteractionCard
      tone={toneOf(status)}
      icon={BotIcon}
      title={`${agent} asks`}
      badge={<StatusBadge status={status} kind="a2a" pendingLabel={credential ? "Sign-in needed" : undefined} />}
      data-testid="remote-question"
      data-status={status}
      aria-label={`${agent} asks`}
    >
      <blockquote className="border-l-2 border-primary/40 pl-3 text-sm italic [overflow-wrap:anywhere]">{interaction.message}</blockquote>
      <footer className="grid gap-3">
        {status === "pending" ? (
          <form className="grid gap-3" onSubmit={submit} autoComplete="off">
            <Field label={credential ? "Credential" : "Your answer"}>
              <Input
                name={credential ? "credential" : "answer"}
                type={credential ? "password" : "text"}
                autoComplete="off"
                required
                maxLength={credential ? 4096 : 2000}
                value={value}
                onChange={(e) => setValue(e.target.value)}
                disabled={busy}
              />
            </Field>
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="ghost" onClick={onCancel} disabled={busy}>
                Cancel
              </Button>
              <Button type="submit" variant="primary" disabled={busy || value.trim() === ""}>
                {busy ? "Sending…" : credential ? "Sign in" : "Reply"}
              </Button>
            </div>
            <FinePrint>
              {credential
                ? "Sent once to the remote agent; Harbor keeps no copy and it never appears in this conversation."
                : "Your reply goes to the remote agent's task."}{" "}
              · <Countdown until={interaction.expiresAt} />
            </FinePrint>
          </form>
        ) : status === "resolved" ? (
          <Outcome ok>
            {credential ? "Signed in · the credential was not kept" : `You answered: “${interaction.decision?.text ?? ""}”`}
          </Outcome>
        ) : status === "cancelled" ? (
          <Outcome ok={false}>Cancelled · the remote task was cancelled too</Outcome>
        ) : status === "expired" ? (
          <Outcome ok={false}>Expired before you answered · ask again if you still need it</Outcome>
        ) : (
          <Outcome ok={false}>No longer waiting · please ask again</Outcome>
        )}
        {onRetry && isDead(status) ? <RetryRequest onRetry={onRetry} busy={busy} /> : null}
      </footer>
    </InteractionCard>
  );
}
