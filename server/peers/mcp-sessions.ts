/**
 * The demo calendar's MCP sessions: one MCP server (the official SDK's) per session, acting for
 * whoever its first request's token stands for — Harbor opens one per call. Loaded with the first
 * MCP request (see mcp-server.ts).
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { registerCalendarTools, type CalendarState } from "./mcp-calendar-tools";
import type { Caller } from "./mcp-server";

const MAX_SESSIONS = 500;

/** Hands a request to its session's transport, or opens a session (one MCP server each) for it. */
export async function sessionFor(
  req: IncomingMessage,
  sessions: Map<string, StreamableHTTPServerTransport>,
  state: CalendarState,
  caller: Caller | undefined,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const sessionId = req.headers["mcp-session-id"];
  const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
  if (known) return known.handleRequest(req, res, body);
  if (sessions.size >= MAX_SESSIONS) return sendJson(res, 503, { error: "busy" });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => void sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  // The session acts for whoever its first request's token stands for (Harbor opens one per call).
  const server = new McpServer({ name: "demo-calendar", title: "Team calendar", version: "1.0.0" });
  registerCalendarTools(server, state, () => {
    if (!caller) throw new Error("unauthorized");
    return caller.account;
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
