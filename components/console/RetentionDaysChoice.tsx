"use client";

import { useId, type ReactNode, type RefObject } from "react";
import { Input } from "@/components/ui/Input";
import { keptFor, MAX_DAYS } from "./retentionText";

export type Mode = "default" | "forever" | "days";
export interface Choice {
  mode: Mode;
  /** The days as typed (a text field, so a typo is said in words rather than silently dropped). */
  text: string;
}

export const choiceOf = (own: number | null): Choice =>
  own === null ? { mode: "default", text: "" } : own === 0 ? { mode: "forever", text: "" } : { mode: "days", text: String(own) };

/** The days a choice sends (null: the deployment's), or why it cannot be sent. */
export function valueOf(choice: Choice): { days: number | null } | { error: string } {
  if (choice.mode === "default") return { days: null };
  if (choice.mode === "forever") return { days: 0 };
  const text = choice.text.trim();
  if (text === "") return { error: "Enter a number of days." };
  if (!/^\d+$/.test(text)) return { error: "Enter whole days, in digits: 30, for example." };
  const days = Number(text);
  // 0 would mean "kept forever": that has its own option, so the field asks for a real period.
  if (days < 1 || days > MAX_DAYS) return { error: `Enter between 1 and ${MAX_DAYS.toLocaleString("en")} days, or choose Keep forever.` };
  return { days };
}

/**
 * One kind of data's choice as three radios — the deployment's default, forever, or a number of
 * days — with the days' field shown under the third once it is picked (native radios: arrow keys
 * move between them, and a screen reader hears the group's name).
 */
export function DaysChoice({
  ref,
  name,
  legend,
  daysLabel,
  fallback,
  choice,
  error,
  input,
  onChange,
}: {
  ref?: RefObject<HTMLFieldSetElement | null>;
  name: string;
  legend: string;
  daysLabel: string;
  fallback: number;
  choice: Choice;
  error: string | undefined;
  input: RefObject<HTMLInputElement | null>;
  onChange: (choice: Choice) => void;
}) {
  const id = useId();
  const radio = (mode: Mode, label: ReactNode) => (
    <label className="flex cursor-pointer items-start gap-2.5 text-sm">
      <input
        type="radio"
        name={`${id}-${name}`}
        value={mode}
        checked={choice.mode === mode}
        onChange={() => onChange({ ...choice, mode })}
        className="mt-0.5 size-4 shrink-0 cursor-pointer accent-primary"
      />
      <span className="min-w-0">{label}</span>
    </label>
  );
  return (
    <fieldset ref={ref} className="grid gap-2.5">
      <legend className="mb-2 text-sm font-semibold">{legend}</legend>
      {radio(
        "default",
        <>
          Use the deployment&apos;s default <span className="text-muted-foreground">(kept {keptFor(fallback)})</span>
        </>,
      )}
      {radio("forever", "Keep forever")}
      {radio("days", "Delete after a number of days")}
      {choice.mode === "days" ? (
        <div className="grid gap-1.5 pl-6.5">
          <label htmlFor={`${id}-days`} className="text-sm font-medium">
            {daysLabel}
          </label>
          <div className="flex items-center gap-2">
            <Input
              ref={input}
              id={`${id}-days`}
              inputMode="numeric"
              autoComplete="off"
              className="w-28 tabular-nums aria-invalid:border-destructive"
              value={choice.text}
              onChange={(e) => onChange({ ...choice, text: e.target.value })}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : `${id}-hint`}
            />
            <span className="text-sm text-muted-foreground">days</span>
          </div>
          {/* The error replaces the hint under the field: it says the range too. */}
          {error ? (
            <span id={`${id}-error`} className="text-xs font-medium text-danger-fg" data-testid={`${name}-days-error`}>
              {error}
            </span>
          ) : (
            <span id={`${id}-hint`} className="text-xs text-muted-foreground">
              Whole days, 1 to {MAX_DAYS.toLocaleString("en")}.
            </span>
          )}
        </div>
      ) : null}
    </fieldset>
  );
}
