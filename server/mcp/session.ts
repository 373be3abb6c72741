/**
 * One session with an MCP server — over Streamable HTTP, or the operator's local process over
 * stdio: the official SDK's client, declaring that Harbor takes elicitation in both modes; the
 * static headers and (for one call) the owner's bearer token on every HTTP request. A server that answers 401 is read for what it wants: the authorization
 * servers its protected-resource metadata names, and the scopes it asks for.
 */
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { HarborError, type McpServerAddress } from "@/server/runtime";
import { guardedFetch, type Challenge } from "./fetch";

export interface SessionOptions {
  allowLocal: boolean;
  /** How long connecting (and each request that is not a tool call) may take. */
  timeoutMs: number;
  bearer?: string;
  /** Answers the server's questions; without it, a question is answered `cancel`. */
  onElicit?: (request: ElicitRequest["params"]) => Promise<ElicitResult>;
}

export interface Session {
  client: Client;
  close(): Promise<void>;
  closed(): boolean;
  /** What the last 401 asked for, if the server answered one. */
  challenge(): Challenge | undefined;
}

/** The authorization a server wants: who issues its tokens, and for which scopes. */
export interface Wanted {
  authorizationServers: string[];
  scopes: string[];
}

const CLIENT_INFO = { name: "harbor", title: "Harbor", version: "0.3.0" };

/** The SDK's transport to `server`: Streamable HTTP through the guarded fetch, or the operator's process over stdio. */
function transportTo(server: McpServerAddress, options: SessionOptions, onChallenge: (challenge: Challenge) => void): Transport {
  const to = server.transport;
  switch (to.type) {
    case "http":
      return new StreamableHTTPClientTransport(to.url, {
        fetch: guardedFetch(options.allowLocal, onChallenge),
        requestInit: { headers: { ...to.headers, ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}) } },
        // A dropped stream fails the call: it is not replayed behind the run's back.
        reconnectionOptions: {
          maxReconnectionDelay: 1_000,
          initialReconnectionDelay: 500,
          reconnectionDelayGrowFactor: 1.5,
          maxRetries: 0,
        },
      });
    case "stdio":
      // Only what the SDK deems safe of Harbor's environment (never its secrets), plus the operator's own.
      return new StdioClientTransport({
        command: to.command,
        args: [...to.args],
        env: { ...getDefaultEnvironment(), ...to.env },
        stderr: "ignore",
      });
  }
}

/** How people read where a server is: its host, or `stdio` for the operator's process. */
export function whereIs(server: McpServerAddress): string {
  return server.transport.type === "http" ? server.transport.url.host : `stdio: ${server.transport.command}`;
}

export async function openSession(server: McpServerAddress, options: SessionOptions): Promise<Session> {
  let challenge: Challenge | undefined;
  let closed = false;
  const transport = transportTo(server, options, (seen) => (challenge = seen));
  const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => (options.onElicit ? options.onElicit(request.params) : { action: "cancel" }));
  client.onclose = () => (closed = true);
  const session: Session = {
    client,
    close: async () => {
      closed = true;
      // Ends the session at the server too (HTTP DELETE), so servers do not keep one per call.
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    },
    closed: () => closed,
    challenge: () => challenge,
  };
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await session.close();
    if (challenge) return session;
    throw unreachable(server, error);
  }
  return session;
}

/** Whether `error` is the server's 401 (the session's challenge says what it wants). */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 401;
}

/** What a server's 401 wants, read from its protected-resource metadata. */
export async function wantedBy(server: McpServerAddress, challenge: Challenge, allowLocal: boolean): Promise<Wanted> {
  const scopes = challenge.scope?.split(" ").filter(Boolean) ?? [];
  if (server.transport.type !== "http") return { authorizationServers: [], scopes };
  try {
    const metadata = await discoverOAuthProtectedResourceMetadata(
      server.transport.url,
      challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {},
      guardedFetch(allowLocal, () => {}),
    );
    return {
      authorizationServers: metadata.authorization_servers ?? [],
      scopes: scopes.length ? scopes : (metadata.scopes_supported ?? []),
    };
  } catch {
    // No metadata: nobody Harbor knows issues its tokens.
    return { authorizationServers: [], scopes };
  }
}

/** A server that cannot be reached or does not speak MCP: said once, without its internals. */
export function unreachable(server: McpServerAddress, error: unknown): HarborError {
  if (HarborError.is(error)) return error;
  return Object.assign(
    new HarborError("MCP_UNAVAILABLE", `The MCP server ${server.name} (${whereIs(server)}) cannot be reached.`, { server: server.name }),
    { cause: error },
  );
}
