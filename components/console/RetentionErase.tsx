"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleCheckIcon, Trash2Icon, UsersIcon } from "lucide-react";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { Field, Input, Select } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";
import { count, type RetentionUser } from "./retentionText";

interface Erased {
  email: string;
  erased: number;
  kept: number;
}

/** What an erasure did, as one sentence: "Erased 3 conversations; 1 is still in use by a running conversation and was kept." */
export function erasedSentence({ erased, kept }: { erased: number; kept: number }): string {
  const done = `Erased ${count(erased, "conversation")}`;
  if (kept === 0) return `${done}.`;
  return kept === 1
    ? `${done}; 1 is still in use by a running conversation and was kept.`
    : `${done}; ${kept.toLocaleString("en")} are still in use by running conversations and were kept.`;
}

/**
 * Erasing one user's conversations on request (someone leaving, or asking to be forgotten): pick
 * the user, then type their email to confirm, since nothing brings the conversations back.
 */
export function RetentionErase() {
  const trpc = useTRPC();
  const users = useQuery(trpc.retention.users.queryOptions(undefined, { refetchInterval: 30_000 }));
  const [picked, setPicked] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [result, setResult] = useState<Erased | null>(null);
  const selectId = useId();
  const list = users.data ?? [];
  const user = list.find((u) => u.userId === picked) ?? list[0] ?? null;
  return (
    <Card data-testid="retention-erase">
      <CardHeader>
        <CardTitle>Erase a user&apos;s conversations</CardTitle>
        <CardDescription>
          When someone leaves or asks to be forgotten: deletes every conversation they own, whatever its age, with its runs, events and
          approvals. It cannot be undone; the erasure itself is written to the audit log.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {users.isPending ? (
          <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading users">
            <Skeleton className="h-5 w-24" />
            <Skeleton className="h-9 w-full max-w-md" />
          </div>
        ) : users.isError ? (
          <ErrorAlert>Could not load the users: {users.error.message}</ErrorAlert>
        ) : !user ? (
          <EmptyState icon={UsersIcon} title="Your organisation has no users yet." />
        ) : (
          <>
            <div className="grid gap-1.5">
              <label htmlFor={selectId} className="text-sm font-medium">
                User
              </label>
              <Select
                id={selectId}
                className="max-w-md"
                value={user.userId}
                disabled={confirming}
                onChange={(e) => {
                  setPicked(e.target.value);
                  setResult(null);
                }}
                aria-describedby={`${selectId}-count`}
              >
                {list.map((u) => (
                  <option key={u.userId} value={u.userId}>
                    {u.name} ({u.email}) · {count(u.conversations, "conversation")}
                  </option>
                ))}
              </Select>
              <span id={`${selectId}-count`} className="text-xs text-muted-foreground" data-testid="erase-count">
                {user.conversations === 0
                  ? `${user.name} has no conversations.`
                  : `${user.name} has ${count(user.conversations, "conversation")}.`}
              </span>
            </div>
            {confirming ? (
              <ConfirmErase
                key={user.userId}
                user={user}
                onCancel={() => setConfirming(false)}
                onErased={(erased) => {
                  setConfirming(false);
                  setResult({ email: user.email, ...erased });
                }}
              />
            ) : (
              <Button
                variant="danger"
                size="sm"
                className="justify-self-start"
                disabled={user.conversations === 0}
                onClick={() => {
                  setConfirming(true);
                  setResult(null);
                }}
              >
                <Trash2Icon aria-hidden="true" />
                Erase conversations…
              </Button>
            )}
          </>
        )}
        {/* Said in place as well as in a toast: the outcome stays readable after the toast goes. */}
        <div role="status" data-testid="erase-result">
          {result ? (
            <p className="flex items-start gap-2 rounded-lg border border-success-border bg-success-bg px-3 py-2 text-sm text-success-fg">
              <CircleCheckIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
              <span className="min-w-0 [overflow-wrap:anywhere]">
                {result.email}: {erasedSentence(result)}
              </span>
            </p>
          ) : null}
        </div>
      </CardContent>
    </Card>
  );
}

/**
 * The confirmation: the user's email typed back before the destructive button works. The field
 * takes the focus, never the button, so an Enter already on its way erases nothing.
 */
function ConfirmErase({
  user,
  onCancel,
  onErased,
}: {
  user: RetentionUser;
  onCancel: () => void;
  onErased: (result: { erased: number; kept: number }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [typed, setTyped] = useState("");
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const matches = typed.trim().toLowerCase() === user.email.toLowerCase();
  const erase = useMutation(
    trpc.retention.eraseUser.mutationOptions({
      onSuccess: async (result) => {
        onErased(result);
        toast({ tone: "success", title: "Conversations erased", detail: `${user.email}: ${erasedSentence(result)}` });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.retention.users.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.retention.get.queryKey() }),
        ]);
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (matches && !erase.isPending) erase.mutate({ userId: user.userId });
  };
  return (
    <form
      className="grid max-w-2xl gap-3 rounded-lg border border-danger-border bg-danger-bg p-3 text-sm text-danger-fg sm:p-4"
      onSubmit={submit}
      aria-label="Confirm erasure"
      data-testid="erase-confirm"
    >
      <p>
        {user.conversations === 1
          ? `Erase ${user.name}'s conversation? It is deleted at once and cannot be brought back.`
          : `Erase all ${user.conversations.toLocaleString("en")} of ${user.name}'s conversations? They are deleted at once and cannot be brought back.`}
      </p>
      <Field label={<span className="text-danger-fg">Type {user.email} to confirm</span>} className="max-w-md">
        <Input
          ref={field}
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          inputMode="email"
          className="font-mono"
        />
      </Field>
      {erase.isError ? <ErrorAlert className="bg-card">Could not erase the conversations: {erase.error.message}</ErrorAlert> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="danger" size="sm" disabled={!matches || erase.isPending}>
          <Trash2Icon aria-hidden="true" />
          {erase.isPending ? "Erasing…" : `Erase ${count(user.conversations, "conversation")}`}
        </Button>
        <Button variant="secondary" size="sm" onClick={onCancel} disabled={erase.isPending}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
