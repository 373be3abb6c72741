"use client";

import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { RouterOutputs } from "@/components/trpc/types";

/** A tool as the agent registry describes it (`agents.list`): its title, kind and gate. */
export type ToolSummary = RouterOutputs["agents"]["list"][number]["tools"][number];

export interface ToolCatalog {
  /** The tool's title; its name, readably, until the catalog has loaded or for a tool no agent declares. */
  title(name: string): string;
  /** Whether a person must approve each call; undefined while the catalog loads or for an unknown tool. */
  gated(name: string): boolean | undefined;
}

/**
 * The tools the server's agents declare, by name, from `agents.list`: the UI knows no tool by
 * itself. With `agentId`, that agent's tools come first (two agents may name a tool alike).
 */
export function useToolCatalog(agentId?: string): ToolCatalog {
  const trpc = useTRPC();
  // The agents change with a deployment; their MCP tools when an admin connects a server.
  const agents = useQuery(trpc.agents.list.queryOptions(undefined, { staleTime: 60_000 }));
  return useMemo(() => {
    const byName = new Map<string, ToolSummary>();
    const ordered = [...(agents.data ?? [])].sort((a, b) => Number(b.id === agentId) - Number(a.id === agentId));
    for (const agent of ordered) for (const tool of agent.tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    return {
      title: (name) => byName.get(name)?.title ?? name.replaceAll("_", " "),
      gated: (name) => byName.get(name)?.gated,
    };
  }, [agents.data, agentId]);
}

/** How the UI labels common argument names; any other argument shows under its own name. */
const ARG_LABELS: Record<string, string> = {
  to: "To",
  body: "Message",
  amount: "Amount",
  currency: "Currency",
  timeZone: "time zone",
  request: "Request",
};

export function argEntries(args: Record<string, unknown>): [string, string][] {
  // An amount reads with its currency, first.
  if (typeof args.amount === "number" && typeof args.currency === "string") {
    const { amount, currency, ...rest } = args;
    return [["Amount", `${amount.toLocaleString("en-US")} ${currency}`], ...argEntries(rest)];
  }
  return Object.entries(args).map(([key, value]) => [ARG_LABELS[key] ?? key, typeof value === "string" ? value : JSON.stringify(value)]);
}

/** What the tool's recorded result says happened. */
export function resultSummary(content: string | undefined): { done: boolean; text: string; standing?: true } | null {
  if (!content) return null;
  try {
    const parsed = JSON.parse(content) as Record<string, unknown>;
    if (parsed.rejected === true) return { done: false, text: parsed.reason === "cancelled" ? "Cancelled" : "Not done" };
    // Went through on a standing approval: there was no request to decide.
    const standing = parsed.standing === true ? ({ standing: true } as const) : {};
    if (parsed.sent === true) return { done: true, text: "Email sent", ...standing };
    if (parsed.transferred === true) return { done: true, text: "Transfer made", ...standing };
    return { done: true, text: "Done" };
  } catch {
    return { done: true, text: content };
  }
}
