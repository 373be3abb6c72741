/**
 * Tools of MCP servers a tenant connected, as the runtime runs them. The MCP client itself (the
 * protocol, its transports) lives outside the runtime (`server/mcp`) behind `McpToolPort`; the run
 * loop only sees how a call came out: a result, a question for the owner (elicitation, in a form or
 * on a page of the server's), or a demand for authorization — each mapped onto the one pause.
 */
import { z } from "zod";
import type { ServerToolDefinition } from "./tools";

/** The owner's answer to a form elicitation, as it goes back to the server. */
export type McpElicitAnswer = { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

/** A call that waits on its owner's answer to a form, over its live session: a live handle. */
export interface McpLiveCall {
  /** Sends the answer and waits for what the call does next (a result, or another question). */
  answer(answer: McpElicitAnswer): Promise<McpCallOutcome>;
  /** Ends the call: the question is answered `cancel`, the request cancelled, the session closed. */
  close(): void;
  /** Whether the session still holds the call (a closed session cannot take the answer). */
  alive(): boolean;
}

/** What the server answered a call with, as text for the model and as structured content. */
export interface McpToolResult {
  server: string;
  tool: string;
  isError: boolean;
  text: string;
  structured?: Record<string, unknown>;
}

/** How one step of an MCP tool call came out. */
export type McpCallOutcome =
  | { type: "result"; result: McpToolResult }
  | { type: "form"; message: string; schema: Record<string, unknown>; live: McpLiveCall }
  /** A page the owner must open first (URL elicitation): the call ended, to be tried again once they are done. */
  | { type: "url"; message: string; url: string; elicitationId: string }
  /** The server wants a bearer token from one of these authorization servers (issuers). */
  | { type: "unauthorized"; authorizationServers: string[]; scopes: string[] };

/** Progress an MCP server reports for a call in flight. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallRequest {
  args: Record<string, unknown>;
  /** Sent as `Authorization: Bearer …` on this call only; never logged, never stored. */
  bearer?: string;
  /** Aborts the call (`notifications/cancelled` to the server). */
  signal?: AbortSignal;
  onProgress?(progress: McpProgress): void;
}

/** One tool of one connected server, as the runtime calls it. */
export interface McpToolPort {
  call(request: McpCallRequest): Promise<McpCallOutcome>;
}

/**
 * A tool of a connected MCP server, offered to a model as `<server>__<tool>`. Its gate comes from
 * its annotations or the admin's override, and works exactly like a server tool's `approval`.
 */
export interface McpToolDefinition {
  readonly kind: "mcp";
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The arguments as the server's JSON Schema declares them (checked before any gate). */
  readonly input: z.ZodType<Record<string, unknown>>;
  /** That JSON Schema itself, as the model sees it. */
  readonly inputSchema: Record<string, unknown>;
  readonly output: z.ZodType<McpToolResult>;
  /** A digest of the server, the tool's name, its schema and its gate: what an approval binds. */
  readonly version: string;
  readonly approval?: ServerToolDefinition<Record<string, unknown>>["approval"];
  readonly mcp: { serverId: string; server: string; tool: string };
  readonly port: McpToolPort;
}

/** The owner declines an MCP server's form (the other answers are the form's fields, or a cancel). */
export const McpFormDecline = z.strictObject({ action: z.literal("decline") });

/**
 * What a filled-in server's form must be: its fields as its JSON Schema says (MCP forms are flat
 * objects of primitives, which zod reads exactly). A decline is answered apart from it.
 */
export function formSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}
