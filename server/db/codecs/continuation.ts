/**
 * A parked run's continuation: the run, its thread's state and transcript, and its checkpoint, as
 * one statement assembles them (queries/runs.ts `continuationOf`). Computed on read, so it has no
 * version of its own; its checkpoint has.
 */
import { z } from "zod";
import { MESSAGE_ROLES } from "@/server/domain";
import { checkpointCodec } from "./checkpoint";
import { storedCodec } from "./codec";
import { storedToolCallSchema } from "./run-event";

const continuationSchema = z.looseObject({
  threadId: z.string(),
  priority: z.number(),
  tenantId: z.string(),
  ownerId: z.string(),
  agentId: z.string(),
  checkpoint: z
    .unknown()
    .nullable()
    .transform((stored) => (stored == null ? null : checkpointCodec.decode(stored))),
  threadState: z.record(z.string(), z.unknown()),
  messages: z.array(
    z.looseObject({
      id: z.string(),
      role: z.enum(MESSAGE_ROLES),
      content: z.string(),
      toolCalls: z.array(storedToolCallSchema).nullable(),
      toolCallId: z.string().nullable(),
    }),
  ),
  ahead: z.array(z.string()),
});

export type Continuation = z.output<typeof continuationSchema>;

export const continuationCodec = storedCodec<Continuation>({
  shape: "continuation",
  version: 1,
  schema: continuationSchema,
  upcasters: {},
});

/**
 * A continuation as a statement returned it, read where its run is driven: an unreadable one then
 * fails that run (STATE_UNREADABLE), not the statement that claimed several.
 */
export class StoredContinuation {
  constructor(private readonly stored: unknown) {}
  read(): Continuation {
    return continuationCodec.decode(this.stored);
  }
}
