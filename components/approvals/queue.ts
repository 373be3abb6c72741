import type { InteractionView } from "@/components/trpc/types";
import { escalatedToViewer } from "./deadline";

export type Reason = NonNullable<InteractionView["pauseReason"]>;
export type Pause = InteractionView & { pauseReason: Reason };

/** Pauses only: a browser tool's result or background work is nobody's decision. */
export const isPause = (i: InteractionView): i is Pause => i.pauseReason !== null;

export const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** Requests that ended without a decision: they stay in the list with a note instead of vanishing. */
export const vanished = (i: InteractionView) => i.status === "lost" || i.status === "expired";

/** What deciding whose move it is reads of a request. */
export type Turn = Pick<InteractionView, "interactionId" | "status" | "policy" | "requester" | "votes" | "deadline">;

export const votedBy = (i: Pick<InteractionView, "votes">, viewerId: string) => i.votes.some((v) => v.by === viewerId);
export const approvalsOf = (i: InteractionView) => i.votes.filter((v) => v.approved).length;

/** Newest first, as the server lists them. */
export const newestFirst = (a: InteractionView, b: InteractionView) => b.createdAt.localeCompare(a.createdAt);

/**
 * Whose move it is: the viewer's own work ("Needs me") — a gate routed to approvers that someone
 * else asked for, their own question to answer in their conversation, an operator pause for an
 * admin — or someone else's ("Waiting on others"), such as the viewer's own gate, which another
 * approver must decide (four-eyes rule).
 */
export function needsViewer(i: Turn, viewerId: string, viewerIsAdmin: boolean): boolean {
  const own = i.requester.id === viewerId;
  // A vote already cast on a gate that needs several approvers leaves it to the others.
  if (escalatedToViewer(i.deadline, viewerIsAdmin)) return !own && !votedBy(i, viewerId);
  if (i.policy === "approvers") return !own && !votedBy(i, viewerId);
  if (i.policy === "admins") return viewerIsAdmin;
  return own;
}

/**
 * The request to show after `decidedId` was decided: the next one down the list that still needs
 * the viewer, else the nearest one above it; null when nothing else waits on them.
 */
export function nextToDecide(rows: readonly Turn[], decidedId: string, viewerId: string, viewerIsAdmin: boolean): string | null {
  const at = rows.findIndex((i) => i.interactionId === decidedId);
  const open = (i: Turn) => i.interactionId !== decidedId && i.status === "pending" && needsViewer(i, viewerId, viewerIsAdmin);
  const below = rows.slice(at + 1).find(open);
  const above = rows.slice(0, Math.max(0, at)).reverse().find(open);
  return (below ?? above)?.interactionId ?? null;
}

/** The amount a request moves, when it is a transfer ("2,500 EUR"). */
export function amountOf(i: Pick<InteractionView, "tool">): string | null {
  const args = i.tool?.args;
  if (!args || typeof args.amount !== "number" || typeof args.currency !== "string") return null;
  return `${args.amount.toLocaleString("en-US", { maximumFractionDigits: 2 })} ${args.currency}`;
}
