import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "@/server/runtime";

/** A string the database can store, trimmed, within `max` characters. */
export function text(max: number) {
  return z.string().trim().max(max).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
}

/** An id a client quotes back to us. */
export const id = z.string().min(1).max(200).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE);
