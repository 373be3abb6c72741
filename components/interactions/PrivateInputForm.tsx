"use client";

import { useState, type FormEvent } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { StatusBadge, toneOf } from "./StatusBadge";

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  writeOnly?: boolean;
  minLength?: number;
  maxLength?: number;
}

/** The form's fields from its JSON Schema; secrets (`writeOnly`) are password fields. */
function fieldsOf(schema: Record<string, unknown> | null): [string, FieldSchema][] {
  const properties = (schema?.properties ?? {}) as Record<string, FieldSchema>;
  return Object.entries(properties);
}

/**
 * A private form in the conversation. The value goes only in the resume's payload, never into the
 * conversation; the fields are cleared as soon as it is sent, and nothing here logs it.
 */
export function PrivateInputForm({
  interaction,
  busy,
  onSubmit,
  onCancel,
}: {
  interaction?: InteractionView;
  busy: boolean;
  onSubmit(value: Record<string, string>): void;
  onCancel(): void;
}) {
  const fields = fieldsOf(interaction?.responseSchema ?? null);
  const [values, setValues] = useState<Record<string, string>>({});
  const status = interaction?.status;

  function submit(event: FormEvent) {
    event.preventDefault();
    const value = values;
    setValues({});
    onSubmit(value);
  }

  return (
    <article
      className={`approval-card ${toneOf(status)}`}
      data-testid="private-form"
      data-status={status ?? "loading"}
      aria-label="Private form"
    >
      <header className="approval-head">
        <span className="approval-title">Private input</span>
        <StatusBadge status={status} kind="private_input" />
      </header>
      {!interaction ? (
        <p className="muted small">Loading the form…</p>
      ) : status === "pending" ? (
        <form className="stack" onSubmit={submit} autoComplete="off">
          <p className="small" style={{ margin: 0 }}>
            {interaction.message}
          </p>
          {fields.map(([name, field]) => (
            <label key={name} className="field">
              <span>{field.title ?? name}</span>
              <input
                name={name}
                type={field.writeOnly ? "password" : "text"}
                autoComplete="off"
                required
                minLength={field.minLength}
                maxLength={field.maxLength}
                value={values[name] ?? ""}
                onChange={(e) => setValues((v) => ({ ...v, [name]: e.target.value }))}
                disabled={busy}
              />
            </label>
          ))}
          <div className="decision-buttons">
            <button type="button" className="button ghost" onClick={onCancel} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? "Sending…" : "Send privately"}
            </button>
          </div>
          <p className="muted small" style={{ margin: 0 }}>
            Sent once to Harbor, kept encrypted; it never appears in this conversation.
          </p>
        </form>
      ) : (
        <p className={`small outcome ${status === "resolved" ? "ok" : "no"}`}>
          {status === "resolved"
            ? "Sent privately · kept encrypted"
            : status === "cancelled"
              ? "Cancelled · nothing was sent"
              : status === "lost"
                ? "Lost when Harbor restarted · nothing was kept. Please ask again."
                : "Expired · nothing was sent"}
        </p>
      )}
    </article>
  );
}
