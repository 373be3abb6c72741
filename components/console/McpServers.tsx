"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowLeftIcon, PlusIcon, ServerIcon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/EmptyState";
import { Skeleton } from "@/components/ui/Skeleton";
import { useToast } from "@/components/ui/Toaster";
import { relative } from "./format";
import { ConnectServer, hostOf, SuggestedServer } from "./McpConnect";
import { McpServerDetail, type McpServer } from "./McpTools";
import { when } from "./Webhooks";

/** Where a server is, as a row says it: its host, or that the deployment runs it. */
const whereOf = (server: McpServer) => (server.source === "operator" ? "Run by this deployment (stdio)" : hostOf(server.url ?? ""));

/**
 * The tenant's MCP servers for its admins: the list, a form to connect one (or the deployment's
 * suggestion in one click), and a server's tools with their gates. Phones show the list or one server, with Back.
 */
export function McpServers() {
  const trpc = useTRPC();
  const toast = useToast();
  // Another admin's changes show within a few seconds.
  const list = useQuery(trpc.mcp.servers.list.queryOptions(undefined, { refetchInterval: 10_000 }));
  const suggestions = useQuery(trpc.mcp.servers.suggestions.queryOptions());
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  // The server just connected: its heading takes the focus, so the keyboard lands on what was made.
  const [connected, setConnected] = useState<string | null>(null);
  const [phoneDetail, setPhoneDetail] = useState(false);
  const detailPane = useRef<HTMLElement>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (phoneDetail && window.matchMedia("(max-width: 1023px)").matches) detailPane.current?.focus();
  }, [phoneDetail]);

  // This page is for admins, who see each server whole (members get names only).
  const servers = (list.data ?? []).filter((s): s is McpServer => "id" in s);
  // Wide screens show the first server's tools until another is picked.
  const current = servers.find((s) => s.id === selected) ?? servers[0] ?? null;
  const open = (id: string) => {
    setSelected(id);
    setPhoneDetail(true);
  };
  const onConnected = (id: string, name: string, tools: number) => {
    setCreating(false);
    setConnected(id);
    open(id);
    toast({ tone: "success", title: "MCP server connected", detail: `${name}: ${tools} tool${tools === 1 ? "" : "s"}` });
  };

  return (
    <div className="flex min-h-0 flex-1" data-testid="mcp-servers">
      <section
        className={cn(
          "min-w-0 flex-1 flex-col overflow-y-auto lg:flex lg:w-[26rem] lg:flex-none lg:border-r",
          phoneDetail ? "hidden" : "flex",
        )}
        aria-label="MCP servers"
      >
        <div className="grid gap-3 border-b p-3 sm:p-4">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h1 ref={listHeading} tabIndex={-1} className="text-base font-semibold tracking-tight outline-none">
              MCP servers
            </h1>
          </div>
          <p className="text-sm text-muted-foreground">
            The assistant is offered the tools of these servers as{" "}
            <code className="font-mono text-[0.8125rem] text-foreground">server__tool</code>, each behind a gate: read-only tools run at
            once, others ask the requester, and destructive ones ask another approver.
          </p>
          {creating ? null : (
            <Button variant="primary" size="sm" className="justify-self-start" onClick={() => setCreating(true)}>
              <PlusIcon aria-hidden="true" />
              Connect server
            </Button>
          )}
        </div>
        <div className="grid content-start gap-3 p-3 sm:p-4">
          {creating ? <ConnectServer onCancel={() => setCreating(false)} onConnected={onConnected} /> : null}
          {suggestions.data?.map((s) => (
            <SuggestedServer key={s.url} suggestion={s} onConnected={onConnected} />
          ))}
          {list.isPending ? (
            <div className="grid gap-2" role="status" aria-busy="true" aria-label="Loading MCP servers">
              {[0, 1, 2].map((n) => (
                <Skeleton key={n} className="h-[4.5rem] rounded-xl" />
              ))}
            </div>
          ) : list.isError ? (
            <ErrorAlert>Could not load the MCP servers: {list.error.message}</ErrorAlert>
          ) : servers.length === 0 ? (
            creating ? null : (
              <Card>
                <EmptyState icon={ServerIcon} title="No MCP servers yet." data-testid="mcp-empty">
                  Connect one to let the assistant use its tools: a calendar, a ticket system, your own service.
                </EmptyState>
              </Card>
            )
          ) : (
            <ul className="grid gap-2" data-testid="mcp-server-list">
              {servers.map((server) => (
                <li key={server.id}>
                  <button
                    type="button"
                    onClick={() => open(server.id)}
                    aria-current={current?.id === server.id ? "true" : undefined}
                    data-testid="mcp-server-row"
                    data-mcp-server-id={server.id}
                    className={cn(
                      "grid w-full cursor-pointer gap-1 rounded-xl border bg-card p-3 text-left transition-colors hover:bg-accent",
                      // Until one is picked, the first shows beside the list on wide screens only.
                      current?.id === server.id &&
                        (selected
                          ? "border-primary bg-primary-soft hover:bg-primary-soft"
                          : "lg:border-primary lg:bg-primary-soft lg:hover:bg-primary-soft"),
                    )}
                  >
                    <span className="font-mono text-sm font-medium [overflow-wrap:anywhere]">{server.name}</span>
                    <span className="text-sm text-muted-foreground [overflow-wrap:anywhere]">{whereOf(server)}</span>
                    <span className="text-xs text-muted-foreground">
                      {server.tools ?? 0} tool{server.tools === 1 ? "" : "s"}
                      {server.createdAt ? (
                        <>
                          {" "}
                          · connected{" "}
                          <time dateTime={server.createdAt} title={when(server.createdAt)}>
                            {relative(server.createdAt)}
                          </time>
                        </>
                      ) : server.listedAt ? (
                        <>
                          {" "}
                          · listed{" "}
                          <time dateTime={server.listedAt} title={when(server.listedAt)}>
                            {relative(server.listedAt)}
                          </time>
                        </>
                      ) : null}
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
        aria-label="MCP server detail"
      >
        <div className="mx-auto grid max-w-4xl gap-3 p-3 sm:p-5">
          {/* The list (and its heading) is hidden on narrow screens while a server shows. */}
          <h1 className="sr-only lg:hidden">MCP servers</h1>
          <Button variant="ghost" size="sm" className="justify-self-start lg:hidden" onClick={() => setPhoneDetail(false)}>
            <ArrowLeftIcon aria-hidden="true" />
            Back to MCP servers
          </Button>
          {current ? (
            <McpServerDetail
              key={current.id}
              server={current}
              focusOnMount={current.id === connected}
              onRemoved={() => {
                setSelected(null);
                setConnected(null);
                setPhoneDetail(false);
                listHeading.current?.focus();
              }}
            />
          ) : list.isPending ? null : (
            <EmptyState icon={ServerIcon} title="Connect a server to see its tools here." />
          )}
        </div>
      </section>
    </div>
  );
}
