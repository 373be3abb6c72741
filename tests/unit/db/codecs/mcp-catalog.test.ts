import { describe, expect, it } from "vitest";
import { mcpCatalogCodec } from "@/server/db/codecs/mcp-catalog";

/** A catalog exactly as this release stores it (version 1): the next release must still read it. */
const STORED_V1 = {
  v: 1,
  tools: [
    {
      name: "cancel_event",
      title: "Cancel an event",
      description: "Cancels an event.",
      inputSchema: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      annotations: { destructiveHint: true },
    },
  ],
  gates: { cancel_event: { gate: "approvers", quorum: 2 } },
  listedAt: "2026-12-05T10:00:00.000Z",
};

describe("an MCP server's stored catalog", () => {
  it("reads what version 1 wrote", () => {
    expect(mcpCatalogCodec.decode(STORED_V1)).toEqual({
      tools: STORED_V1.tools,
      gates: STORED_V1.gates,
      listedAt: STORED_V1.listedAt,
    });
  });

  it("writes its version with it and refuses a gate it does not know", () => {
    const { v, ...catalog } = STORED_V1;
    expect(mcpCatalogCodec.encode(mcpCatalogCodec.decode(STORED_V1))).toEqual({ ...catalog, v });
    expect(() => mcpCatalogCodec.decode({ ...STORED_V1, gates: { cancel_event: { gate: "everyone" } } })).toThrow(/MCP server catalog/);
  });
});
