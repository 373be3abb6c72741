/**
 * The demo's MCP server: the team calendar, over Streamable HTTP (the official SDK's server),
 * protected by the demo identity provider. Deterministic — no model, no network beyond loopback —
 * so it stands in for a third-party MCP server in the demo and in tests.
 *
 * Anyone may connect and list its tools; a tool call needs a bearer token the identity provider
 * issued to Harbor with `calendar.read` (else 401 naming its protected-resource metadata). Tools:
 * - `list_events` (read-only): today's events;
 * - `cancel_event` (destructive): cancels one, reporting progress as it goes;
 * - `book_room` (not destructive): asks which room and for how long (form elicitation);
 * - `share_calendar` (not destructive): needs its user to allow sharing on a page of its own first
 *   (`UrlElicitationRequiredError`); the retried call then shares.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CALENDAR_SCOPE, type IdpAccount, type RunningIdentityProvider } from "./identity-provider";
import { listenOnLoopback } from "./listen";
import type { CalendarState } from "./mcp-calendar-tools";

export interface McpPeerOptions {
  port?: number;
  /** Who issues the tokens calls need; absent, calls need none and act for a guest (tests of everything but authorization). */
  identityProvider?: Pick<RunningIdentityProvider, "issuer" | "verifyAccessToken">;
  /** Called with each bearer token a request carries (tests prove the server saw the owner's token). */
  onToken?: (token: string) => void;
  /** Milliseconds `cancel_event` takes between its progress reports (tests stretch it to cancel mid-call). */
  stepMs?: number;
}

export interface RunningMcpPeer {
  /** The MCP endpoint, e.g. http://127.0.0.1:43210/mcp */
  url: string;
  /** Events cancelled so far, by account (tests see what a call did). */
  cancelled(accountId: string): string[];
  /** `cancel_event` calls its client cancelled midway (`notifications/cancelled`). */
  cancelledCalls(): number;
  close(): Promise<void>;
}

const GUEST: IdpAccount = { id: "guest", email: "guest@example.com", name: "Guest", password: "" };
const MAX_BODY_BYTES = 256 * 1024;

export interface Caller {
  account: IdpAccount;
}

export async function startMcpPeer(options: McpPeerOptions): Promise<RunningMcpPeer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let base = "";
  const state: CalendarState = {
    base: () => base,
    stepMs: options.stepMs ?? 50,
    cancelledByAccount: new Map(),
    sharePages: new Map(),
    cancelledCalls: 0,
  };

  async function bearerCaller(req: IncomingMessage): Promise<Caller | string | undefined> {
    if (!options.identityProvider) return { account: GUEST };
    const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(req.headers.authorization ?? "");
    if (!match) return undefined;
    options.onToken?.(match[1]!);
    const verified = await options.identityProvider.verifyAccessToken(match[1]!, CALENDAR_SCOPE);
    return typeof verified === "string" ? verified : { account: verified };
  }

  const http = createServer((req, res) => {
    void handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: "internal" });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", base).pathname;
    if (path.startsWith("/.well-known/oauth-protected-resource")) {
      if (!options.identityProvider) return sendJson(res, 404, { error: "not_found" });
      return sendJson(res, 200, {
        resource: `${base}/mcp`,
        authorization_servers: [options.identityProvider.issuer],
        scopes_supported: [CALENDAR_SCOPE],
      });
    }
    if (path.startsWith("/share/")) return sharePage(state, req, res, path.slice("/share/".length));
    if (path !== "/mcp") return sendJson(res, 404, { error: "not_found" });

    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (body === null) return sendJson(res, 400, { error: "invalid_json" });
    const caller = await bearerCaller(req);
    // Listing is open; calling a tool needs the user's token.
    if (typeof caller !== "object" && callsTool(body)) {
      const error = typeof caller === "string" ? `, error="invalid_token", error_description="${caller}"` : "";
      res.setHeader(
        "WWW-Authenticate",
        `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="${CALENDAR_SCOPE}"${error}`,
      );
      return sendJson(res, 401, { error: "unauthorized" });
    }
    // The SDK is loaded with the first MCP request, not when the demo starts (see server/mcp/connector.ts).
    const { sessionFor } = await import("./mcp-sessions");
    await sessionFor(req, sessions, state, typeof caller === "object" ? caller : undefined, res, body);
  }

  base = await listenOnLoopback(http, options.port ?? 0);
  return {
    url: `${base}/mcp`,
    cancelled: (accountId) => [...(state.cancelledByAccount.get(accountId) ?? [])],
    cancelledCalls: () => state.cancelledCalls,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The calendar's own page for a sharing step: Allow marks it done. */
function sharePage(state: CalendarState, req: IncomingMessage, res: ServerResponse, id: string): void {
  const page = state.sharePages.get(id);
  if (!page) return sendJson(res, 404, { error: "not_found" });
  if (req.method === "POST") page.allowed = true;
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(
    page.allowed
      ? "<!doctype html><title>Shared</title><p>Sharing allowed. You can go back to Harbor.</p>"
      : `<!doctype html><title>Allow sharing</title><form method="post"><p>Allow Harbor to share your calendar?</p><button>Allow</button></form>`,
  );
}

/** Whether a JSON-RPC body (one message or a batch) calls a tool. */
function callsTool(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call");
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return null;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
