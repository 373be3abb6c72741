"use client";

import { createContext, useContext, type ReactNode } from "react";

/** Runs a browser tool: gets the call's arguments, returns its output (checked on the server). */
export type ClientToolHandler = (args: Record<string, unknown>) => unknown | Promise<unknown>;

export type ClientToolRegistry = ReadonlyMap<string, ClientToolHandler>;

/** The browser tools this app answers, by tool name. */
export const BROWSER_TOOLS: ClientToolRegistry = new Map<string, ClientToolHandler>([
  ["get_browser_timezone", () => ({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone })],
]);

const Registry = createContext<ClientToolRegistry>(new Map());

/**
 * Registers browser-tool handlers for the conversation below it: when a run asks for one of them,
 * the handler runs at once (no click) and its output continues the run.
 */
export function ClientToolHost({ tools = BROWSER_TOOLS, children }: { tools?: ClientToolRegistry; children: ReactNode }) {
  return <Registry.Provider value={tools}>{children}</Registry.Provider>;
}

export function useClientTools(): ClientToolRegistry {
  return useContext(Registry);
}
