"use client";

/** One budget limit's choice in the limits form, and how what is typed there is read. */
import { useId, type ReactNode } from "react";
import { Input } from "@/components/ui/Input";
import { count, type LimitKey } from "./BudgetMeter";

/** The most a limit may be (the server refuses more). */
const MAX_TOKENS = 1e15;

/** "50,000 tokens" or "no limit" (0 is none). */
export const amount = (tokens: number) => (tokens === 0 ? "no limit" : `${count(tokens)} tokens`);

export type Mode = "default" | "none" | "tokens";
export interface Choice {
  mode: Mode;
  /** The tokens as typed: a text field, so "50,000" is taken and a typo is said rather than dropped. */
  text: string;
}

export const choiceOf = (own: number | null): Choice =>
  own === null ? { mode: "default", text: "" } : own === 0 ? { mode: "none", text: "" } : { mode: "tokens", text: count(own) };

/** Digits alone, or grouped in threes by commas, spaces or underscores ("50,000", "1 000 000"). */
const DIGITS = /^(?:\d+|\d{1,3}(?:[,\s_]\d{3})+)$/;

/** What a choice sends (null: the deployment's; 0: none), or why it cannot be sent. */
export function valueOf(choice: Choice): { tokens: number | null } | { error: string } {
  if (choice.mode === "default") return { tokens: null };
  if (choice.mode === "none") return { tokens: 0 };
  const text = choice.text.trim();
  if (text === "") return { error: "Enter a number of tokens, or choose No limit." };
  if (!DIGITS.test(text)) return { error: "Enter a whole number, 0 or more: 50,000 for example." };
  const tokens = Number(text.replace(/[,\s_]/g, ""));
  if (tokens > MAX_TOKENS) return { error: `Enter at most ${count(MAX_TOKENS)} tokens.` };
  return { tokens };
}

/**
 * One limit as three native radios — the deployment's default, no limit, a number of tokens — with
 * the tokens' field under the third once picked (arrow keys move between them; the group has a name).
 */
export function LimitChoice({
  name,
  legend,
  field,
  fallback,
  choice,
  error,
  inputRef,
  onChange,
}: {
  name: LimitKey;
  legend: string;
  field: string;
  fallback: number;
  choice: Choice;
  error: string | undefined;
  inputRef: (el: HTMLInputElement | null) => void;
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
  // Once left, a valid number is shown with its thousands separators.
  const tidy = () => {
    const value = valueOf(choice);
    if ("tokens" in value && value.tokens !== null) onChange({ ...choice, text: count(value.tokens) });
  };
  return (
    <fieldset className="grid content-start gap-2.5" data-testid={`choice-${name}`}>
      <legend className="mb-2 text-sm font-semibold">{legend}</legend>
      {radio(
        "default",
        <>
          Use the deployment&apos;s default <span className="text-muted-foreground">({amount(fallback)})</span>
        </>,
      )}
      {radio("none", "No limit")}
      {radio("tokens", "A number of tokens")}
      {choice.mode === "tokens" ? (
        <div className="grid gap-1.5 pl-6.5">
          <label htmlFor={`${id}-tokens`} className="text-sm font-medium">
            {field}
          </label>
          <Input
            ref={inputRef}
            id={`${id}-tokens`}
            inputMode="numeric"
            autoComplete="off"
            className="w-44 tabular-nums aria-invalid:border-destructive"
            value={choice.text}
            onChange={(e) => onChange({ ...choice, text: e.target.value })}
            onBlur={tidy}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-${error ? "error" : "hint"}`}
          />
          {/* The error takes the hint's place under the field. */}
          {error ? (
            <span id={`${id}-error`} className="text-xs font-medium text-danger-fg" data-testid={`${name}-error`}>
              {error}
            </span>
          ) : (
            <span id={`${id}-hint`} className="text-xs text-muted-foreground">
              Whole tokens; 0 is no limit.
            </span>
          )}
        </div>
      ) : null}
    </fieldset>
  );
}
