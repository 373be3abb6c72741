"use client";

import { useState, type FormEvent } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { LockIcon } from "lucide-react";
import { Button } from "@/components/ui/Button";
import { Field, Input } from "@/components/ui/Input";
import { FinePrint, InteractionCard, Outcome } from "./InteractionCard";
import { isDead, RetryRequest } from "./RetryRequest";
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
  onRetry,
}: {
  interaction?: InteractionView;
  busy: boolean;
  onSubmit(value: Record<string, string>): void;
  onCancel(): void;
  /** Asks again for a form that expired or was lost (offered where the conversation ended on it). */
  onRetry?(): void;
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
    <InteractionCard
      tone={toneOf(status)}
      icon={LockIcon}
      title="Private input"
      badge={<StatusBadge status={status} kind="private_input" />}
      data-testid="private-form"
      data-status={status ?? "loading"}
      aria-label="Private form"
    >
      {!interaction ? (
        <p className="text-sm text-muted-foreground">Loading the form…</p>
      ) : status === "pending" ? (
        <form className="grid gap-3" onSubmit={submit} autoComplete="off">
          <p className="text-sm [overflow-wrap:anywhere]">{interaction.message}</p>
          {fields.map(([name, field]) => (
            <Field key={name} label={field.title ?? name}>
              <Input
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
            </Field>
          ))}
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="ghost" onClick={onCancel} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" disabled={busy}>
              <LockIcon aria-hidden="true" />
              {busy ? "Sending…" : "Send privately"}
            </Button>
          </div>
          <FinePrint>Sent once to Harbor, kept encrypted; it never appears in this conversation.</FinePrint>
        </form>
      ) : (
        <Outcome ok={status === "resolved"}>
          {status === "resolved"
            ? "Sent privately · kept encrypted"
            : status === "cancelled"
              ? "Cancelled · nothing was sent"
              : status === "lost"
                ? "Lost when Harbor restarted · nothing was kept. Please ask again."
                : "Expired · nothing was sent"}
        </Outcome>
      )}
      {onRetry && isDead(status) ? <RetryRequest onRetry={onRetry} busy={busy} /> : null}
    </InteractionCard>
  );
}
