"use client";

import { useState, type FormEvent } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { Countdown } from "./Countdown";
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
}: {
  interaction: InteractionView;
  busy: boolean;
  onAnswer(payload: { text: string } | { credential: string }): void;
  onCancel(): void;
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
    <article className={`approval-card ${toneOf(status)}`} data-testid="remote-question" data-status={status} aria-label={`${agent} asks`}>
      <header className="approval-head">
        <span className="approval-title">{agent} asks</span>
        <StatusBadge status={status} kind="a2a" pendingLabel={credential ? "Sign-in needed" : undefined} />
      </header>
      <blockquote className="remote-question">{interaction.message}</blockquote>
      <footer className="approval-foot">
        {status === "pending" ? (
          <form className="stack" onSubmit={submit} autoComplete="off">
            <label className="field">
              <span>{credential ? "Credential" : "Your answer"}</span>
              <input
                name={credential ? "credential" : "answer"}
                type={credential ? "password" : "text"}
                autoComplete="off"
                required
                maxLength={credential ? 4096 : 2000}
                value={value}
                onChange={(e) => setValue(e.target.value)}
                disabled={busy}
              />
            </label>
            <div className="decision-buttons">
              <button type="button" className="button ghost" onClick={onCancel} disabled={busy}>
                Cancel
              </button>
              <button type="submit" className="button primary" disabled={busy || value.trim() === ""}>
                {busy ? "Sending…" : credential ? "Sign in" : "Reply"}
              </button>
            </div>
            <p className="muted small" style={{ margin: 0 }}>
              {credential
                ? "Sent once to the remote agent; Harbor keeps no copy and it never appears in this conversation."
                : "Your reply goes to the remote agent's task."}{" "}
              · <Countdown until={interaction.expiresAt} />
            </p>
          </form>
        ) : status === "resolved" ? (
          <p className="small outcome ok">
            {credential ? "Signed in · the credential was not kept" : `You answered: “${interaction.decision?.text ?? ""}”`}
          </p>
        ) : status === "cancelled" ? (
          <p className="small outcome no">Cancelled · the remote task was cancelled too</p>
        ) : status === "expired" ? (
          <p className="small outcome no">Expired before you answered · ask again if you still need it</p>
        ) : (
          <p className="small outcome no">No longer waiting · please ask again</p>
        )}
      </footer>
    </article>
  );
}
