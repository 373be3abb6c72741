/** Why an interaction cannot be answered any more, said the same way wherever it is found out. */
import type { InteractionRow } from "@/server/db/queries/interactions";
import { HarborError } from "../errors";

export const LOST_MESSAGE = "Harbor restarted while this was waiting, so it can no longer be answered. Please ask again.";

/** Refuses an interaction that is no longer pending, saying what became of it. */
export function assertOpen(row: InteractionRow): void {
  if (row.status === "pending") return;
  if (row.status === "lost") throw new HarborError("INTERACTION_LOST", LOST_MESSAGE, { interactionId: row.id });
  if (row.status === "expired") throw new HarborError("EXPIRED", "This request expired before it was answered.", { interactionId: row.id });
  throw alreadyResolved(row.id, row.status);
}

export function alreadyResolved(id: string, status = "answered"): HarborError {
  return new HarborError("ALREADY_RESOLVED", `This request was already ${status}; the action is not repeated.`, { interactionId: id });
}

/** How a run ends when its wait closes unanswered: expired, or lost with its process. */
export function failureOf(to: "expired" | "lost") {
  return to === "expired"
    ? { code: "EXPIRED" as const, message: "The request expired before it was answered; its run ended." }
    : { code: "INTERACTION_LOST" as const, message: LOST_MESSAGE };
}
