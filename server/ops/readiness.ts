/**
 * Whether this instance can serve, as a balancer asks it (`/api/health/ready`): the database
 * answers, the embedded database's thread is up, it is not shutting down. The answer is read from
 * what a background probe last saw, never worked out while asked: a readiness check must answer
 * at once under any load, and must not queue behind the work it reports on.
 */
import type { DatabaseHandle } from "@/server/db";
import { ping } from "@/server/db/queries/health";
import type { LoadReading } from "@/server/runtime";

/** How often the database is asked whether it answers, and how long it may take. */
const PROBE_MS = 1_000;
const PROBE_TIMEOUT_MS = 2_000;
/** Without an answer for this long, the database counts as unreachable. */
const STALE_MS = 5_000;

export type DatabaseCheck = "ok" | "slow" | "unreachable" | "restarting" | "dead";

export interface Readiness {
  ready: boolean;
  database: DatabaseCheck;
  stopping: boolean;
  load: LoadReading;
}

export interface ReadinessProbe {
  /** What the last probe saw, with the runtime's own state. */
  read(state: { stopping: boolean; load: LoadReading }): Readiness;
  stop(): void;
}

function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function readinessProbe(handle: DatabaseHandle, onFailure: (error: unknown) => void): ReadinessProbe {
  // Booting migrated the database just now: it answered.
  let lastAnswer = Date.now();
  let failing = false;
  let probing = false;
  const probe = async () => {
    if (probing) return;
    probing = true;
    try {
      await withTimeout(ping(handle.db), PROBE_TIMEOUT_MS);
      lastAnswer = Date.now();
      failing = false;
    } catch (error) {
      // Told once per outage, not once a second.
      if (!failing) onFailure(error);
      failing = true;
    } finally {
      probing = false;
    }
  };
  const timer = setInterval(() => void probe(), PROBE_MS);
  timer.unref();

  const database = (): DatabaseCheck => {
    const engine = handle.engineState();
    if (engine !== "up") return engine;
    if (Date.now() - lastAnswer > STALE_MS) return "unreachable";
    return failing ? "slow" : "ok";
  };

  return {
    read: ({ stopping, load }) => {
      const check = database();
      return { ready: !stopping && (check === "ok" || check === "slow"), database: check, stopping, load };
    },
    stop: () => clearInterval(timer),
  };
}
