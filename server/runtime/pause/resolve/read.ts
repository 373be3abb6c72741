/** Rules 4 and 5: a resume answers every open wait of its thread, each strictly by its kind. */
import type { InteractionRow } from "@/server/db/queries/interactions";
import { kindRules } from "@/server/domain";
import { HarborError } from "../../errors";
import { readAnswer, type AnswerClaim } from "../answers";
import type { CoordinatorContext } from "../context";
import { checked, type Answering } from "./answering";

/**
 * Decides what each entry claims: on an AG-UI resume, refuses one that leaves an open wait of the
 * thread unanswered; then reads each answer by its interaction's kind (`answers.ts`).
 */
export function readAnswers(
  ctx: CoordinatorContext,
  { identity, entries, ids, options }: Answering,
  ordered: readonly InteractionRow[],
  loaded: readonly InteractionRow[],
): AnswerClaim[] {
  return checked(identity, () => {
    if (options.threadId) {
      const missing = loaded.filter(
        (r) => r.status === "pending" && kindRules(r.kind).holdsThread && r.threadId === options.threadId && !ids.includes(r.id),
      );
      if (missing.length > 0) {
        throw new HarborError(
          "INCOMPLETE_RESUME",
          `Answer every open interrupt of the thread in one resume; missing: ${missing.map((r) => r.id).join(", ")}.`,
          { missing: missing.map((r) => r.id) },
        );
      }
    }
    // A durable browser tool's schema is asked of its tool only where it may be answered unparked.
    const storedToolSchemas = ctx.durableKinds.includes("client_tool");
    return ordered.map((row, index) =>
      readAnswer({
        row,
        entry: entries[index]!,
        index,
        via: options.via,
        actorId: identity.userId,
        parkedSchema: ctx.parked.get(row.runId)?.answers?.get(row.id),
        storedToolSchema: () => (storedToolSchemas && row.toolName ? ctx.deps.clientToolOutput?.(row.toolName) : undefined),
      }),
    );
  });
}
