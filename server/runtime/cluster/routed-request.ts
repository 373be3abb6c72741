/** What travels between instances when a request is forwarded to its run's owner, and back. */
import { z } from "zod";
import { ERROR_CODES, SteeringInstruction } from "@/server/domain";
import type { Identity } from "../access";

const IdentitySchema = z.object({ tenantId: z.string(), userId: z.string(), roles: z.array(z.enum(["member", "approver", "admin"])) });
const Entry = z.object({
  interactionId: z.string(),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.unknown().optional(),
  resumeToken: z.string().optional(),
});

/** What can be forwarded: the answers of a resume (AG-UI or tRPC), or a steering instruction. */
export const RoutedRequest = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("resolve"),
    identity: IdentitySchema,
    entries: z.array(Entry),
    threadId: z.string().optional(),
    via: z.enum(["agui", "trpc", "console", "oauth_callback", "link"]),
    withTranscript: z.boolean().optional(),
    transport: z.object({ transportRunId: z.string().optional(), requestId: z.string().optional() }),
  }),
  z.object({ type: z.literal("steer"), identity: IdentitySchema, runId: z.string(), instruction: SteeringInstruction }),
]);
export type RoutedRequest = z.infer<typeof RoutedRequest>;

export const Reply = z.union([
  z.object({ ok: z.object({ runIds: z.array(z.string()) }) }),
  z.object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) }),
  // Given back undecided by a target that stopped serving (see `closeRouter`).
  z.object({ returned: z.literal(true) }),
]);
export type RoutedReply = z.infer<typeof Reply>;
export const RETURNED: RoutedReply = { returned: true };

/**
 * A forwarded request its target did not decide: it gave it back as it stopped, or left before
 * taking it. Nothing was decided there; the sender decides the request itself (the wait is then
 * anyone's, or lost with its process).
 */
export class NotForwarded extends Error {
  constructor(readonly target: string) {
    super(`instance ${target} did not take the request`);
  }
}

/** The identity to forward: exactly what the sender derived. */
export function routedIdentity(identity: Identity): RoutedRequest["identity"] {
  return { tenantId: identity.tenantId, userId: identity.userId, roles: [...identity.roles] };
}
