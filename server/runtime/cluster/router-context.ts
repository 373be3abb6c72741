/** What the router is given, and what it keeps as it runs (shared by its sending and serving sides). */
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type { ClusterSignals } from "@/server/db/notifications";
import type { RoutedRequest } from "./routed-request";

export interface Sealer {
  seal(plaintext: string, associated: string): string;
  open(sealed: string, associated: string): string;
}

export interface RoutingDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  signals: ClusterSignals;
  sealer: Sealer;
  /** How long a sender waits for the owner's answer (default 10 s). */
  timeoutMs?: number;
  /** How often a sender waiting for an answer looks whether its target left (default 1 s). */
  checkMs?: number;
  /** Whether an instance has left (stopped, reclaimed, silent too long): a request it never took is given up. */
  isGone?(instanceId: string): Promise<boolean>;
  /** Decides a forwarded request here, as if it had arrived here: the ids of the runs it continued. */
  handle(request: RoutedRequest): Promise<{ runIds: string[] }>;
}

export interface RouterContext {
  deps: RoutingDeps;
  timeoutMs: number;
  checkMs: number;
  /** Senders waiting for an answer, by request id: each is rung when its answer is signalled. */
  readonly waiting: Map<string, () => void>;
  /** Requests being served here, and whether this instance serves any more (see `closeRouter`). */
  readonly serving: Set<Promise<void>>;
  closed: boolean;
}

export function routerContext(deps: RoutingDeps): RouterContext {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  return {
    deps,
    timeoutMs,
    checkMs: Math.min(deps.checkMs ?? 1_000, timeoutMs),
    waiting: new Map(),
    serving: new Set(),
    closed: false,
  };
}
