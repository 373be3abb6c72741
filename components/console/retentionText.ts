/**
 * What the retention page shares: the API's shapes (dates arrive as ISO strings: tRPC runs without
 * a transformer here, so `Date`s are sent as JSON strings) and the words it says numbers and times in.
 */
import type { RouterOutputs } from "@/components/trpc/types";

export type RetentionView = RouterOutputs["retention"]["get"];
export type RetentionUser = RouterOutputs["retention"]["users"][number];

/** The most days a policy may say (the server refuses more): 100 years. */
export const MAX_DAYS = 36_500;

/** "1 conversation", "1,234 conversations". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

/** How long something is kept: "30 days" or "forever" (0 days keeps it). */
export function keptFor(days: number): string {
  return days === 0 ? "forever" : count(days, "day");
}

/** A day as people say it: "4 Nov" (with the year when it is not this year's). */
export function dayOf(iso: string, now: number): string {
  const date = new Date(iso);
  const otherYear = date.getFullYear() !== new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, { day: "numeric", month: "short", ...(otherYear ? { year: "numeric" } : {}) });
}

/** A time of day ("15:40"), with its day when that is not today ("5 Nov, 15:40"). */
export function timeOf(iso: string, now: number): string {
  const date = new Date(iso);
  const clock = date.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
  return date.toDateString() === new Date(now).toDateString() ? clock : `${dayOf(iso, now)}, ${clock}`;
}

/** How far ahead `iso` is: "in 52 min", "in 3 h 10 min", "in 2 days"; null once it is due. */
export function fromNow(iso: string, now: number): string | null {
  const minutes = Math.round((Date.parse(iso) - now) / 60_000);
  if (minutes < 1) return null;
  if (minutes < 60) return `in ${minutes} min`;
  if (minutes < 24 * 60) {
    const rest = minutes % 60;
    return `in ${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ""}`;
  }
  return `in ${count(Math.round(minutes / (24 * 60)), "day")}`;
}

/** A hash too long to read, shortened to what tells it apart at a glance: "9f3a1c…e4c2". */
export function shortHash(hash: string): string {
  return hash.length > 12 ? `${hash.slice(0, 6)}…${hash.slice(-4)}` : hash;
}
