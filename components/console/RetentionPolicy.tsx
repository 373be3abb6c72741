"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { PencilIcon } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { useToast } from "@/components/ui/Toaster";
import { choiceOf, DaysChoice, valueOf } from "./RetentionDaysChoice";
import { keptFor, type RetentionView } from "./retentionText";

/** What a saved policy says for one kind of data, for the toast. */
const said = (own: number | null, fallback: number) =>
  own === null ? `the deployment's default (kept ${keptFor(fallback)})` : `kept ${keptFor(own)}`;

/** The policy in force for conversations and the audit log, whose setting each is, and the form that changes it. */
export function RetentionPolicy({ view }: { view: RetentionView }) {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // The form goes away with the focus in it: once Edit is back, the keyboard lands on it.
  const returnFocus = useRef(false);
  useEffect(() => {
    if (editing || !returnFocus.current) return;
    returnFocus.current = false;
    editButton.current?.focus();
  }, [editing]);
  const close = () => {
    returnFocus.current = true;
    setEditing(false);
  };
  return (
    <Card data-testid="retention-policy">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>Policy</CardTitle>
          {editing ? null : (
            <Button ref={editButton} size="sm" onClick={() => setEditing(true)}>
              <PencilIcon aria-hidden="true" />
              Edit policy
            </Button>
          )}
        </div>
        <CardDescription>
          A conversation is deleted once nobody has touched it for longer than this, with its runs, events and approvals; an audit row once
          it is older.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {editing ? (
          <PolicyForm view={view} onDone={close} />
        ) : (
          <dl className="grid">
            <PolicyRow
              label="Conversations"
              days={view.conversationDays}
              own={view.own.conversationDays}
              fallback={view.defaults.conversationDays}
            />
            <PolicyRow label="Audit log" days={view.auditDays} own={view.own.auditDays} fallback={view.defaults.auditDays} />
          </dl>
        )}
      </CardContent>
    </Card>
  );
}

function PolicyRow({ label, days, own, fallback }: { label: string; days: number; own: number | null; fallback: number }) {
  return (
    <div className="grid gap-1 border-t py-3 first:border-t-0 first:pt-0 last:pb-0 sm:grid-cols-[8rem_minmax(0,1fr)] sm:gap-3">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="grid gap-1" data-testid={`policy-${label === "Audit log" ? "audit" : "conversations"}`}>
        <span className="flex flex-wrap items-center gap-2">
          <span className="font-semibold">Kept {keptFor(days)}</span>
          <Badge tone={own === null ? "neutral" : "info"}>{own === null ? "Deployment default" : "Your setting"}</Badge>
        </span>
        <span className="text-xs text-muted-foreground">
          {own === null
            ? "Set by whoever runs this deployment, until you choose your own."
            : `The deployment's default would be: kept ${keptFor(fallback)}.`}
        </span>
      </dd>
    </div>
  );
}

/** Both choices at once, checked here first (whole days within range), then saved together. */
function PolicyForm({ view, onDone }: { view: RetentionView; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [conversations, setConversations] = useState(() => choiceOf(view.own.conversationDays));
  const [audit, setAudit] = useState(() => choiceOf(view.own.auditDays));
  const [errors, setErrors] = useState<{ conversations?: string; audit?: string }>({});
  const conversationsInput = useRef<HTMLInputElement>(null);
  const auditInput = useRef<HTMLInputElement>(null);
  const first = useRef<HTMLFieldSetElement>(null);
  // Opening the form puts the keyboard on the conversations' choice.
  useEffect(() => first.current?.querySelector<HTMLInputElement>("input:checked")?.focus(), []);
  const save = useMutation(
    trpc.retention.set.mutationOptions({
      onSuccess: (saved) => {
        queryClient.setQueryData(trpc.retention.get.queryKey(), saved);
        toast({
          tone: "success",
          title: "Retention policy saved",
          detail: `Conversations: ${said(saved.own.conversationDays, saved.defaults.conversationDays)}. Audit log: ${said(saved.own.auditDays, saved.defaults.auditDays)}.`,
        });
        onDone();
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c = valueOf(conversations);
    const a = valueOf(audit);
    if ("error" in c || "error" in a) {
      setErrors({ conversations: "error" in c ? c.error : undefined, audit: "error" in a ? a.error : undefined });
      ("error" in c ? conversationsInput : auditInput).current?.focus();
      return;
    }
    setErrors({});
    save.mutate({ conversationDays: c.days, auditDays: a.days });
  };
  return (
    <form className="grid gap-5" onSubmit={submit} noValidate aria-label="Retention policy" data-testid="retention-form">
      <DaysChoice
        ref={first}
        name="conversations"
        legend="Conversations"
        daysLabel="Days without activity"
        fallback={view.defaults.conversationDays}
        choice={conversations}
        error={errors.conversations}
        input={conversationsInput}
        onChange={(choice) => {
          setConversations(choice);
          setErrors((e) => ({ ...e, conversations: undefined }));
        }}
      />
      <DaysChoice
        name="audit"
        legend="Audit log"
        daysLabel="Days a row is kept"
        fallback={view.defaults.auditDays}
        choice={audit}
        error={errors.audit}
        input={auditInput}
        onChange={(choice) => {
          setAudit(choice);
          setErrors((e) => ({ ...e, audit: undefined }));
        }}
      />
      <p className="text-sm text-muted-foreground">
        A shorter period applies from the next sweep: what is past it then is deleted for good. Conversations a run still holds are kept
        until it ends.
      </p>
      {save.isError ? <ErrorAlert>Could not save the policy: {save.error.message}</ErrorAlert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save policy"}
        </Button>
        <Button variant="ghost" onClick={onDone} disabled={save.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
