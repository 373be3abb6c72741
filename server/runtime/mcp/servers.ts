/**
 * A tenant's admins connect MCP servers (Streamable HTTP): a name, a URL checked like a webhook's
 * (no private address unless the deployment allows local ones), and optional static headers
 * sealed at rest and never returned. The server's tools are listed when it is connected and again
 * whenever an admin looks; an admin may override the gate any tool's annotations give it.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { open, seal, sealingKey } from "@/server/crypto/sealing";
import type { Database } from "@/server/db";
import {
  deleteMcpServer,
  findMcpServer,
  insertMcpServer,
  listMcpServers,
  setMcpToolGate,
  updateMcpTools,
  type McpServerRow,
} from "@/server/db/queries/mcp-servers";
import type { McpGate, McpGateChoice, McpListedTool, McpToolAnnotations } from "@/server/domain";
import { ForbiddenError, HarborError, InvalidInputError, NotFoundError } from "../errors";
import { assertAdmin, hasRole, type Identity } from "../access";
import { checkWebhookUrl } from "../notify";
import type { McpConnector, McpServerAddress, OperatorMcpServer } from "./connector";
import type { OperatorServers } from "./operator-servers";
import { gateOf } from "./gates";

/** MCP servers one tenant may connect, unless the settings say otherwise. */
export const MAX_MCP_SERVERS_PER_TENANT = 20;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 4_096;
/** Headers Harbor sets itself, or that would change what the request is. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "accept",
  "connection",
  "transfer-encoding",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

export interface McpSettings {
  /** HARBOR_MCP_ALLOW_LOCAL: loopback and private addresses may be connected (the demo, tests). */
  allowLocal?: boolean;
  maxPerTenant?: number;
  /** HARBOR_MCP_STDIO_SERVERS: the operator's own servers, run as local processes. */
  operatorServers?: readonly OperatorMcpServer[];
  /** Servers offered to admins as one click to connect (the demo's calendar). */
  suggested?: readonly McpSuggestion[];
}

/** A server an admin may connect with one click. */
export interface McpSuggestion {
  name: string;
  url: string;
  title: string;
}

/** A server as members see it: its name. */
export interface McpServerName {
  name: string;
}

/** A server as its tenant's admins see it. */
export interface McpServerView extends McpServerName {
  id: string;
  /** `tenant`: an admin connected it; `operator`: the deployment runs it (not removable, gates from its annotations). */
  source: "tenant" | "operator";
  /** Admins only: the URL (its headers are never returned, only their names). */
  url?: string;
  headerNames?: string[];
  tools?: number;
  listedAt?: string | null;
  createdAt?: string;
}

export interface McpToolView {
  name: string;
  title?: string;
  description?: string;
  annotations: McpToolAnnotations;
  gate: McpGate;
  quorum?: number;
  /** The gate the annotations give, and whether an admin chose another. */
  defaultGate: McpGate;
  overridden: boolean;
  /** Present when the server did not answer just now: this is what it listed last. */
  stale?: true;
}

const StoredHeaders = z.record(z.string(), z.string());

/** The key MCP servers' static headers are sealed with: derived from the server secret for this alone. */
export function mcpHeadersKey(serverSecret: string): Buffer {
  return sealingKey(serverSecret, "harbor.mcp-headers.v1");
}

/** Where a stored server is, with its static headers opened (bound to its id, so they cannot move). */
export function addressOf(key: Buffer, row: McpServerRow): McpServerAddress {
  const headers = row.headersSealed ? StoredHeaders.parse(JSON.parse(open(key, row.headersSealed, row.id))) : {};
  return { id: row.id, name: row.name, transport: { type: "http", url: new URL(row.url), headers } };
}

const headerNamesOf = (address: McpServerAddress) => (address.transport.type === "http" ? Object.keys(address.transport.headers) : []);

function checkHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw new InvalidInputError("headers", `at most ${MAX_HEADERS}`);
  const checked: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]{1,100}$/.test(lower)) throw new InvalidInputError(`headers.${name}`, "is not a header name");
    if (RESERVED_HEADERS.has(lower)) throw new InvalidInputError(`headers.${name}`, "is set by Harbor itself");
    if (value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value)) throw new InvalidInputError(`headers.${name}`, "is not a header value");
    checked[lower] = value;
  }
  return checked;
}

const toolView = (tool: McpListedTool, chosen: McpGateChoice | undefined): McpToolView => {
  const gate = gateOf(tool, chosen);
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    ...(tool.description ? { description: tool.description } : {}),
    annotations: tool.annotations,
    gate: gate.gate,
    ...(gate.quorum ? { quorum: gate.quorum } : {}),
    defaultGate: gateOf(tool, undefined).gate,
    overridden: gate.chosen,
  };
};

/** What every operation on a tenant's servers shares. */
interface ServersContext {
  db: Database;
  key: Buffer;
  connector: McpConnector;
  operator: OperatorServers;
  allowLocal: boolean;
  maxPerTenant: number;
  suggested: readonly McpSuggestion[];
}

export function mcpServerService(
  db: Database,
  serverSecret: string,
  connector: McpConnector,
  operator: OperatorServers,
  settings: McpSettings = {},
) {
  const ctx: ServersContext = {
    db,
    key: mcpHeadersKey(serverSecret),
    connector,
    operator,
    allowLocal: settings.allowLocal ?? false,
    maxPerTenant: settings.maxPerTenant ?? MAX_MCP_SERVERS_PER_TENANT,
    suggested: settings.suggested ?? [],
  };
  return {
    /** Connects a server: its tools are listed first, so one that does not answer is not saved. Audited. */
    create: (identity: Identity, input: NewServer) => createServer(ctx, identity, input),
    /** Admins see each server's URL, header names and tool count; members only the names. */
    list: (identity: Identity) => listServers(ctx, identity),
    /** The suggested servers the tenant has not connected yet (by URL). */
    suggestions: (identity: Identity) => suggestionsFor(ctx, identity),
    /** Removes a tenant's server (not the operator's). Audited. */
    delete: (identity: Identity, id: string) => deleteServer(ctx, identity, id),
    /**
     * The server's tools with their gates, listed again now; when the server does not answer, the
     * tools it listed last (each marked `stale`), so an admin can still set gates.
     */
    tools: (identity: Identity, id: string) => toolsOf(ctx, identity, id),
    /** Overrides the gate of one tool (`default`: back to its annotations' gate). Audited. */
    setGate: (identity: Identity, input: GateChange) => setGate(ctx, identity, input),
  };
}

interface NewServer {
  name: string;
  url: string;
  headers?: Readonly<Record<string, string>>;
}

interface GateChange {
  id: string;
  tool: string;
  gate: McpGate | "default";
  quorum?: number;
}

/** The server's tools now; a server that wants authorization just to list them cannot be connected. */
async function listTools(ctx: ServersContext, address: McpServerAddress): Promise<McpListedTool[]> {
  const listing = await ctx.connector.list(address);
  if (listing.type === "tools") return listing.tools;
  throw new HarborError(
    "MCP_FAILED",
    `${address.name} wants authorization before it lists its tools: give it a static header with a credential (an API key), then its calls can ask each user to sign in.`,
    { server: address.name },
  );
}

async function ownServer(ctx: ServersContext, identity: Identity, id: string): Promise<McpServerRow> {
  const row = await findMcpServer(ctx.db, identity.tenantId, id);
  if (!row) throw new NotFoundError("MCP server");
  return row;
}

async function createServer(ctx: ServersContext, identity: Identity, input: NewServer) {
  assertAdmin(identity, "MCP servers");
  if (!/^[a-z0-9-]{1,32}$/.test(input.name)) throw new InvalidInputError("name", "lowercase letters, digits and -, at most 32");
  if (ctx.operator.visibleTo(identity.tenantId).some((s) => s.name === input.name)) {
    throw new InvalidInputError("name", "is taken by a server this deployment runs");
  }
  const url = checkWebhookUrl(input.url, ctx.allowLocal);
  const headers = checkHeaders(input.headers ?? {});
  const id = `mcp_${randomUUID()}`;
  const tools = await listTools(ctx, { id, name: input.name, transport: { type: "http", url, headers } });
  const created = await insertMcpServer(
    ctx.db,
    {
      id,
      tenantId: identity.tenantId,
      name: input.name,
      url: url.href,
      headersSealed: Object.keys(headers).length > 0 ? seal(ctx.key, JSON.stringify(headers), id) : null,
      catalog: { tools, gates: {}, listedAt: new Date().toISOString() },
      createdBy: identity.userId,
    },
    ctx.maxPerTenant,
  );
  if (created === "name_taken") throw new InvalidInputError("name", "is taken by another server of this tenant");
  if (created === "full") {
    throw new HarborError("QUOTA_EXCEEDED", `A tenant may connect ${ctx.maxPerTenant} MCP servers: remove one first.`, {
      quota: "mcp_servers",
      limit: ctx.maxPerTenant,
    });
  }
  return { id, tools: tools.length };
}

async function listServers(ctx: ServersContext, identity: Identity): Promise<McpServerView[] | McpServerName[]> {
  const rows = await listMcpServers(ctx.db, identity.tenantId);
  const operators = ctx.operator.visibleTo(identity.tenantId);
  // Members learn which servers their assistant may use: the names, nothing of where they are.
  if (!hasRole(identity, "admin")) return [...operators.map((s) => ({ name: s.name })), ...rows.map((r) => ({ name: r.name }))];
  const operatorViews = await Promise.all(
    operators.map(async (server): Promise<McpServerView> => {
      const { tools, listedAt } = await ctx.operator.tools(server);
      return {
        id: ctx.operator.address(server).id,
        name: server.name,
        source: "operator",
        tools: tools.length,
        listedAt: listedAt?.toISOString() ?? null,
      };
    }),
  );
  const tenantViews = rows.map((r): McpServerView => ({
    id: r.id,
    name: r.name,
    source: "tenant",
    url: r.url,
    headerNames: headerNamesOf(addressOf(ctx.key, r)),
    tools: r.catalog.tools.length,
    listedAt: r.catalog.listedAt ?? null,
    createdAt: r.createdAt.toISOString(),
  }));
  return [...operatorViews, ...tenantViews];
}

async function suggestionsFor(ctx: ServersContext, identity: Identity): Promise<McpSuggestion[]> {
  assertAdmin(identity, "MCP servers");
  const connected = new Set((await listMcpServers(ctx.db, identity.tenantId)).map((r) => r.url));
  return ctx.suggested.filter((s) => !connected.has(new URL(s.url).href));
}

async function deleteServer(ctx: ServersContext, identity: Identity, id: string): Promise<void> {
  assertAdmin(identity, "MCP servers");
  if (ctx.operator.find(identity.tenantId, id)) throw new ForbiddenError("This server is run by the deployment: its operator removes it.");
  if (!(await deleteMcpServer(ctx.db, identity.tenantId, id, identity.userId))) throw new NotFoundError("MCP server");
}

async function toolsOf(ctx: ServersContext, identity: Identity, id: string): Promise<McpToolView[]> {
  assertAdmin(identity, "MCP servers");
  const run = ctx.operator.find(identity.tenantId, id);
  if (run) {
    const { tools, listedAt } = await ctx.operator.tools(run);
    return tools.map((t) => ({ ...toolView(t, undefined), ...(listedAt === null ? { stale: true as const } : {}) }));
  }
  const row = await ownServer(ctx, identity, id);
  let tools = row.catalog.tools;
  let stale = false;
  try {
    tools = await listTools(ctx, addressOf(ctx.key, row));
    await updateMcpTools(ctx.db, identity.tenantId, id, tools, new Date());
  } catch (error) {
    if (!HarborError.is(error)) throw error;
    stale = true;
  }
  return tools.map((t) => ({ ...toolView(t, row.catalog.gates[t.name]), ...(stale ? { stale: true as const } : {}) }));
}

async function setGate(ctx: ServersContext, identity: Identity, input: GateChange): Promise<void> {
  assertAdmin(identity, "MCP servers");
  if (ctx.operator.find(identity.tenantId, input.id)) {
    throw new ForbiddenError("This server is run by the deployment: its tools keep the gates their annotations give.");
  }
  const row = await ownServer(ctx, identity, input.id);
  if (!row.catalog.tools.some((t) => t.name === input.tool)) throw new InvalidInputError("tool", "is not a tool of this server");
  if (input.quorum !== undefined && input.gate !== "approvers")
    throw new InvalidInputError("quorum", "only an approvers gate takes a quorum");
  const choice: McpGateChoice | null =
    input.gate === "default" ? null : { gate: input.gate, ...(input.quorum && input.quorum > 1 ? { quorum: input.quorum } : {}) };
  if (!(await setMcpToolGate(ctx.db, { tenantId: identity.tenantId, id: input.id, tool: input.tool, choice, actorId: identity.userId }))) {
    throw new NotFoundError("MCP server");
  }
}

export type McpServerService = ReturnType<typeof mcpServerService>;
