"use client";

import { ExternalLinkIcon, PlugIcon } from "lucide-react";
import { useState, type FormEvent } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { Button } from "@/components/ui/Button";
import { Field, Input, Select } from "@/components/ui/Input";
import { Countdown } from "./Countdown";
import { FinePrint, InteractionCard, Outcome } from "./InteractionCard";
import { isDead, RetryRequest } from "./RetryRequest";
import { StatusBadge, toneOf } from "./StatusBadge";

/** One field of an MCP server's form (MCP forms are flat: strings, numbers, booleans, choices). */
interface FormField {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  default?: unknown;
}

export type McpAnswer = { content: Record<string, unknown> } | { decline: true } | { done: true };

/** The resume payload of an answer (the wire contract: the form's content, a decline, or done). */
export function mcpPayload(answer: McpAnswer): Record<string, unknown> {
  if ("done" in answer) return { done: true };
  if ("decline" in answer) return { action: "decline" };
  return answer.content;
}

const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

function fieldsOf(schema: Record<string, unknown> | null): { fields: [string, FormField][]; required: Set<string> } {
  const properties = (schema?.properties ?? {}) as Record<string, FormField>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  return { fields: Object.entries(properties), required: new Set(required) };
}

/** The typed value of one field as the form holds it (text), as the server's schema wants it. */
function typed(field: FormField, text: string | boolean): unknown {
  if (typeof text === "boolean") return text;
  if (field.type === "number" || field.type === "integer") return text === "" ? undefined : Number(text);
  return text === "" ? undefined : text;
}

/**
 * An MCP server asks the run's owner something mid-call: a form (its own schema, answered once to
 * the server; Harbor keeps only that it was answered) or a page of its own to open first, after
 * which the call is tried again.
 */
export function McpQuestionCard({
  interaction,
  busy,
  onAnswer,
  onCancel,
  onRetry,
}: {
  interaction: InteractionView;
  busy: boolean;
  onAnswer(answer: McpAnswer): void;
  onCancel(): void;
  /** Asks again for a question that expired or was lost (offered where the conversation ended on it). */
  onRetry?(): void;
}) {
  const status = interaction.status;
  const server = interaction.detail?.mcp?.server ?? "The tool's server";
  const page = interaction.detail?.mode === "url" ? interaction.detail.url : undefined;
  return (
    <InteractionCard
      tone={toneOf(status)}
      icon={PlugIcon}
      title={`${server} asks`}
      badge={<StatusBadge status={status} kind="mcp_input" />}
      data-testid="mcp-question"
      data-status={status}
      data-mode={page ? "url" : "form"}
      aria-label={`${server} asks`}
    >
      <blockquote className="border-l-2 border-primary/40 pl-3 text-sm [overflow-wrap:anywhere]">{interaction.message}</blockquote>
      <footer className="grid gap-3">
        {status !== "pending" ? (
          <Settled interaction={interaction} server={server} page={page !== undefined} />
        ) : page ? (
          <PageStep
            url={page}
            server={server}
            busy={busy}
            expiresAt={interaction.expiresAt}
            onDone={() => onAnswer({ done: true })}
            onCancel={onCancel}
          />
        ) : (
          <ServerForm interaction={interaction} server={server} busy={busy} onAnswer={onAnswer} onCancel={onCancel} />
        )}
        {onRetry && isDead(status) ? <RetryRequest onRetry={onRetry} busy={busy} /> : null}
      </footer>
    </InteractionCard>
  );
}

function ServerForm({
  interaction,
  server,
  busy,
  onAnswer,
  onCancel,
}: {
  interaction: InteractionView;
  server: string;
  busy: boolean;
  onAnswer(answer: McpAnswer): void;
  onCancel(): void;
}) {
  const { fields, required } = fieldsOf(interaction.responseSchema);
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(
      fields.flatMap(([name, f]) =>
        f.default === undefined ? [] : [[name, typeof f.default === "boolean" ? f.default : String(f.default)]],
      ),
    ),
  );
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const content: Record<string, unknown> = {};
    for (const [name, field] of fields) {
      const value = typed(field, values[name] ?? (field.type === "boolean" ? false : ""));
      if (value !== undefined) content[name] = value;
    }
    setValues({});
    onAnswer({ content });
  }

  return (
    <form className="grid gap-3" onSubmit={submit} autoComplete="off">
      {fields.map(([name, field]) => {
        const label = field.title ?? name;
        if (field.type === "boolean") {
          return (
            <label key={name} className="flex cursor-pointer items-center gap-2 text-sm">
              <input
                type="checkbox"
                className="size-4 cursor-pointer accent-primary"
                checked={values[name] === true}
                onChange={(e) => set(name, e.target.checked)}
                disabled={busy}
              />
              {label}
            </label>
          );
        }
        return (
          <Field key={name} label={label} hint={field.description}>
            {field.enum ? (
              <Select
                required={required.has(name)}
                value={String(values[name] ?? "")}
                onChange={(e) => set(name, e.target.value)}
                disabled={busy}
              >
                <option value="" disabled>
                  Choose…
                </option>
                {field.enum.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </Select>
            ) : (
              <Input
                name={name}
                type={field.type === "number" || field.type === "integer" ? "number" : (INPUT_TYPES[field.format ?? ""] ?? "text")}
                inputMode={field.type === "integer" ? "numeric" : undefined}
                step={field.type === "integer" ? 1 : field.type === "number" ? "any" : undefined}
                min={field.minimum}
                max={field.maximum}
                minLength={field.minLength}
                maxLength={field.maxLength}
                required={required.has(name)}
                value={String(values[name] ?? "")}
                onChange={(e) => set(name, e.target.value)}
                disabled={busy}
              />
            )}
          </Field>
        );
      })}
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button variant="secondary" onClick={() => onAnswer({ decline: true })} disabled={busy}>
          Decline
        </Button>
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Sending…" : "Send"}
        </Button>
      </div>
      <FinePrint>
        Your answer goes once to {server}; Harbor keeps only that you answered. Decline tells {server} no; Cancel stops the call. ·{" "}
        <Countdown until={interaction.expiresAt} />
      </FinePrint>
    </form>
  );
}

function PageStep({
  url,
  server,
  busy,
  expiresAt,
  onDone,
  onCancel,
}: {
  url: string;
  server: string;
  busy: boolean;
  expiresAt: string;
  onDone(): void;
  onCancel(): void;
}) {
  const [opened, setOpened] = useState(false);
  return (
    <div className="grid gap-3">
      <a
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        onClick={() => setOpened(true)}
        // The page to visit takes the focus, not Cancel.
        data-autofocus
        className="inline-flex items-center gap-1.5 justify-self-start rounded-lg border px-3 py-2 text-sm font-medium text-primary hover:bg-accent"
      >
        <ExternalLinkIcon className="size-4" aria-hidden="true" />
        Open {new URL(url).host}
      </a>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
        <Button variant={opened ? "primary" : "secondary"} onClick={onDone} disabled={busy}>
          {busy ? "Trying again…" : "I'm done there"}
        </Button>
      </div>
      <FinePrint>
        The page is {server}&apos;s own, in a new tab. Once you finish there, the call is tried again. · <Countdown until={expiresAt} />
      </FinePrint>
    </div>
  );
}

function Settled({ interaction, server, page }: { interaction: InteractionView; server: string; page: boolean }) {
  switch (interaction.status) {
    case "resolved":
      return (
        <Outcome ok={interaction.decision?.status !== "declined"}>
          {page
            ? "Done there · the call was tried again"
            : interaction.decision?.status === "declined"
              ? `Declined · ${server} was told no`
              : `Answered · sent to ${server}, not kept here`}
        </Outcome>
      );
    case "cancelled":
      return <Outcome ok={false}>Cancelled · the call was stopped</Outcome>;
    case "expired":
      return <Outcome ok={false}>Expired before you answered · ask again if you still need it</Outcome>;
    case "lost":
      return <Outcome ok={false}>Lost when Harbor restarted · please ask again</Outcome>;
    case "rejected":
    case "pending":
      return <Outcome ok={false}>No longer waiting · please ask again</Outcome>;
  }
}
