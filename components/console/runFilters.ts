/**
 * The run list's filters as the URL holds them (status, pause reason, search), read the same way by
 * the page on the server (which loads the first list with the HTML) and by the console in the browser.
 */
import { PAUSE_REASONS, RUN_STATUSES, type PauseReason, type RunStatus } from "@/server/domain";

export interface RunFilters {
  status: RunStatus | "";
  reason: PauseReason | "";
  q: string;
}

const oneOf = <T extends string>(values: readonly T[], v: string | null | undefined): T | "" =>
  (values as readonly string[]).includes(v ?? "") ? (v as T) : "";

/** The filters in `get`'s values (a URLSearchParams' get, or a page's searchParams); unknown values are dropped. */
export function runFilters(get: (key: string) => string | null | undefined): RunFilters {
  return { status: oneOf(RUN_STATUSES, get("status")), reason: oneOf(PAUSE_REASONS, get("reason")), q: get("q")?.trim() ?? "" };
}

/** What `runs.list` is asked with for these filters (absent rather than empty). */
export function listInput({ status, reason, q }: RunFilters) {
  return { ...(status ? { status } : {}), ...(reason ? { reason } : {}), ...(q ? { q } : {}) };
}
