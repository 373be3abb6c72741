import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/runtime";

/** A string the database can store, trimmed, within `max` characters. */
export function text(max: number) {
  return z.string().trim().max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
}

/** An id a client quotes back to us. */
export const id = z.string().min(1).max(200).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);

/** The largest `seq` a run's event log can hold (a PostgreSQL integer). */
const MAX_SEQ = 2_147_483_647;

/** A position in a run's event log: its events after this `seq` (0 = from the first). */
export const afterSeq = z.number().int().min(0).max(MAX_SEQ);

/**
 * The `Last-Event-ID` an SSE client sends back when it reconnects: a `seq` this server sent as an
 * event's id (empty = none), as a number.
 */
export const lastEventId = z
  .string()
  .regex(/^\d{0,10}$/, "must be the id of an event this server sent")
  .transform((id) => (id === "" ? undefined : Number(id)))
  .pipe(afterSeq.optional());
