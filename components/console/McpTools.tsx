"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangleIcon, LockIcon, RotateCcwIcon, Trash2Icon, WrenchIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";
import { ErrorAlert } from "@/components/ui/Alert";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { Input, Select } from "@/components/ui/Input";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";
import type { McpGate } from "@/server/domain";
import { when } from "./Webhooks";

/** A server as admins see it (members get names only). */
export type McpServer = Extract<RouterOutputs["mcp"]["servers"]["list"][number], { id: string }>;
type Tool = RouterOutputs["mcp"]["servers"]["tools"][number];

const GATES: Record<McpGate, { label: string; hint: string }> = {
  none: { label: "Runs at once", hint: "The assistant calls it without asking anyone." },
  owner: { label: "Requester approves", hint: "The person who asked approves each call first." },
  approvers: { label: "Another approver approves", hint: "An approver other than the requester approves each call first." },
};
const GATE_ORDER: McpGate[] = ["none", "owner", "approvers"];

/** The name the assistant is offered the tool under (as the runtime names it). */
const offeredName = (server: string, tool: string) => `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, "_")}`.slice(0, 64);

/** One server: where it is, the names of its headers (never their values), Remove (confirmed), and its tools. */
export function McpServerDetail({ server, focusOnMount, onRemoved }: { server: McpServer; focusOnMount: boolean; onRemoved: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusOnMount) heading.current?.focus();
  }, [focusOnMount]);
  const remove = useMutation(
    trpc.mcp.servers.delete.mutationOptions({
      onSuccess: async () => {
        onRemoved();
        toast({ tone: "success", title: "MCP server removed", detail: server.name });
        queryClient.removeQueries({ queryKey: trpc.mcp.servers.tools.queryKey({ id: server.id }) });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.mcp.servers.suggestions.queryKey() }),
        ]);
      },
    }),
  );
  const operator = server.source === "operator";
  return (
    <article className="grid gap-4" data-testid="mcp-server-detail" data-mcp-server-id={server.id}>
      <header className="grid gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <h2 ref={heading} tabIndex={-1} className="font-mono text-base font-semibold outline-none [overflow-wrap:anywhere]">
            {server.name}
          </h2>
          {operator ? <Badge tone="violet">Run by this deployment</Badge> : null}
        </div>
        {server.url ? <p className="font-mono text-sm text-muted-foreground [overflow-wrap:anywhere]">{server.url}</p> : null}
        {server.headerNames && server.headerNames.length > 0 ? (
          <div className="flex flex-wrap items-center gap-1.5 text-sm">
            <span className="text-muted-foreground">Headers sent:</span>
            {server.headerNames.map((h) => (
              <Badge key={h} className="font-mono">
                {h}
              </Badge>
            ))}
          </div>
        ) : null}
        {server.createdAt ? (
          <p className="text-sm text-muted-foreground">
            Connected on <time dateTime={server.createdAt}>{when(server.createdAt)}</time>
          </p>
        ) : null}
        {operator ? (
          <p className="flex items-start gap-2 text-sm text-muted-foreground">
            <LockIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            This deployment runs this server as a local process: its operator removes it, and its tools keep the gates their annotations
            give.
          </p>
        ) : confirming ? (
          <div
            className="grid gap-2 rounded-lg border border-danger-border bg-danger-bg p-3 text-sm text-danger-fg"
            role="group"
            aria-label="Confirm removal"
          >
            <p>Remove {server.name}? The assistant stops being offered its tools at once, and the gates chosen for them go with it.</p>
            <div className="flex flex-wrap gap-2">
              <Button variant="danger" size="sm" onClick={() => remove.mutate({ id: server.id })} disabled={remove.isPending}>
                {remove.isPending ? "Removing…" : "Yes, remove"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => setConfirming(false)} disabled={remove.isPending}>
                Keep it
              </Button>
            </div>
          </div>
        ) : (
          <Button variant="danger" size="sm" className="justify-self-start" onClick={() => setConfirming(true)}>
            <Trash2Icon aria-hidden="true" />
            Remove server
          </Button>
        )}
        {remove.isError ? <ErrorAlert>Could not remove the server: {remove.error.message}</ErrorAlert> : null}
      </header>
      <McpTools server={server} />
    </article>
  );
}

/** The server's tools, listed again as the page opens, each with the gate its calls pass. */
function McpTools({ server }: { server: McpServer }) {
  const trpc = useTRPC();
  // Each look asks the server again: not more often than every half minute.
  const tools = useQuery(trpc.mcp.servers.tools.queryOptions({ id: server.id }, { staleTime: 30_000 }));
  return (
    <section className="grid gap-2" aria-labelledby="mcp-tools-title">
      <div className="flex items-baseline justify-between gap-2">
        <h3 id="mcp-tools-title" className="text-sm font-semibold">
          Tools and their gates
        </h3>
        {tools.data ? (
          <span className="text-xs text-muted-foreground">
            {tools.data.length} tool{tools.data.length === 1 ? "" : "s"}
          </span>
        ) : null}
      </div>
      {tools.isPending ? (
        <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading tools">
          {[0, 1, 2].map((n) => (
            <Skeleton key={n} className="h-28 rounded-xl" />
          ))}
        </div>
      ) : tools.isError ? (
        <ErrorAlert>Could not list the tools: {tools.error.message}</ErrorAlert>
      ) : (
        <>
          {tools.data.some((t) => t.stale) ? (
            <p
              role="alert"
              className="flex items-start gap-2 rounded-lg border border-warning-border bg-warning-bg px-3 py-2 text-sm text-warning-fg"
              data-testid="mcp-tools-stale"
            >
              <AlertTriangleIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
              The server did not answer; these are the tools it listed last.
            </p>
          ) : null}
          {tools.data.length === 0 ? (
            <Card>
              <EmptyState icon={WrenchIcon} title="This server offers no tools." />
            </Card>
          ) : (
            <ul className="grid gap-2" data-testid="mcp-tools">
              {tools.data.map((tool) => (
                <ToolItem key={tool.name} server={server} tool={tool} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function AnnotationBadges({ annotations: a }: { annotations: Tool["annotations"] }) {
  const badges = [
    a.readOnlyHint === true && (
      <Badge key="read" tone="success">
        Read-only
      </Badge>
    ),
    a.destructiveHint === true && (
      <Badge key="destructive" tone="danger">
        Destructive
      </Badge>
    ),
    a.idempotentHint === true && (
      <Badge key="idempotent" tone="info">
        Idempotent
      </Badge>
    ),
    a.openWorldHint === true && (
      <Badge key="open" tone="teal">
        Open world
      </Badge>
    ),
  ].filter(Boolean);
  return badges.length > 0 ? <span className="flex flex-wrap gap-1">{badges}</span> : null;
}

/** One tool: what it is, and its gate (a native select; a quorum for approvers; Reset when an admin chose it). */
function ToolItem({ server, tool }: { server: McpServer; tool: Tool }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const toast = useToast();
  const operator = server.source === "operator";
  const title = tool.annotations.title ?? tool.title ?? tool.name;
  const fullName = offeredName(server.name, tool.name);
  const quorum = tool.quorum ?? 1;
  const select = useRef<HTMLSelectElement>(null);
  const setGate = useMutation(
    trpc.mcp.servers.setGate.mutationOptions({
      onSuccess: (_, input) => {
        const reset = input.gate === "default";
        const gate = input.gate === "default" ? tool.defaultGate : input.gate;
        // What the server now holds, without asking it to list its tools again.
        queryClient.setQueryData(trpc.mcp.servers.tools.queryKey({ id: server.id }), (old) =>
          old?.map((t) =>
            t.name === tool.name
              ? { ...t, gate, quorum: input.quorum && input.quorum > 1 ? input.quorum : undefined, overridden: !reset }
              : t,
          ),
        );
        const q = input.quorum && input.quorum > 1 ? ` (${input.quorum} approvals)` : "";
        toast({
          tone: "success",
          title: reset ? "Gate reset to its default" : "Gate changed",
          detail: `${fullName}: ${GATES[gate].label}${q}`,
        });
      },
      onError: (error) => toast({ tone: "error", title: "Could not change the gate", detail: error.message }),
    }),
  );
  const selectId = `gate-${server.id}-${tool.name}`;
  return (
    <li data-testid="mcp-tool" data-tool={tool.name} data-gate={tool.gate} data-overridden={tool.overridden ? "true" : undefined}>
      <Card className="grid gap-3 p-3 sm:p-4 md:grid-cols-[minmax(0,1fr)_19rem] md:gap-5">
        <div className="grid min-w-0 content-start gap-1">
          <h4 className="text-sm font-semibold [overflow-wrap:anywhere]">{title}</h4>
          <code className="justify-self-start font-mono text-xs text-muted-foreground [overflow-wrap:anywhere]">{fullName}</code>
          {tool.description ? <p className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{tool.description}</p> : null}
          <AnnotationBadges annotations={tool.annotations} />
        </div>
        <div className="grid min-w-0 content-start gap-2">
          <div className="grid gap-1.5">
            <label htmlFor={selectId} className="text-xs font-medium text-muted-foreground">
              Gate<span className="sr-only"> for {tool.name}</span>
            </label>
            <Select
              id={selectId}
              value={tool.gate}
              ref={select}
              disabled={operator}
              aria-busy={setGate.isPending || undefined}
              onChange={(e) => setGate.mutate({ id: server.id, tool: tool.name, gate: e.target.value as McpGate })}
              aria-describedby={`${selectId}-hint`}
            >
              {GATE_ORDER.map((g) => (
                <option key={g} value={g}>
                  {GATES[g].label}
                  {g === tool.defaultGate ? " (default)" : ""}
                </option>
              ))}
            </Select>
            <span id={`${selectId}-hint`} className="text-xs text-muted-foreground">
              {operator ? "Set by its annotations: this deployment runs it." : GATES[tool.gate].hint}
            </span>
          </div>
          {tool.gate === "approvers" ? (
            <QuorumInput
              quorum={quorum}
              disabled={operator}
              onCommit={(n) => setGate.mutate({ id: server.id, tool: tool.name, gate: "approvers", quorum: n })}
            />
          ) : null}
          {tool.overridden && !operator ? (
            <Button
              variant="link"
              size="sm"
              className="justify-self-start"
              disabled={setGate.isPending}
              onClick={() =>
                // Reset goes away with the choice it undoes: the keyboard lands on the gate again.
                setGate.mutate({ id: server.id, tool: tool.name, gate: "default" }, { onSuccess: () => select.current?.focus() })
              }
            >
              <RotateCcwIcon aria-hidden="true" />
              Reset to default
            </Button>
          ) : null}
        </div>
      </Card>
    </li>
  );
}

/** How many approvals a call needs (1–10): sent when the field is left or Enter is pressed. */
function QuorumInput({ quorum, disabled, onCommit }: { quorum: number; disabled: boolean; onCommit: (n: number) => void }) {
  const [text, setText] = useState(String(quorum));
  // When the quorum changes (here or for another admin), the field follows it; it keeps the focus.
  const [shown, setShown] = useState(quorum);
  if (shown !== quorum) {
    setShown(quorum);
    setText(String(quorum));
  }
  const commit = () => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 10) setText(String(quorum));
    else if (n !== quorum) onCommit(n);
  };
  return (
    <label className="flex items-center justify-between gap-2">
      <span className="text-xs font-medium text-muted-foreground">Approvals needed</span>
      <Input
        type="number"
        min={1}
        max={10}
        step={1}
        inputMode="numeric"
        className="w-20 tabular-nums"
        value={text}
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit();
          }
        }}
      />
    </label>
  );
}
