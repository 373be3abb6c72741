/**
 * Rule 5, no edits: strict answers only, each read by its interaction's own kind. One reader per
 * kind, in an object the compiler holds to every kind: a new kind does not build until it says how
 * its answers are read. `payload` is what the run receives; the claim's `decision` is what is
 * stored — for a private form, only that a value was submitted.
 */
import { z } from "zod";
import type { Claim, InteractionRow } from "@/server/db/queries/interactions";
import type { NewGrant } from "@/server/db/queries/grants";
import type { InteractionKind } from "@/server/domain";
import { ForbiddenError, HarborError, InvalidInputError } from "../errors";
import { formSchema, McpFormDecline, RemoteAuthAnswer, RemoteInputAnswer } from "../agent";
import { grantFor, GrantRequest } from "../policies";
import { LOST_MESSAGE } from "./refusals";
import type { ResolutionInput, ResolveVia } from "./types";

/**
 * An approval is approve or reject, with an optional reason: nothing else, so arguments cannot be
 * edited. An approval may also take the gate's standing approval offer (`grant`, see grants.ts).
 */
export const ApprovalAnswer = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(500).optional(),
  grant: GrantRequest.optional(),
});

/** JSON Schema of `ApprovalAnswer`, sent as the interrupt's `responseSchema`. */
export const APPROVAL_RESPONSE_SCHEMA = z.toJSONSchema(ApprovalAnswer) as Record<string, unknown>;

/** What an answer claims: the stored decision, what the run receives, and a standing approval it gives. */
export type AnswerClaim = Claim & { payload: Record<string, unknown>; grant?: NewGrant };

/** One answer to read, with what its reader may need to know about where it came from. */
export interface AnswerInput {
  row: InteractionRow;
  entry: ResolutionInput;
  /** Its place in the request, to name the field a refusal is about. */
  index: number;
  via: ResolveVia;
  actorId: string;
  /** The schema the answer must match, as held by the process that parked it (when this one did). */
  parkedSchema: z.ZodType | undefined;
  /** A durable browser tool's output schema, for a wait this process did not park. */
  storedToolSchema(): z.ZodType | undefined;
}

export type AnswerReader = (input: AnswerInput) => AnswerClaim;

/** A refusal naming the payload field at fault and what was expected there. */
function invalid(index: number, error: z.ZodError, expected: string): InvalidInputError {
  const issue = error.issues[0];
  const field = ["resume", index, "payload", ...(issue?.path ?? [])].join(".").replace(/\.(\d+)\./, "[$1].");
  return new InvalidInputError(field, `${issue?.message ?? "invalid"} (${expected})`);
}

/** A form's schema lives only in the process that parked it: without it the wait cannot be answered. */
function schemaOrLost(row: InteractionRow, schema: z.ZodType | undefined): z.ZodType {
  if (!schema) throw new HarborError("INTERACTION_LOST", LOST_MESSAGE, { interactionId: row.id });
  return schema;
}

/** An MCP server's page is finished: the owner says so. */
const McpPageDone = z.strictObject({ done: z.literal(true) });

/** A stored form's schema: the server's JSON Schema, read again. */
function formSchemaOf(row: InteractionRow): z.ZodType {
  if (!row.responseSchema) throw new HarborError("INTERACTION_LOST", LOST_MESSAGE, { interactionId: row.id });
  return formSchema(row.responseSchema);
}

export const ANSWER_READERS = {
  operator({ row, entry, index }) {
    if (entry.payload !== undefined)
      throw new InvalidInputError(`resume[${index}].payload`, "an operator's pause is resumed without a payload");
    return { id: row.id, status: "resolved", decision: { resumed: true }, payload: {} };
  },

  oauth({ row, via }) {
    // Only the provider's callback proves consent; the owner may only give up (cancel).
    if (via !== "oauth_callback") {
      throw new ForbiddenError("This pause ends when you connect at the provider: open its authorization URL (or cancel it).");
    }
    return { id: row.id, status: "resolved", decision: { connected: true }, payload: { connected: true } };
  },

  a2a({ row, entry, index }) {
    const credential = row.detail?.prompt === "auth_required";
    const answer = (credential ? RemoteAuthAnswer : RemoteInputAnswer).safeParse(entry.payload);
    if (!answer.success) {
      throw invalid(index, answer.error, credential ? "the remote agent asks for { credential }" : "the remote agent asks for { text }");
    }
    // A credential goes once to the remote agent and is kept nowhere; a text answer is part of the record.
    return { id: row.id, status: "resolved", decision: credential ? { submitted: true } : answer.data, payload: answer.data };
  },

  client_tool({ row, entry, index, parkedSchema, storedToolSchema }) {
    const answer = schemaOrLost(row, parkedSchema ?? storedToolSchema()).safeParse(entry.payload);
    if (!answer.success) throw invalid(index, answer.error, `the output of ${row.toolName ?? "the tool"} does not match its schema`);
    return { id: row.id, status: "resolved", decision: { output: answer.data }, payload: { output: answer.data } };
  },

  private_input({ row, entry, index, parkedSchema }) {
    const answer = schemaOrLost(row, parkedSchema).safeParse(entry.payload);
    // Zod's issue messages name what was expected, never the value received.
    if (!answer.success) throw invalid(index, answer.error, "the form's fields do not match its schema");
    return { id: row.id, status: "resolved", decision: { submitted: true }, payload: { value: answer.data } };
  },

  approval({ row, entry, index, actorId }) {
    const parsed = ApprovalAnswer.safeParse(entry.payload);
    if (!parsed.success) throw invalid(index, parsed.error, "an approval answers { approved, reason?, grant? } only");
    const { grant: asked, ...answer } = parsed.data;
    if (!asked || !answer.approved) {
      if (asked) throw new InvalidInputError(`resume[${index}].payload.grant`, "only an approval gives a standing approval");
      return { id: row.id, status: answer.approved ? "resolved" : "rejected", decision: answer, payload: answer };
    }
    const grant = grantFor(row, asked, actorId, `resume[${index}].payload.grant`);
    const decision = { ...answer, grantId: grant.id };
    return { id: row.id, status: "resolved", decision, payload: decision, grant };
  },

  mcp_input({ row, entry, index, parkedSchema }) {
    if (row.detail?.mode === "url") {
      const done = McpPageDone.safeParse(entry.payload);
      if (!done.success) throw invalid(index, done.error, "say { done: true } once the page is finished");
      return { id: row.id, status: "resolved", decision: { status: "done" }, payload: { done: true } };
    }
    const declined = McpFormDecline.safeParse(entry.payload);
    if (declined.success) return { id: row.id, status: "resolved", decision: { status: "declined" }, payload: { action: "decline" } };
    // The server's schema, as parked here (the session that asked lives only here too) or as stored.
    const schema = parkedSchema ?? formSchemaOf(row);
    const answer = schema.safeParse(entry.payload);
    if (!answer.success) throw invalid(index, answer.error, 'the fields do not match the server\'s form, or { action: "decline" }');
    // What the owner typed goes once to the server: the record says only that they answered.
    return { id: row.id, status: "resolved", decision: { submitted: true }, payload: { action: "accept", content: answer.data } };
  },

  // Background work reports back by itself: `resolve` refuses answers to it before reading any.
  external_wait() {
    throw new ForbiddenError("This work completes by itself: poll its response instead of answering it.");
  },
} satisfies Record<InteractionKind, AnswerReader>;

/** Reads one entry: a cancellation (the same for every kind, and payload-free), or its kind's answer. */
export function readAnswer(input: AnswerInput): AnswerClaim {
  const { row, entry, index } = input;
  if (entry.status === "cancelled") {
    if (entry.payload !== undefined) throw new InvalidInputError(`resume[${index}].payload`, "a cancelled entry carries no payload");
    const decision = { approved: false, reason: "cancelled" };
    return { id: row.id, status: "cancelled", decision, payload: decision };
  }
  const reader: AnswerReader = ANSWER_READERS[row.kind];
  return reader(input);
}
