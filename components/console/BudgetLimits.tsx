"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { PencilIcon } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { useToast } from "@/components/ui/Toaster";
import { amount, choiceOf, LimitChoice, valueOf, type Choice } from "./BudgetLimitChoice";
import { count, type BudgetView, type LimitKey } from "./BudgetMeter";

const LIMITS: { key: LimitKey; name: string; field: string }[] = [
  { key: "tenantDaily", name: "Workspace, per day", field: "Tokens a day" },
  { key: "tenantMonthly", name: "Workspace, per month", field: "Tokens a month" },
  { key: "userDaily", name: "Each user, per day", field: "Tokens a day" },
  { key: "userMonthly", name: "Each user, per month", field: "Tokens a month" },
];

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** What the toast says was saved: "Workspace: 50,000 tokens a day, no monthly limit. Each user: …". */
function savedText(limits: BudgetView["limits"]): string {
  const per = (tokens: number, period: "day" | "month") =>
    tokens === 0 ? `no ${period === "day" ? "daily" : "monthly"} limit` : `${count(tokens)} tokens a ${period}`;
  return `Workspace: ${per(limits.tenantDaily, "day")}, ${per(limits.tenantMonthly, "month")}. Each user: ${per(limits.userDaily, "day")}, ${per(limits.userMonthly, "month")}.`;
}

/** The four limits in force, whose each is (the tenant's or the deployment's), and the form that changes them. */
export function BudgetLimits({ view }: { view: BudgetView }) {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const close = () => {
    setEditing(false);
    // The form goes away with the focus in it: the keyboard lands back on Edit.
    requestAnimationFrame(() => editButton.current?.focus());
  };
  return (
    <Card data-testid="budget-limits">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>Limits</CardTitle>
          {editing ? null : (
            <Button ref={editButton} size="sm" onClick={() => setEditing(true)}>
              <PencilIcon aria-hidden="true" />
              Edit limits
            </Button>
          )}
        </div>
        <CardDescription>
          In tokens, input and output together. Runs warn at 80 % of a budget and stop before asking the model at 100 %.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {editing ? (
          <LimitsForm view={view} onDone={close} />
        ) : (
          <dl className="grid">
            {LIMITS.map(({ key, name }) => (
              <div
                key={key}
                className="grid gap-1 border-t py-3 first:border-t-0 first:pt-0 last:pb-0 sm:grid-cols-[10rem_minmax(0,1fr)] sm:items-baseline sm:gap-3"
              >
                <dt className="text-sm text-muted-foreground">{name}</dt>
                <dd className="grid gap-0.5" data-testid={`limit-${key}`}>
                  <span className="font-semibold tabular-nums">{capital(amount(view.limits[key]))}</span>
                  {/* Whose limit it is, on its own line: a long number and a badge side by side wrapped unevenly. */}
                  <span className="text-xs text-muted-foreground">
                    {view.own[key] === null ? (
                      "Deployment default"
                    ) : (
                      <>
                        <span className="font-medium text-info-fg">Your setting</span> · the deployment&apos;s default would be{" "}
                        {amount(view.defaults[key])}
                      </>
                    )}
                  </span>
                </dd>
              </div>
            ))}
          </dl>
        )}
      </CardContent>
    </Card>
  );
}

/** All four choices at once, checked here first (whole tokens within range), then saved together. */
function LimitsForm({ view, onDone }: { view: BudgetView; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [choices, setChoices] = useState(() => ({
    tenantDaily: choiceOf(view.own.tenantDaily),
    tenantMonthly: choiceOf(view.own.tenantMonthly),
    userDaily: choiceOf(view.own.userDaily),
    userMonthly: choiceOf(view.own.userMonthly),
  }));
  const [errors, setErrors] = useState<Partial<Record<LimitKey, string>>>({});
  const inputs = useRef<Partial<Record<LimitKey, HTMLInputElement | null>>>({});
  const form = useRef<HTMLFormElement>(null);
  // Opening the form puts the keyboard on the first limit's choice.
  useEffect(() => form.current?.querySelector<HTMLInputElement>("input:checked")?.focus(), []);
  const save = useMutation(
    trpc.budgets.set.mutationOptions({
      onSuccess: (saved) => {
        queryClient.setQueryData(trpc.budgets.get.queryKey(), saved);
        toast({
          tone: "success",
          title: "Model budgets saved",
          detail: savedText(saved.limits),
        });
        onDone();
      },
    }),
  );
  const change = (key: LimitKey, choice: Choice) => {
    setChoices((c) => ({ ...c, [key]: choice }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const values = Object.fromEntries(LIMITS.map(({ key }) => [key, valueOf(choices[key])])) as Record<
      LimitKey,
      ReturnType<typeof valueOf>
    >;
    const found = Object.fromEntries(LIMITS.flatMap(({ key }) => ("error" in values[key] ? [[key, values[key].error]] : [])));
    const first = LIMITS.find(({ key }) => found[key]);
    setErrors(found);
    if (first) {
      inputs.current[first.key]?.focus();
      return;
    }
    const tokens = (key: LimitKey) => {
      const value = values[key];
      return "tokens" in value ? value.tokens : null;
    };
    save.mutate({
      tenantDaily: tokens("tenantDaily"),
      tenantMonthly: tokens("tenantMonthly"),
      userDaily: tokens("userDaily"),
      userMonthly: tokens("userMonthly"),
    });
  };
  return (
    <form ref={form} className="grid gap-5" onSubmit={submit} noValidate aria-label="Model budget limits" data-testid="limits-form">
      <div className="grid gap-5 xl:grid-cols-2">
        {LIMITS.map(({ key, name, field }) => (
          <LimitChoice
            key={key}
            name={key}
            legend={name}
            field={field}
            fallback={view.defaults[key]}
            choice={choices[key]}
            error={errors[key]}
            inputRef={(el) => {
              inputs.current[key] = el;
            }}
            onChange={(choice) => change(key, choice)}
          />
        ))}
      </div>
      {save.isError ? <ErrorAlert>Could not save the limits: {save.error.message}</ErrorAlert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save limits"}
        </Button>
        <Button variant="ghost" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
