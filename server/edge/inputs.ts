import { z } from "zod";
import { settings } from "@/server/config";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/runtime";

/** A string the database can store, trimmed, within `max` characters. */
export function text(max: number) {
  return z.string().trim().max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
}

/**
 * A user's message, trimmed: not empty, storable, within the server's HARBOR_MAX_MESSAGE_CHARS (the
 * composer's limit). The limit is read as each input is checked, never when this module loads
 * (`next build` loads it without the server's settings).
 */
export const messageText = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
  .superRefine((value, ctx) => {
    const max = settings().maxMessageChars;
    if (value.length > max)
      ctx.addIssue({
        code: "too_big",
        origin: "string",
        maximum: max,
        inclusive: true,
        input: value,
        message: `longer than ${max} characters`,
      });
  });

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
