"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { PlugIcon, PlusIcon, XIcon } from "lucide-react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Input } from "@/components/ui/Input";

type Suggestion = RouterOutputs["mcp"]["servers"]["suggestions"][number];
type OnConnected = (id: string, name: string, tools: number) => void;

/** Headers a tenant may give one server (the server refuses more). */
const MAX_HEADERS = 20;

export const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** "is taken by…" reads after "The name"; "lowercase letters, …" is what to use, said alone. */
const sentence = (subject: string, problem: string) =>
  /^(is|must|are) /.test(problem) ? `${subject} ${problem}.` : `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`;

/** Connecting lists the server's tools first: the list and the suggestions change with it. */
function useConnect(onConnected: OnConnected) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.mcp.servers.create.mutationOptions({
      onSuccess: async (created, input) => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.suggestions.queryKey() }),
        ]);
        onConnected(created.id, input.name, created.tools);
      },
    }),
  );
}

/** A server this deployment offers (the demo's calendar): one click connects it. */
export function SuggestedServer({ suggestion, onConnected }: { suggestion: Suggestion; onConnected: OnConnected }) {
  const connect = useConnect(onConnected);
  const id = `mcp-suggestion-${suggestion.name}`;
  const title = suggestion.title.charAt(0).toLowerCase() + suggestion.title.slice(1);
  return (
    <Card className="grid gap-3 border-primary/40 p-3 sm:p-4" data-testid="mcp-suggestion">
      <div className="flex items-center gap-3">
        <span className="grid size-9 shrink-0 place-items-center rounded-lg bg-primary-soft text-primary">
          <PlugIcon className="size-4" aria-hidden="true" />
        </span>
        <div className="grid min-w-0 flex-1 gap-0.5">
          <h2 id={`${id}-title`} className="text-sm font-semibold">
            Connect {title}
          </h2>
          <p className="text-xs text-muted-foreground [overflow-wrap:anywhere]">
            <span className="font-mono">{suggestion.name}</span> at {hostOf(suggestion.url)}
          </p>
        </div>
        <Button
          variant="primary"
          size="sm"
          aria-describedby={`${id}-title`}
          disabled={connect.isPending}
          onClick={() => connect.mutate({ name: suggestion.name, url: suggestion.url })}
        >
          {connect.isPending ? "Connecting…" : "Connect"}
        </Button>
      </div>
      {connect.isError ? <ErrorAlert>Could not connect it: {connect.error.message}</ErrorAlert> : null}
    </Card>
  );
}

interface HeaderRow {
  key: number;
  name: string;
  value: string;
}

/** The form: a name, an https URL, and static headers (a credential) sent on every request. */
export function ConnectServer({ onCancel, onConnected }: { onCancel: () => void; onConnected: OnConnected }) {
  const connect = useConnect(onConnected);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const nextKey = useRef(0);
  const nameInput = useRef<HTMLInputElement>(null);
  const headerNames = useRef(new Map<number, HTMLInputElement>());
  const addButton = useRef<HTMLButtonElement>(null);
  useEffect(() => nameInput.current?.focus(), []);

  // The server names the field it refuses ("url: must use https"): each problem is said under its field.
  const message = connect.error?.message ?? "";
  const field = /^(name|url|headers\.[^:]+): (.*)$/s.exec(message);
  const nameError = field?.[1] === "name" ? sentence("The name", field[2]!) : null;
  const urlError = field?.[1] === "url" ? sentence("The URL", field[2]!) : null;
  const headerError = field?.[1]?.startsWith("headers.") ? { name: field[1].slice(8).toLowerCase(), text: field[2]! } : null;

  const addHeader = () => {
    const key = nextKey.current++;
    setHeaders((rows) => [...rows, { key, name: "", value: "" }]);
    // The new row's name takes the focus once it is there.
    requestAnimationFrame(() => headerNames.current.get(key)?.focus());
  };
  const change = (key: number, patch: Partial<HeaderRow>) =>
    setHeaders((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const given = headers.filter((h) => h.name.trim() !== "");
    connect.mutate({
      name: name.trim(),
      url: url.trim(),
      ...(given.length > 0 ? { headers: Object.fromEntries(given.map((h) => [h.name.trim(), h.value])) } : {}),
    });
  };
  return (
    <Card className="p-4">
      <form className="grid gap-4" onSubmit={submit} aria-labelledby="connect-mcp-title" data-testid="mcp-form">
        <h2 id="connect-mcp-title" className="font-semibold">
          Connect a server
        </h2>
        <div className="grid gap-1.5">
          <label htmlFor="mcp-name" className="text-sm font-medium">
            Name
          </label>
          <Input
            id="mcp-name"
            ref={nameInput}
            required
            maxLength={32}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            placeholder="calendar"
            className="font-mono aria-invalid:border-destructive"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? "mcp-name-error" : "mcp-name-hint"}
          />
          {nameError ? (
            <span id="mcp-name-error" className="text-xs text-danger-fg">
              {nameError}
            </span>
          ) : (
            <span id="mcp-name-hint" className="text-xs text-muted-foreground">
              Lowercase letters, digits and -, at most 32: its tools are named <code className="font-mono">name__tool</code>.
            </span>
          )}
        </div>
        <div className="grid gap-1.5">
          <label htmlFor="mcp-url" className="text-sm font-medium">
            URL
          </label>
          <Input
            id="mcp-url"
            type="url"
            required
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://mcp.example.com/mcp"
            className="aria-invalid:border-destructive"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={urlError ? true : undefined}
            aria-describedby={urlError ? "mcp-url-error" : "mcp-url-hint"}
          />
          {urlError ? (
            <span id="mcp-url-error" className="text-xs text-danger-fg">
              {urlError}
            </span>
          ) : (
            <span id="mcp-url-hint" className="text-xs text-muted-foreground">
              https only, and not an address inside your network.
            </span>
          )}
        </div>
        <fieldset className="grid gap-2" aria-describedby="mcp-headers-hint">
          <legend className="mb-1 text-sm font-medium">
            Headers <span className="font-normal text-muted-foreground">(optional)</span>
          </legend>
          {headers.length > 0 ? (
            // What each column holds, for the eye: each field is named for screen readers on its own.
            <div className="flex gap-2 text-xs text-muted-foreground" aria-hidden="true">
              <span className="flex-[3]">Name</span>
              <span className="flex-[2]">Value</span>
              <span className="w-9 shrink-0" />
            </div>
          ) : null}
          {headers.map((h, i) => {
            const refused = headerError && h.name.trim().toLowerCase() === headerError.name;
            return (
              <div key={h.key} className="grid gap-1">
                <div className="flex min-w-0 gap-2">
                  <Input
                    ref={(el) => {
                      if (el) headerNames.current.set(h.key, el);
                      else headerNames.current.delete(h.key);
                    }}
                    aria-label={`Header ${i + 1} name`}
                    placeholder="Authorization"
                    required={h.value !== ""}
                    maxLength={100}
                    autoComplete="off"
                    autoCapitalize="none"
                    spellCheck={false}
                    className="flex-[3] font-mono aria-invalid:border-destructive"
                    value={h.name}
                    onChange={(e) => change(h.key, { name: e.target.value })}
                    aria-invalid={refused ? true : undefined}
                    aria-describedby={refused ? `mcp-header-${h.key}-error` : undefined}
                  />
                  <Input
                    type="password"
                    aria-label={`Header ${i + 1} value`}
                    placeholder="Value"
                    required={h.name.trim() !== ""}
                    maxLength={4096}
                    autoComplete="new-password"
                    className="flex-[2]"
                    value={h.value}
                    onChange={(e) => change(h.key, { value: e.target.value })}
                  />
                  <Button
                    variant="ghost"
                    size="icon"
                    aria-label={`Remove header ${i + 1}`}
                    onClick={() => {
                      setHeaders((rows) => rows.filter((r) => r.key !== h.key));
                      // The button goes with its row: the keyboard lands on Add header.
                      addButton.current?.focus();
                    }}
                  >
                    <XIcon aria-hidden="true" />
                  </Button>
                </div>
                {refused ? (
                  <span id={`mcp-header-${h.key}-error`} className="text-xs text-danger-fg">
                    {sentence(`The header ${h.name.trim()}`, headerError.text)}
                  </span>
                ) : null}
              </div>
            );
          })}
          <Button
            ref={addButton}
            variant="secondary"
            size="sm"
            className="justify-self-start"
            onClick={addHeader}
            disabled={headers.length >= MAX_HEADERS}
          >
            <PlusIcon aria-hidden="true" />
            Add header
          </Button>
          <span id="mcp-headers-hint" className="text-xs text-muted-foreground">
            Sent on every request, kept encrypted, never shown again: an API key, for one.
          </span>
        </fieldset>
        {connect.isError && !field ? <ErrorAlert>Could not connect the server: {message}</ErrorAlert> : null}
        {field && headerError && !headers.some((h) => h.name.trim().toLowerCase() === headerError.name) ? (
          <ErrorAlert>Could not connect the server: {message}</ErrorAlert>
        ) : null}
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" variant="primary" disabled={connect.isPending}>
            {connect.isPending ? "Connecting…" : "Connect server"}
          </Button>
          <Button variant="ghost" onClick={onCancel} disabled={connect.isPending}>
            Cancel
          </Button>
          <span role="status" className="text-xs text-muted-foreground">
            {connect.isPending ? "Listing its tools; this can take a few seconds." : ""}
          </span>
        </div>
      </form>
    </Card>
  );
}
