/**
 * The two health answers, computed from memory: alive (`/api/health`: started, the database opened
 * and migrated) and ready (`/api/health/ready`: see readiness.ts). Both the Next.js routes and the
 * fast path in front of Next's router (answer-first.ts) give these same answers.
 */
import type { LoadReading } from "@/server/runtime";
import type { ReadinessProbe } from "./readiness";

/** What a started instance tells its health checks. */
export interface HealthSource {
  instanceId: string;
  readiness: ReadinessProbe;
  stopping(): boolean;
  load(): LoadReading;
}

export interface HealthAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const STARTING: HealthAnswer = { status: 503, body: { ok: false, ready: false, reason: "starting" }, headers: { "retry-after": "1" } };

/** 200 with this instance's id once it started; 503 while it starts. */
export function livenessAnswer(source: HealthSource | undefined): HealthAnswer {
  if (!source) return STARTING;
  return { status: 200, body: { ok: true, instance: source.instanceId }, headers: {} };
}

/**
 * 200 when the database answers (the embedded one's thread is up), migrations ran and the instance
 * is not shutting down; 503 with the failing check otherwise. The load is reported but does not
 * make an instance unready: past its limits it sheds new runs itself (503 OVERLOADED).
 */
export function readinessAnswer(source: HealthSource | undefined): HealthAnswer {
  if (!source) return STARTING;
  const readiness = source.readiness.read({ stopping: source.stopping(), load: source.load() });
  return { status: readiness.ready ? 200 : 503, body: { instance: source.instanceId, ...readiness }, headers: {} };
}
