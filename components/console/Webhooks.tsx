"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeftIcon, CheckIcon, CopyIcon, KeyRoundIcon, PlusIcon, Trash2Icon, WebhookIcon } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Input } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";
import { WEBHOOK_EVENTS, type WebhookEvent } from "@/server/domain";
import { relative } from "./format";
import { WebhookDeliveries } from "./WebhookDeliveries";

type Webhook = RouterOutputs["webhooks"]["list"][number];
type Created = RouterOutputs["webhooks"]["create"];

export const EVENT_HINTS: Record<WebhookEvent, string> = {
  "pause.requested": "a pause opens: an approval, a form, a consent",
  "pause.reminder": "it is still open as its deadline nears",
  "pause.escalated": "nobody decided in time and it went to another group",
  "pause.resolved": "it is approved, rejected, answered or cancelled",
  "pause.expired": "it can no longer be answered (expired or lost)",
};

export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * The tenant's outgoing webhooks for its admins: the list, a form to add one (whose signing secret
 * shows once), and a webhook's delivery log. Phones show the list or one webhook, with Back.
 */
export function Webhooks() {
  const trpc = useTRPC();
  // Another admin's changes show within a few seconds.
  const list = useQuery(trpc.webhooks.list.queryOptions(undefined, { refetchInterval: 10_000 }));
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  const [phoneDetail, setPhoneDetail] = useState(false);
  const detailPane = useRef<HTMLElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 1023px)").matches) detailPane.current?.focus();
  }, [phoneDetail]);

  const hooks = list.data ?? [];
  // Wide screens show the first webhook's log until another is picked.
  const current = hooks.find((w) => w.id === selected) ?? hooks[0] ?? null;
  const open = (id: string) => {
    setSelected(id);
    setPhoneDetail(true);
  };

  return (
    <div className="flex min-h-0 flex-1" data-testid="webhooks">
      <section
        className={cn(
          "min-w-0 flex-1 flex-col overflow-y-auto lg:flex lg:w-[26rem] lg:flex-none lg:border-r",
          phoneDetail ? "hidden" : "flex",
        )}
        aria-label="Webhooks"
      >
        <div className="grid gap-3 border-b p-3 sm:p-4">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h1 className="text-base font-semibold tracking-tight">Webhooks</h1>
          </div>
          <p className="text-sm text-muted-foreground">
            Harbor POSTs your organisation&apos;s pause events to these URLs, signed the{" "}
            <a href="https://www.standardwebhooks.com" className="text-primary underline underline-offset-2 hover:no-underline">
              Standard Webhooks
            </a>{" "}
            way, and retries until they are taken.
          </p>
          {creating ? null : (
            <Button
              variant="primary"
              size="sm"
              className="justify-self-start"
              onClick={() => {
                setCreating(true);
                setCreated(null);
              }}
            >
              <PlusIcon aria-hidden="true" />
              New webhook
            </Button>
          )}
        </div>
        <div className="grid content-start gap-3 p-3 sm:p-4">
          {creating ? (
            <CreateWebhook
              onCancel={() => setCreating(false)}
              onCreated={(hook) => {
                setCreating(false);
                setCreated(hook);
                setSelected(hook.id);
              }}
            />
          ) : null}
          {created ? <NewSecret hook={created} onDone={() => setCreated(null)} /> : null}
          {list.isPending ? (
            <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading webhooks">
              {[0, 1, 2].map((n) => (
                <Skeleton key={n} className="h-20 rounded-xl" />
              ))}
            </div>
          ) : list.isError ? (
            <ErrorAlert>Could not load the webhooks: {list.error.message}</ErrorAlert>
          ) : hooks.length === 0 ? (
            creating ? null : (
              <Card>
                <EmptyState icon={WebhookIcon} title="No webhooks yet." data-testid="webhooks-empty">
                  Add one to tell a chat channel, a pager or a ticket system when an approval waits, is decided or expires.
                </EmptyState>
              </Card>
            )
          ) : (
            <ul className="grid gap-2" data-testid="webhook-list">
              {hooks.map((hook) => (
                <li key={hook.id}>
                  <button
                    type="button"
                    onClick={() => open(hook.id)}
                    aria-current={current?.id === hook.id ? "true" : undefined}
                    data-testid="webhook-row"
                    data-webhook-id={hook.id}
                    className={cn(
                      "grid w-full cursor-pointer gap-1.5 rounded-xl border bg-card p-3 text-left transition-colors hover:bg-accent",
                      // Until one is picked, the first shows beside the list on wide screens only.
                      current?.id === hook.id &&
                        (selected
                          ? "border-primary bg-primary-soft hover:bg-primary-soft"
                          : "lg:border-primary lg:bg-primary-soft lg:hover:bg-primary-soft"),
                    )}
                  >
                    <span className="font-mono text-sm font-medium [overflow-wrap:anywhere]">{hook.url}</span>
                    <EventBadges events={hook.events} />
                    <span className="text-xs text-muted-foreground">
                      Added by {hook.createdByName ?? hook.createdBy} ·{" "}
                      <time dateTime={hook.createdAt} title={when(hook.createdAt)}>
                        {relative(hook.createdAt)}
                      </time>
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
      <section
        ref={detailPane}
        tabIndex={-1}
        className={cn("min-w-0 flex-1 overflow-y-auto bg-surface outline-none lg:block", phoneDetail ? "block" : "hidden")}
        aria-label="Webhook detail"
      >
        <div className="mx-auto grid max-w-4xl gap-3 p-3 sm:p-5">
          {/* The list (and its heading) is hidden on narrow screens while a webhook shows. */}
          <h1 className="sr-only lg:hidden">Webhooks</h1>
          <Button variant="ghost" size="sm" className="justify-self-start lg:hidden" onClick={() => setPhoneDetail(false)}>
            <ArrowLeftIcon aria-hidden="true" />
            Back to webhooks
          </Button>
          {current ? (
            <WebhookDetail
              key={current.id}
              hook={current}
              onDeleted={() => {
                setSelected(null);
                setPhoneDetail(false);
                if (created?.id === current.id) setCreated(null);
              }}
            />
          ) : list.isPending ? null : (
            <EmptyState icon={WebhookIcon} title="Add a webhook to see its deliveries here." />
          )}
        </div>
      </section>
    </div>
  );
}

export function EventBadges({ events }: { events: readonly WebhookEvent[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {events.map((e) => (
        <Badge key={e} tone="info" className="font-mono">
          {e}
        </Badge>
      ))}
    </span>
  );
}

/** The form: a URL and the events it receives (all three to begin with). */
function CreateWebhook({ onCancel, onCreated }: { onCancel: () => void; onCreated: (hook: Created) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEvent[]>([...WEBHOOK_EVENTS]);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: async (hook) => {
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
        onCreated(hook);
      },
    }),
  );
  const urlInput = useRef<HTMLInputElement>(null);
  useEffect(() => urlInput.current?.focus(), []);
  // The server names the field it refuses: a URL problem is said under the URL.
  const message = create.error?.message ?? "";
  const urlError = message.startsWith("url: ") ? `The URL ${message.slice(5)}.` : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (events.length > 0) create.mutate({ url: url.trim(), events });
  };
  const toggle = (event: WebhookEvent, on: boolean) =>
    setEvents((current) => WEBHOOK_EVENTS.filter((x) => (x === event ? on : current.includes(x))));
  return (
    <Card className="p-4">
      <form className="grid gap-4" onSubmit={submit} aria-labelledby="new-webhook-title" data-testid="webhook-form">
        <h2 id="new-webhook-title" className="font-semibold">
          New webhook
        </h2>
        <label className="grid gap-1.5">
          <span className="text-sm font-medium">Endpoint URL</span>
          <Input
            ref={urlInput}
            type="url"
            required
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://hooks.example.com/harbor"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={urlError ? true : undefined}
            className="aria-invalid:border-destructive"
            aria-describedby={urlError ? "webhook-url-error" : "webhook-url-hint"}
          />
          {urlError ? (
            <span id="webhook-url-error" className="text-xs text-danger-fg">
              {urlError}
            </span>
          ) : (
            <span id="webhook-url-hint" className="text-xs text-muted-foreground">
              https only, and not an address inside your network.
            </span>
          )}
        </label>
        <fieldset className="grid gap-2">
          <legend className="mb-2 text-sm font-medium">Events</legend>
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} className="flex cursor-pointer items-start gap-2.5 text-sm">
              <input
                type="checkbox"
                className="mt-0.5 size-4 shrink-0 cursor-pointer accent-primary"
                checked={events.includes(event)}
                onChange={(e) => toggle(event, e.target.checked)}
                name="events"
                value={event}
              />
              <span className="min-w-0">
                <span className="font-mono text-[0.8125rem] font-medium">{event}</span>
                <span className="block text-xs text-muted-foreground">when {EVENT_HINTS[event]}</span>
              </span>
            </label>
          ))}
          {events.length === 0 ? <span className="text-xs text-danger-fg">Pick at least one event.</span> : null}
        </fieldset>
        {create.isError && !urlError ? <ErrorAlert>Could not create the webhook: {message}</ErrorAlert> : null}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" disabled={create.isPending || events.length === 0}>
            {create.isPending ? "Creating…" : "Create webhook"}
          </Button>
          <Button variant="ghost" onClick={onCancel} disabled={create.isPending}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The signing secret, shown this once: a copy button and a plain warning. */
function NewSecret({ hook, onDone }: { hook: Created; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(hook.secret);
      setCopied(true);
    } catch {
      // No clipboard (an insecure page, a refused permission): select it for the keyboard's copy.
      field.current?.select();
    }
  };
  return (
    <Card className="grid gap-3 border-warning-border p-4" data-testid="webhook-secret">
      <div className="flex items-start gap-2.5">
        <span className="grid size-8 shrink-0 place-items-center rounded-lg bg-warning-bg text-warning-fg">
          <KeyRoundIcon className="size-4" aria-hidden="true" />
        </span>
        <div className="grid min-w-0 gap-1">
          <h2 ref={heading} tabIndex={-1} className="font-semibold outline-none">
            Copy the signing secret now
          </h2>
          <p className="text-sm text-muted-foreground">
            <strong className="font-semibold text-foreground">You will not see it again:</strong> Harbor keeps it encrypted and never shows
            it twice. Your receiver checks each message&apos;s <code>webhook-signature</code> with it.
          </p>
        </div>
      </div>
      <label className="grid gap-1.5">
        <span className="text-sm font-medium">Signing secret</span>
        <div className="flex min-w-0 gap-2">
          <Input
            ref={field}
            readOnly
            value={hook.secret}
            className="font-mono text-xs sm:text-xs"
            onFocus={(e) => e.currentTarget.select()}
            data-testid="webhook-secret-value"
          />
          <Button variant="secondary" onClick={() => void copy()} aria-label={copied ? "Secret copied" : "Copy secret"}>
            {copied ? <CheckIcon aria-hidden="true" /> : <CopyIcon aria-hidden="true" />}
            <span className="hidden sm:inline">{copied ? "Copied" : "Copy"}</span>
          </Button>
        </div>
      </label>
      <p role="status" className="sr-only">
        {copied ? "The secret is on your clipboard." : ""}
      </p>
      <Button variant="primary" size="sm" className="justify-self-start" onClick={onDone}>
        I have stored it
      </Button>
    </Card>
  );
}

/** One webhook: what it receives, who added it, Delete (confirmed), and its delivery log. */
function WebhookDetail({ hook, onDeleted }: { hook: Webhook; onDeleted: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.webhooks.delete.mutationOptions({
      onSuccess: async () => {
        onDeleted();
        toast({ tone: "success", title: "Webhook deleted", detail: hook.url });
        queryClient.removeQueries({ queryKey: trpc.webhooks.deliveries.queryKey({ webhookId: hook.id }) });
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );
  return (
    <article className="grid gap-4" data-testid="webhook-detail" data-webhook-id={hook.id}>
      <header className="grid gap-2">
        <h2 className="font-mono text-base font-semibold [overflow-wrap:anywhere]">{hook.url}</h2>
        <EventBadges events={hook.events} />
        <p className="text-sm text-muted-foreground">
          Added by {hook.createdByName ?? hook.createdBy} on <time dateTime={hook.createdAt}>{when(hook.createdAt)}</time>
        </p>
        {confirming ? (
          <div
            className="grid gap-2 rounded-lg border border-danger-border bg-danger-bg p-3 text-sm text-danger-fg"
            role="group"
            aria-label="Confirm deletion"
          >
            <p>Delete this webhook? Harbor stops sending to it at once; its delivery log and undelivered messages go with it.</p>
            <div className="flex flex-wrap gap-2">
              <Button variant="danger" size="sm" onClick={() => remove.mutate({ webhookId: hook.id })} disabled={remove.isPending}>
                {remove.isPending ? "Deleting…" : "Yes, delete"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setConfirming(false)} disabled={remove.isPending}>
                Keep it
              </Button>
            </div>
          </div>
        ) : (
          <Button variant="danger" size="sm" className="justify-self-start" onClick={() => setConfirming(true)}>
            <Trash2Icon aria-hidden="true" />
            Delete webhook
          </Button>
        )}
        {remove.isError ? <ErrorAlert>Could not delete the webhook: {remove.error.message}</ErrorAlert> : null}
      </header>
      <WebhookDeliveries webhookId={hook.id} />
    </article>
  );
}
