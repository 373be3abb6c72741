/**
 * Harbor's settings, read once from the environment and validated.
 * Every documented setting lives here so the README and the code cannot drift apart.
 */
import path from "node:path";
import { z } from "zod";

const flag = z
  .enum(["0", "1", "true", "false"])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === "1" || v === "true"));

const settingsSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  HARBOR_DATA_DIR: z.string().min(1).default(".data"),
  HARBOR_SEED_DEMO: flag,
  AUTH_SECRET: z.string().min(16).optional(),
  /** Pause between streamed text chunks, so the chat visibly streams; 0 in benchmarks. */
  HARBOR_STREAM_CHUNK_MS: z.coerce.number().int().min(0).max(1000).default(15),
  /** How long an approval gate waits for its decision before it expires. */
  HARBOR_APPROVAL_TTL_MS: z.coerce.number().int().min(1000).max(7 * 24 * 3600_000).default(15 * 60_000),
  /** How long a background job's lease lasts unrenewed: how soon a dead process's job is taken over. */
  HARBOR_JOB_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  /** How many runs execute at once per process; more wait in the scheduler's queue by priority, then age. */
  HARBOR_MAX_ACTIVE_RUNS: z.coerce.number().int().min(1).max(10_000).default(100),
  /** The pause between numbers of the concierge's `count slowly to <n>`. */
  HARBOR_STEP_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** How long the concierge's `deep_research` works, in steps. */
  HARBOR_RESEARCH_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  /** Mounts the bare SSE baseline route used by `npm run bench`. Never on in production. */
  HARBOR_BENCH: flag,
});

export type Settings = Readonly<{
  databaseUrl: string | undefined;
  dataDir: string;
  seedDemo: boolean;
  authSecret: string | undefined;
  streamChunkMs: number;
  approvalTtlMs: number;
  jobLeaseMs: number;
  researchMs: number;
  stepMs: number;
  maxActiveRuns: number;
  benchRoutes: boolean;
}>;

/** Parses settings from an environment; throws a readable error naming each bad variable. */
export function readSettings(env: Record<string, string | undefined> = process.env): Settings {
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid Harbor settings: ${problems}`);
  }
  const s = parsed.data;
  if (s.DATABASE_URL && !s.AUTH_SECRET) {
    // Several processes share one PostgreSQL, so they must share one session secret: it cannot be
    // generated per process as it is for the embedded database.
    throw new Error("Invalid Harbor settings: AUTH_SECRET must be set when DATABASE_URL is.");
  }
  return {
    databaseUrl: s.DATABASE_URL,
    dataDir: path.resolve(s.HARBOR_DATA_DIR),
    // The embedded database is the demo: seed it unless told otherwise.
    seedDemo: s.HARBOR_SEED_DEMO ?? s.DATABASE_URL === undefined,
    authSecret: s.AUTH_SECRET,
    streamChunkMs: s.HARBOR_STREAM_CHUNK_MS,
    approvalTtlMs: s.HARBOR_APPROVAL_TTL_MS,
    jobLeaseMs: s.HARBOR_JOB_LEASE_MS,
    researchMs: s.HARBOR_RESEARCH_MS,
    stepMs: s.HARBOR_STEP_MS,
    maxActiveRuns: s.HARBOR_MAX_ACTIVE_RUNS,
    benchRoutes: s.HARBOR_BENCH ?? false,
  };
}

let cached: Settings | undefined;
export function settings(): Settings {
  cached ??= readSettings();
  return cached;
}
