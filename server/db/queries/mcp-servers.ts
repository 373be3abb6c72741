/**
 * A tenant's MCP servers: registered, listed, their tools' catalog kept current, removed. Every
 * change an admin makes is audited in the statement that makes it (the URL's host, never its path,
 * and never a header's value).
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { McpCatalog, McpGateChoice } from "@/server/domain";
import type { Executor } from "../client";
import { mcpCatalogCodec } from "../codecs/mcp-catalog";
import { mcpServers } from "../schema";
import { column, rowCount, rowsOf } from "./rows";

export interface McpServerRow {
  id: string;
  tenantId: string;
  name: string;
  url: string;
  headersSealed: string | null;
  catalog: McpCatalog;
  createdBy: string;
  createdAt: Date;
}

/** The audit log's view of a server's URL: its host (and port). */
const HOST = sql`substring(url from '^[^:]+://([^/?#]+)')`;

const rawCreated = z.object({ id: z.string(), created_at: column.date });

/**
 * Registers a server with the tools it listed, audited (`mcp.server.create`) in the same
 * statement; undefined when the tenant is at its cap or already has a server of that name.
 */
export async function insertMcpServer(
  db: Executor,
  row: Omit<McpServerRow, "createdAt">,
  maxPerTenant: number,
): Promise<{ id: string; createdAt: Date } | "name_taken" | "full"> {
  const result = await db.execute(sql`
    with created as (
      insert into mcp_servers (id, tenant_id, name, url, headers_sealed, catalog, created_by)
      select ${row.id}, ${row.tenantId}, ${row.name}, ${row.url}, ${row.headersSealed},
        ${JSON.stringify(mcpCatalogCodec.encode(row.catalog))}::jsonb, ${row.createdBy}
      where (select count(*) from mcp_servers where tenant_id = ${row.tenantId}) < ${maxPerTenant}
      on conflict (tenant_id, name) do nothing
      returning id, tenant_id, name, url, created_by, created_at, catalog
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, created_by, 'mcp.server.create', 'mcp_server', id, 'created',
        jsonb_build_object('name', name, 'host', ${HOST}, 'tools', jsonb_array_length(catalog->'tools'))
      from created
    )
    select id, created_at from created`);
  const [created] = rowsOf(result, rawCreated);
  if (created) return { id: created.id, createdAt: created.created_at };
  return (await findMcpServerByName(db, row.tenantId, row.name)) ? "name_taken" : "full";
}

const columns = {
  id: mcpServers.id,
  tenantId: mcpServers.tenantId,
  name: mcpServers.name,
  url: mcpServers.url,
  headersSealed: mcpServers.headersSealed,
  catalog: mcpServers.catalog,
  createdBy: mcpServers.createdBy,
  createdAt: mcpServers.createdAt,
};

/** A tenant's servers, by name. */
export async function listMcpServers(db: Executor, tenantId: string): Promise<McpServerRow[]> {
  return db.select(columns).from(mcpServers).where(eq(mcpServers.tenantId, tenantId)).orderBy(asc(mcpServers.name));
}

export async function findMcpServer(db: Executor, tenantId: string, id: string): Promise<McpServerRow | undefined> {
  return findWhere(db, tenantId, eq(mcpServers.id, id));
}

async function findMcpServerByName(db: Executor, tenantId: string, name: string): Promise<McpServerRow | undefined> {
  return findWhere(db, tenantId, eq(mcpServers.name, name));
}

async function findWhere(db: Executor, tenantId: string, which: SQL): Promise<McpServerRow | undefined> {
  const [row] = await db
    .select(columns)
    .from(mcpServers)
    .where(and(eq(mcpServers.tenantId, tenantId), which))
    .limit(1);
  return row;
}

/** The tools the server listed just now, keeping the gates admins chose. */
export async function updateMcpTools(
  db: Executor,
  tenantId: string,
  id: string,
  tools: McpCatalog["tools"],
  listedAt: Date,
): Promise<void> {
  await db.execute(sql`
    update mcp_servers
    set catalog = jsonb_set(jsonb_set(catalog, '{tools}', ${JSON.stringify(tools)}::jsonb), '{listedAt}', to_jsonb(${listedAt.toISOString()}::text))
    where tenant_id = ${tenantId} and id = ${id}`);
}

/**
 * An admin's gate for one tool (null: back to the gate its annotations give), audited
 * (`mcp.tool.gate`) in the same statement; false when the tenant has no such server.
 */
export async function setMcpToolGate(
  db: Executor,
  change: { tenantId: string; id: string; tool: string; choice: McpGateChoice | null; actorId: string },
): Promise<boolean> {
  const gates = change.choice
    ? sql`jsonb_set(catalog->'gates', array[${change.tool}]::text[], ${JSON.stringify(change.choice)}::jsonb)`
    : sql`(catalog->'gates') - ${change.tool}::text`;
  const result = await db.execute(sql`
    with changed as (
      update mcp_servers set catalog = jsonb_set(catalog, '{gates}', ${gates})
      where tenant_id = ${change.tenantId} and id = ${change.id}
      returning id, tenant_id, name
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, ${change.actorId}, 'mcp.tool.gate', 'mcp_server', id, 'changed',
        jsonb_build_object('name', name, 'tool', ${change.tool}::text, 'gate', ${change.choice ? JSON.stringify(change.choice) : null}::jsonb)
      from changed
    )
    select id from changed`);
  return rowCount(result) > 0;
}

/** Removes a tenant's server, audited (`mcp.server.delete`); false when the tenant has no such server. */
export async function deleteMcpServer(db: Executor, tenantId: string, id: string, actorId: string): Promise<boolean> {
  const result = await db.execute(sql`
    with deleted as (
      delete from mcp_servers where tenant_id = ${tenantId} and id = ${id}
      returning id, tenant_id, name, url
    ),
    audited as (
      insert into audit_log (tenant_id, actor_id, action, subject_type, subject_id, outcome, details)
      select tenant_id, ${actorId}, 'mcp.server.delete', 'mcp_server', id, 'deleted', jsonb_build_object('name', name, 'host', ${HOST})
      from deleted
    )
    select id from deleted`);
  return rowCount(result) > 0;
}
