import { describe, expect, it } from "vitest";
import { defaultMcpGate, type McpListedTool } from "@/server/domain";
import { formSchema } from "@/server/runtime/agent/mcp-tools";
import { mcpToolName } from "@/server/runtime/mcp/connected-tools";
import { approvalOf, gateOf } from "@/server/runtime/mcp/gates";

const tool = (annotations: McpListedTool["annotations"], properties: Record<string, unknown> = {}): McpListedTool => ({
  name: "delete_file",
  inputSchema: { type: "object", properties },
  annotations,
});

describe("an MCP tool's gate", () => {
  it("follows the annotations with MCP's own defaults: read-only none, not destructive owner, else approvers", () => {
    expect(defaultMcpGate({ readOnlyHint: true })).toBe("none");
    // Read-only wins over a destructive hint (MCP: destructiveHint means nothing when read-only).
    expect(defaultMcpGate({ readOnlyHint: true, destructiveHint: true })).toBe("none");
    expect(defaultMcpGate({ destructiveHint: false })).toBe("owner");
    expect(defaultMcpGate({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })).toBe("owner");
    expect(defaultMcpGate({ destructiveHint: true })).toBe("approvers");
    // Nothing said is the worst case: destructive.
    expect(defaultMcpGate({})).toBe("approvers");
  });

  it("is the admin's choice when there is one, and says so", () => {
    expect(gateOf(tool({ readOnlyHint: true }), { gate: "approvers", quorum: 2 })).toEqual({ gate: "approvers", quorum: 2, chosen: true });
    expect(gateOf(tool({ readOnlyHint: true }), undefined)).toEqual({ gate: "none", chosen: false });
  });

  it("asks nobody for `none`; words the request from the call, cut short; binds a standing approval to equal arguments", () => {
    expect(approvalOf("files", tool({}), { gate: "none" })).toBeUndefined();
    const approval = approvalOf("files", tool({ title: "Delete a file" }, { path: { type: "string" }, force: { type: "boolean" } }), {
      gate: "approvers",
      quorum: 2,
    })!;
    expect(approval.policy).toBe("approvers");
    expect(approval.quorum).toBe(2);
    expect(approval.describe({ path: "/tmp/x", force: true })).toBe('files: Delete a file (path: "/tmp/x", force: true)');
    expect(approval.describe({ path: "x".repeat(1000) }).length).toBeLessThan(340);
    expect(approval.grantable?.fields).toEqual({ path: "equal", force: "equal" });
    expect(approval.grantable?.describe({ path: { equals: "/tmp/x" } })).toBe('files: Delete a file (path: "/tmp/x")');
  });
});

describe("an MCP tool's name for a model", () => {
  it("is <server>__<tool> within OpenAI's function-name rules", () => {
    expect(mcpToolName("calendar", "list_events")).toBe("calendar__list_events");
    expect(mcpToolName("fs", "files/read.v2")).toBe("fs__files_read_v2");
    expect(mcpToolName("s", "x".repeat(100))).toHaveLength(64);
  });
});

describe("a server's form", () => {
  const schema = {
    type: "object",
    properties: { room: { type: "string", enum: ["A", "B"] }, minutes: { type: "integer", minimum: 15 } },
    required: ["room"],
  };

  it("takes exactly what the server's schema allows", () => {
    const form = formSchema(schema);
    expect(form.safeParse({ room: "A", minutes: 30 }).success).toBe(true);
    expect(form.safeParse({ room: "C" }).success).toBe(false);
    expect(form.safeParse({ minutes: 30 }).success).toBe(false);
    expect(form.safeParse({ room: "A", minutes: 5 }).success).toBe(false);
  });

  it("still takes only an object when the schema is one zod cannot read", () => {
    const form = formSchema({ type: "object", properties: { x: { $ref: "#/nowhere" } } });
    expect(form.safeParse({ x: 1 }).success).toBe(true);
    expect(form.safeParse("text").success).toBe(false);
  });
});
