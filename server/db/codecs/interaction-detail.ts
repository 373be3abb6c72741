/**
 * What a pause shows and needs beyond its message (interactions.detail, and the interrupt's
 * `detail`): an OAuth pause's provider and consent URL, a remote agent's question, an MCP
 * server's question (a form or a page), a grant offer.
 * The version is written as `v`.
 */
import { z } from "zod";
import { MCP_INPUT_MODES, REMOTE_PROMPTS, type InteractionDetail } from "@/server/domain";
import { storedCodec } from "./codec";
import { grantBoundsSchema } from "./grant-bounds";

export const interactionDetailSchema = z.looseObject({
  provider: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  authorizationUrl: z.string().optional(),
  prompt: z.enum(REMOTE_PROMPTS).optional(),
  agent: z.string().optional(),
  mcp: z.looseObject({ server: z.string(), tool: z.string() }).optional(),
  mode: z.enum(MCP_INPUT_MODES).optional(),
  url: z.string().optional(),
  grant: z
    .looseObject({
      bounds: grantBoundsSchema,
      summary: z.string(),
      caps: z.array(z.looseObject({ field: z.string(), approved: z.number(), limit: z.number() })).optional(),
      toolVersion: z.string().optional(),
      agentId: z.string().optional(),
    })
    .optional(),
}) satisfies z.ZodType<InteractionDetail>;

export const interactionDetailCodec = storedCodec<InteractionDetail>({
  shape: "interaction detail",
  version: 1,
  schema: interactionDetailSchema,
  upcasters: {},
  versionKey: "v",
});
