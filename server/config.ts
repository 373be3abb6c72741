/**
 * Harbor's settings, read once from the environment and validated.
 * Every documented setting lives here so the README and the code cannot drift apart.
 */
import path from "node:path";
import { z } from "zod";
import { ROLES, type Role } from "@/server/domain";

const flag = z
  .enum(["0", "1", "true", "false"])
  .optional()
  .transform((v) => (v === undefined ? undefined : v === "1" || v === "true"));

/** `key=value,key=value` (spaces around either ignored) as pairs, each checked by `key` and `value`. */
const pairs = <V extends string>(key: z.ZodType<string, string>, value: z.ZodType<V, string>) =>
  z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean)
        .map((entry) => entry.split("=").map((part) => part.trim())),
    )
    .pipe(z.array(z.tuple([key, value])));

/** A lowercase email domain, as single sign-on compares them. */
const emailDomain = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, "must be an email domain, like acme.com"));

const settingsSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  HARBOR_DATA_DIR: z.string().min(1).default(".data"),
  HARBOR_SEED_DEMO: flag,
  /** Run the embedded database on a worker thread of its own (both cores; see the README's "Performance"). */
  HARBOR_PGLITE_THREAD: flag,
  /** Plan the embedded database's statements once and reuse the plans (off only to compare). */
  HARBOR_PGLITE_PREPARED: flag,
  /** Prepare PostgreSQL's statements once per connection (off behind a pooler that cannot keep them). */
  HARBOR_PG_PREPARED: flag,
  AUTH_SECRET: z.string().min(16).optional(),
  /** Pause between streamed text chunks, so the chat visibly streams; 0 in benchmarks. */
  HARBOR_STREAM_CHUNK_MS: z.coerce.number().int().min(0).max(1000).default(15),
  /** A model's streamed text goes out at most this often (one 60 Hz frame); 0: as it comes. */
  HARBOR_TEXT_FRAME_MS: z.coerce.number().int().min(0).max(1000).default(16),
  /** How long an approval gate waits for its decision before it expires. */
  HARBOR_APPROVAL_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(7 * 24 * 3600_000)
    .default(15 * 60_000),
  /** How often each instance sweeps for deadlines that fell due (reminders, escalations, expiries). */
  HARBOR_SWEEP_MS: z.coerce.number().int().min(10).max(60_000).default(5_000),
  /** How long a background job's lease lasts unrenewed: how soon a dead process's job is taken over. */
  HARBOR_JOB_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  /** How many runs execute at once per process; more wait in the scheduler's queue by priority, then age. */
  HARBOR_MAX_ACTIVE_RUNS: z.coerce.number().int().min(1).max(10_000).default(100),
  /** How many of one user's runs execute at once; the others wait without holding back anyone else's. */
  HARBOR_MAX_ACTIVE_RUNS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(10),
  /**
   * Load shedding: past this event-loop delay, sustained (the worst of each second, in ms, past it
   * in three of the last five seconds), an instance refuses new runs with 503 OVERLOADED and
   * Retry-After instead of stalling everything it serves; one stall alone is not shed. 0: never.
   */
  HARBOR_SHED_EVENT_LOOP_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /** Load shedding: past this many runs waiting here for a slot, new runs are refused the same way. 0: never. */
  HARBOR_SHED_QUEUED_RUNS: z.coerce.number().int().min(0).max(1_000_000).default(5_000),
  /** Traces may carry what models answered (`gen_ai.output.messages`); off by default. Private values never. */
  HARBOR_OTEL_CAPTURE_CONTENT: flag,
  /** Conversations (and their runs, events, interactions, jobs) untouched this many days are deleted; a tenant's admins may set their own. 0: kept. */
  HARBOR_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /** Audit rows older than this many days are deleted (after an anchor keeps the chain verifiable); a tenant's own setting wins. 0: kept. */
  HARBOR_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
  /** Model token budgets for tenants that set none of their own (input and output tokens together, per UTC day or month; 0: none). */
  HARBOR_BUDGET_TENANT_DAILY_TOKENS: z.coerce.number().int().min(0).max(1e15).default(0),
  HARBOR_BUDGET_TENANT_MONTHLY_TOKENS: z.coerce.number().int().min(0).max(1e15).default(0),
  HARBOR_BUDGET_USER_DAILY_TOKENS: z.coerce.number().int().min(0).max(1e15).default(0),
  HARBOR_BUDGET_USER_MONTHLY_TOKENS: z.coerce.number().int().min(0).max(1e15).default(0),
  /** How often the retention sweep runs, once across the cluster. */
  HARBOR_RETENTION_SWEEP_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(7 * 86_400_000)
    .default(3_600_000),
  /** The bearer token that reads Prometheus metrics at /api/metrics (absent: metrics are off). */
  HARBOR_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").max(512).optional(),
  /** The most messages one conversation holds; a new message beyond it gets THREAD_FULL (start a new one). */
  HARBOR_MAX_THREAD_MESSAGES: z.coerce.number().int().min(10).max(100_000).default(1_000),
  /** The largest shared state (AG-UI `state`) a conversation may hold, in bytes of JSON; a larger one is INVALID_INPUT. */
  HARBOR_MAX_STATE_BYTES: z.coerce.number().int().min(1_024).max(1_048_576).default(262_144),
  /** What one tenant may store (events, messages, states), in MB, as measured every few minutes; past it, new runs are QUOTA_EXCEEDED. 0: no quota. */
  HARBOR_TENANT_STORAGE_MB: z.coerce.number().int().min(0).max(100_000_000).default(1_024),
  /** How often the tenants' storage is measured for the quota. */
  HARBOR_STORAGE_MEASURE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** How many live feeds (tRPC subscriptions) one user may hold open at once per process. */
  HARBOR_MAX_SUBSCRIPTIONS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(20),
  /**
   * How long a server-sent stream (an AG-UI run, a tRPC subscription) may stay silent before a ping
   * goes out: proxies close connections idle for a minute or so, and a queued run says nothing.
   */
  HARBOR_SSE_PING_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /** The pause between numbers of the concierge's `count slowly to <n>`. */
  HARBOR_STEP_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** How long the concierge's `deep_research` works, in steps. */
  HARBOR_RESEARCH_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  /** Mounts the bare SSE baseline route used by `npm run bench`. Never on in production. */
  HARBOR_BENCH: flag,
  /**
   * The AG-UI endpoint is served in front of Next.js's router (server/ops/answer-first.ts): a park →
   * resume cycle over HTTP costs the server's main thread about a third of what it did through Next's
   * route handler. `1` serves it through that route instead (the same handler), to compare or to
   * rule the fast path out.
   */
  HARBOR_AGUI_THROUGH_NEXT: flag,
  /** The origin users reach Harbor at (OAuth redirects come back to it); default http://HOSTNAME:PORT. */
  HARBOR_PUBLIC_URL: z.url().optional(),
  /** How long an OAuth consent may take before its pause expires. */
  HARBOR_OAUTH_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(24 * 3600_000)
    .default(10 * 60_000),
  /** A real OAuth provider for the calendar tool (all four, or none: the demo's embedded provider). */
  HARBOR_OAUTH_ISSUER: z.url().optional(),
  HARBOR_OAUTH_CLIENT_ID: z.string().min(1).optional(),
  HARBOR_OAUTH_CLIENT_SECRET: z.string().min(1).optional(),
  HARBOR_CALENDAR_URL: z.url().optional(),
  /** Single sign-on with an OpenID Connect provider: its issuer and Harbor's client there (all three, or none). */
  HARBOR_SSO_ISSUER: z.url().optional(),
  HARBOR_SSO_CLIENT_ID: z.string().min(1).optional(),
  HARBOR_SSO_CLIENT_SECRET: z.string().min(1).optional(),
  /** The provider's name on the sign-in page's button: "Sign in with <name>". */
  HARBOR_SSO_NAME: z.string().trim().min(1).max(60).optional(),
  /** The scopes Harbor asks the provider for (space-separated): openid, and whatever releases the email and the role claim. */
  HARBOR_SSO_SCOPES: z
    .string()
    .optional()
    .transform((v) => v?.split(/\s+/).filter(Boolean))
    .pipe(
      z
        .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/))
        .refine((s) => s.includes("openid"), "must include openid")
        .optional(),
    ),
  /** Which email domains sign in to which tenant: `acme.com=acme,globex.com=globex` (domain=tenant slug). */
  HARBOR_SSO_DOMAINS: pairs(emailDomain, z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "must be a tenant slug")).optional(),
  /** The claim whose values map to roles (a string or a list of strings), e.g. `groups`. */
  HARBOR_SSO_ROLE_CLAIM: z.string().min(1).max(200).default("groups"),
  /** Claim values that make a role: `harbor-admins=admin,harbor-approvers=approver`; the highest wins, none: member. */
  HARBOR_SSO_ROLES: pairs(z.string().min(1).max(200), z.string().pipe(z.enum(ROLES))).optional(),
  /**
   * Whether a first single sign-on with the email of an existing account signs in to it (off unless
   * set, or the demo: at a provider that lets people verify any address, an email proves little).
   */
  HARBOR_SSO_LINK_BY_EMAIL: flag,
  /** How often a signed-in session asks the provider again for its role claim (0: only at sign-in). */
  HARBOR_SSO_RECHECK_S: z.coerce.number().int().min(0).max(86_400).default(300),
  /** Sign-in with email and password (on unless 0: then only single sign-on signs people in). */
  HARBOR_PASSWORD_SIGNIN: flag,
  /** The embedded demo peers' loopback ports (0: the system picks). */
  HARBOR_IDP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  HARBOR_DEMO_MCP_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  HARBOR_TRAVEL_AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Lifetime of the embedded provider's access tokens (short values show refresh at work). */
  HARBOR_IDP_TOKEN_TTL_S: z.coerce.number().int().min(1).max(86_400).default(3_600),
  /** The travel agent's A2A URL; absent, the demo's embedded one. */
  HARBOR_TRAVEL_AGENT_URL: z.url().optional(),
  /** An OpenAI-compatible API root (e.g. http://127.0.0.1:11434/v1): with HARBOR_MODEL, serves the `assistant` agent. */
  HARBOR_MODEL_BASE_URL: z.url().optional(),
  HARBOR_MODEL: z.string().min(1).max(200).optional(),
  HARBOR_MODEL_API_KEY: z.string().min(1).max(4096).optional(),
  /** How long one model request may take (and wait for its first chunk). */
  HARBOR_MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** The most tokens one model request may answer with (`max_tokens`). */
  HARBOR_MODEL_MAX_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4_096),
  /** The most characters of text and tool arguments one model request may stream; past it, RUN_ERROR MODEL_OUTPUT_TOO_LARGE. */
  HARBOR_MODEL_MAX_OUTPUT_CHARS: z.coerce.number().int().min(1_000).max(10_000_000).default(200_000),
  /** How long a remote agent's question waits for the owner's answer; then it expires and the remote task is cancelled. */
  HARBOR_A2A_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(7 * 24 * 3600_000)
    .default(60 * 60_000),
  /** How long Harbor waits for a remote agent's answer before the call fails with REMOTE_AGENT_TIMEOUT. */
  HARBOR_A2A_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** The longest user message Harbor takes (AG-UI `messages[i].content`), in characters. */
  HARBOR_MAX_MESSAGE_CHARS: z.coerce.number().int().min(100).max(1_000_000).default(32_000),
  /** Failed sign-ins for one email from one client within HARBOR_SIGNIN_WINDOW_S; one more is a 429. */
  HARBOR_SIGNIN_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** Failed sign-ins from one client, whatever the emails, within HARBOR_SIGNIN_WINDOW_S; one more is a 429. */
  HARBOR_SIGNIN_CLIENT_FAILURES: z.coerce.number().int().min(1).max(100_000).default(50),
  /**
   * Failed sign-ins for one email from browsers it never signed in from, whatever addresses they
   * claim, within HARBOR_SIGNIN_WINDOW_S; one more is a 429 for such browsers (its own still sign in).
   */
  HARBOR_SIGNIN_ACCOUNT_FAILURES: z.coerce.number().int().min(1).max(100_000).default(30),
  /** The window failed sign-ins are counted in, and how long a throttled client waits. */
  HARBOR_SIGNIN_WINDOW_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 3600)
    .default(15 * 60),
  /** Which X-Forwarded-For entry, counted from the right, is the client: 1 with no proxy or one, 2 behind two, … */
  HARBOR_FORWARDED_FOR_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  /** How often an instance tells the others it is alive. */
  HARBOR_INSTANCE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** An instance silent this long is dead: survivors reclaim what it held. */
  HARBOR_INSTANCE_TTL_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  /**
   * On SIGTERM, how long runs in flight may take to finish; with other instances, runs still
   * executing are then handed back at their next step (given as long again, at least a second, to reach one).
   */
  HARBOR_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Waits that continue from their checkpoint on any instance: any of `approvals`, `client_tools` (comma-separated). */
  HARBOR_DURABLE_WAITS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((w) => w.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(["approvals", "client_tools"]))),
  /** Lets tenants connect MCP servers on loopback and private addresses (the demo, tests): never on a shared deployment. */
  HARBOR_MCP_ALLOW_LOCAL: flag,
  /**
   * MCP servers this deployment runs as local processes (stdio), as JSON: `[{ "name", "command",
   * "args"?, "env"?, "tenants"? }]` — offered to the tenants named, or to all. Never a tenant's to set.
   */
  HARBOR_MCP_STDIO_SERVERS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return [];
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
    })
    .pipe(
      z.array(
        z.strictObject({
          name: z.string().regex(/^[a-z0-9-]{1,32}$/),
          command: z.string().min(1),
          args: z.array(z.string()).default([]),
          env: z.record(z.string(), z.string()).default({}),
          tenants: z.array(z.string()).optional(),
        }),
      ),
    ),
  /** How long an MCP server may stay silent during a call (no answer, no progress) before it fails with MCP_TIMEOUT. */
  HARBOR_MCP_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Lets webhooks reach loopback addresses (127.0.0.1, ::1, localhost), over http too: tests and local trials only. */
  HARBOR_WEBHOOKS_ALLOW_LOCAL: flag,
  /** How often each instance looks for due webhook deliveries (changes made on the instance wake it at once). */
  HARBOR_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /** How long one webhook POST may take before it counts as failed. */
  HARBOR_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** The waits before each webhook retry (comma-separated ms); a delivery fails after that many retries. */
  HARBOR_WEBHOOK_RETRY_MS: z
    .string()
    .default("5000,30000,120000,600000,3600000,21600000")
    .transform((v) =>
      v
        .split(",")
        .map((w) => w.trim())
        .filter(Boolean)
        .map(Number),
    )
    .pipe(
      z
        .array(
          z
            .number()
            .int()
            .min(0)
            .max(7 * 24 * 3600_000),
        )
        .max(20),
    ),
});

export type Settings = Readonly<{
  databaseUrl: string | undefined;
  dataDir: string;
  pgliteThread: boolean;
  pglitePrepared: boolean;
  pgPrepared: boolean;
  seedDemo: boolean;
  authSecret: string | undefined;
  streamChunkMs: number;
  textFrameMs: number;
  approvalTtlMs: number;
  sweepMs: number;
  jobLeaseMs: number;
  researchMs: number;
  stepMs: number;
  maxActiveRuns: number;
  maxActiveRunsPerUser: number;
  metricsToken: string | undefined;
  retention: { conversationDays: number; auditDays: number; everyMs: number; batch: number };
  budgets: { tenantDaily: number; tenantMonthly: number; userDaily: number; userMonthly: number };
  otelCaptureContent: boolean;
  /** Past these, new runs are refused with OVERLOADED (0: that limit is off). */
  loadLimits: { maxEventLoopDelayMs: number; maxQueuedRuns: number };
  maxSubscriptionsPerUser: number;
  maxThreadMessages: number;
  maxStateBytes: number;
  tenantStorageBytes: number;
  storageMeasureMs: number;
  ssePingMs: number;
  benchRoutes: boolean;
  aguiThroughNext: boolean;
  publicUrl: string | undefined;
  oauthTtlMs: number;
  oauthProvider: { issuer: string; clientId: string; clientSecret: string; calendarUrl: string } | undefined;
  sso: SsoSettings;
  passwordSignIn: boolean;
  idpPort: number;
  demoMcpPort: number;
  idpTokenTtlSeconds: number;
  travelAgentPort: number;
  travelAgentUrl: string | undefined;
  model: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number; maxTokens: number; maxOutputChars: number } | undefined;
  a2aTtlMs: number;
  a2aTimeoutMs: number;
  mcp: {
    allowLocal: boolean;
    timeoutMs: number;
    stdioServers: { name: string; command: string; args: string[]; env: Record<string, string>; tenants?: string[] }[];
  };
  maxMessageChars: number;
  signIn: { failures: number; clientFailures: number; accountFailures: number; windowSeconds: number };
  forwardedForHops: number;
  instanceHeartbeatMs: number;
  instanceTtlMs: number;
  shutdownGraceMs: number;
  durableWaits: readonly ("approvals" | "client_tools")[];
  webhooks: { allowLocal: boolean; pollMs: number; timeoutMs: number; retryScheduleMs: readonly number[] };
}>;

/** Single sign-on (server/auth/sso): `provider` absent with the demo accounts means the embedded demo provider. */
export interface SsoSettings {
  provider: { issuer: string; clientId: string; clientSecret: string } | undefined;
  /** Whether single sign-on is offered at all: a provider is configured, or the demo's embedded one runs. */
  enabled: boolean;
  name: string | undefined;
  scopes: readonly string[];
  /** Email domain (lowercase) → tenant slug. */
  domains: Readonly<Record<string, string>>;
  roleClaim: string;
  /** Claim value → role; empty: the provider says nothing about roles, and Harbor's stand. */
  roles: Readonly<Record<string, Role>>;
  /** Whether a new subject with an existing account's email signs in to that account. */
  linkByEmail: boolean;
  recheckSeconds: number;
}

/** The demo's mapping, used when the embedded provider signs people in and nothing else is said. */
const DEMO_SSO = {
  domains: { "acme.test": "acme", "globex.test": "globex" },
  roles: { "harbor-admins": "admin", "harbor-approvers": "approver" },
  scopes: ["openid", "email", "profile", "groups", "offline_access"],
} as const;

type ParsedSettings = z.infer<typeof settingsSchema>;

/** Single sign-on's settings, checked together: a provider is all three settings or none, on https (or http on loopback). */
function ssoSettings(s: ParsedSettings, seedDemo: boolean): SsoSettings {
  const given = [s.HARBOR_SSO_ISSUER, s.HARBOR_SSO_CLIENT_ID, s.HARBOR_SSO_CLIENT_SECRET];
  if (given.some(Boolean) && !given.every(Boolean)) {
    throw new Error("Invalid Harbor settings: HARBOR_SSO_ISSUER, HARBOR_SSO_CLIENT_ID and HARBOR_SSO_CLIENT_SECRET go together.");
  }
  const provider =
    s.HARBOR_SSO_ISSUER && s.HARBOR_SSO_CLIENT_ID && s.HARBOR_SSO_CLIENT_SECRET
      ? { issuer: s.HARBOR_SSO_ISSUER.replace(/\/+$/, ""), clientId: s.HARBOR_SSO_CLIENT_ID, clientSecret: s.HARBOR_SSO_CLIENT_SECRET }
      : undefined;
  if (provider) {
    const url = new URL(provider.issuer);
    const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(url.hostname);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
      throw new Error("Invalid Harbor settings: HARBOR_SSO_ISSUER must use https (http only on a loopback address).");
    }
  }
  const demo = !provider && seedDemo;
  const domains = s.HARBOR_SSO_DOMAINS ? Object.fromEntries(s.HARBOR_SSO_DOMAINS) : demo ? DEMO_SSO.domains : {};
  if (provider && Object.keys(domains).length === 0) {
    throw new Error("Invalid Harbor settings: HARBOR_SSO_DOMAINS must name at least one email domain and its tenant (domain=slug).");
  }
  return {
    provider,
    enabled: Boolean(provider) || demo,
    name: s.HARBOR_SSO_NAME ?? (demo ? "the demo identity provider" : undefined),
    scopes: s.HARBOR_SSO_SCOPES ?? (demo ? DEMO_SSO.scopes : ["openid", "email", "profile", "offline_access"]),
    domains,
    roleClaim: s.HARBOR_SSO_ROLE_CLAIM,
    roles: s.HARBOR_SSO_ROLES ? Object.fromEntries(s.HARBOR_SSO_ROLES) : demo ? DEMO_SSO.roles : {},
    linkByEmail: s.HARBOR_SSO_LINK_BY_EMAIL ?? demo,
    recheckSeconds: s.HARBOR_SSO_RECHECK_S,
  };
}

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
  const provider = [s.HARBOR_OAUTH_ISSUER, s.HARBOR_OAUTH_CLIENT_ID, s.HARBOR_OAUTH_CLIENT_SECRET, s.HARBOR_CALENDAR_URL];
  if (provider.some(Boolean) && !provider.every(Boolean)) {
    throw new Error(
      "Invalid Harbor settings: HARBOR_OAUTH_ISSUER, HARBOR_OAUTH_CLIENT_ID, HARBOR_OAUTH_CLIENT_SECRET and HARBOR_CALENDAR_URL go together.",
    );
  }
  const seedDemo = s.HARBOR_SEED_DEMO ?? s.DATABASE_URL === undefined;
  const sso = ssoSettings(s, seedDemo);
  const passwordSignIn = s.HARBOR_PASSWORD_SIGNIN ?? true;
  if (!passwordSignIn && !sso.enabled) {
    throw new Error(
      "Invalid Harbor settings: HARBOR_PASSWORD_SIGNIN=0 needs single sign-on (HARBOR_SSO_ISSUER and its client), or nobody could sign in.",
    );
  }
  return {
    databaseUrl: s.DATABASE_URL,
    dataDir: path.resolve(s.HARBOR_DATA_DIR),
    // The embedded database is the demo: seed it unless told otherwise.
    pgliteThread: s.HARBOR_PGLITE_THREAD ?? true,
    pglitePrepared: s.HARBOR_PGLITE_PREPARED ?? true,
    pgPrepared: s.HARBOR_PG_PREPARED ?? true,
    seedDemo,
    authSecret: s.AUTH_SECRET,
    streamChunkMs: s.HARBOR_STREAM_CHUNK_MS,
    textFrameMs: s.HARBOR_TEXT_FRAME_MS,
    approvalTtlMs: s.HARBOR_APPROVAL_TTL_MS,
    sweepMs: s.HARBOR_SWEEP_MS,
    jobLeaseMs: s.HARBOR_JOB_LEASE_MS,
    researchMs: s.HARBOR_RESEARCH_MS,
    stepMs: s.HARBOR_STEP_MS,
    maxActiveRuns: s.HARBOR_MAX_ACTIVE_RUNS,
    maxActiveRunsPerUser: s.HARBOR_MAX_ACTIVE_RUNS_PER_USER,
    metricsToken: s.HARBOR_METRICS_TOKEN,
    budgets: {
      tenantDaily: s.HARBOR_BUDGET_TENANT_DAILY_TOKENS,
      tenantMonthly: s.HARBOR_BUDGET_TENANT_MONTHLY_TOKENS,
      userDaily: s.HARBOR_BUDGET_USER_DAILY_TOKENS,
      userMonthly: s.HARBOR_BUDGET_USER_MONTHLY_TOKENS,
    },
    retention: {
      conversationDays: s.HARBOR_RETENTION_DAYS,
      auditDays: s.HARBOR_AUDIT_RETENTION_DAYS,
      everyMs: s.HARBOR_RETENTION_SWEEP_MS,
      batch: 500,
    },
    otelCaptureContent: s.HARBOR_OTEL_CAPTURE_CONTENT ?? false,
    loadLimits: { maxEventLoopDelayMs: s.HARBOR_SHED_EVENT_LOOP_MS, maxQueuedRuns: s.HARBOR_SHED_QUEUED_RUNS },
    maxSubscriptionsPerUser: s.HARBOR_MAX_SUBSCRIPTIONS_PER_USER,
    maxThreadMessages: s.HARBOR_MAX_THREAD_MESSAGES,
    maxStateBytes: s.HARBOR_MAX_STATE_BYTES,
    tenantStorageBytes: s.HARBOR_TENANT_STORAGE_MB * 1_048_576,
    storageMeasureMs: s.HARBOR_STORAGE_MEASURE_MS,
    ssePingMs: s.HARBOR_SSE_PING_MS,
    benchRoutes: s.HARBOR_BENCH ?? false,
    aguiThroughNext: s.HARBOR_AGUI_THROUGH_NEXT ?? false,
    publicUrl: s.HARBOR_PUBLIC_URL?.replace(/\/+$/, ""),
    oauthTtlMs: s.HARBOR_OAUTH_TTL_MS,
    oauthProvider:
      s.HARBOR_OAUTH_ISSUER && s.HARBOR_OAUTH_CLIENT_ID && s.HARBOR_OAUTH_CLIENT_SECRET && s.HARBOR_CALENDAR_URL
        ? {
            issuer: s.HARBOR_OAUTH_ISSUER,
            clientId: s.HARBOR_OAUTH_CLIENT_ID,
            clientSecret: s.HARBOR_OAUTH_CLIENT_SECRET,
            calendarUrl: s.HARBOR_CALENDAR_URL,
          }
        : undefined,
    sso,
    passwordSignIn,
    idpPort: s.HARBOR_IDP_PORT,
    demoMcpPort: s.HARBOR_DEMO_MCP_PORT,
    idpTokenTtlSeconds: s.HARBOR_IDP_TOKEN_TTL_S,
    travelAgentPort: s.HARBOR_TRAVEL_AGENT_PORT,
    travelAgentUrl: s.HARBOR_TRAVEL_AGENT_URL,
    model:
      s.HARBOR_MODEL_BASE_URL && s.HARBOR_MODEL
        ? {
            baseUrl: s.HARBOR_MODEL_BASE_URL,
            model: s.HARBOR_MODEL,
            ...(s.HARBOR_MODEL_API_KEY ? { apiKey: s.HARBOR_MODEL_API_KEY } : {}),
            timeoutMs: s.HARBOR_MODEL_TIMEOUT_MS,
            maxTokens: s.HARBOR_MODEL_MAX_TOKENS,
            maxOutputChars: s.HARBOR_MODEL_MAX_OUTPUT_CHARS,
          }
        : undefined,
    a2aTtlMs: s.HARBOR_A2A_TTL_MS,
    a2aTimeoutMs: s.HARBOR_A2A_TIMEOUT_MS,
    maxMessageChars: s.HARBOR_MAX_MESSAGE_CHARS,
    signIn: {
      failures: s.HARBOR_SIGNIN_FAILURES,
      clientFailures: s.HARBOR_SIGNIN_CLIENT_FAILURES,
      accountFailures: s.HARBOR_SIGNIN_ACCOUNT_FAILURES,
      windowSeconds: s.HARBOR_SIGNIN_WINDOW_S,
    },
    forwardedForHops: s.HARBOR_FORWARDED_FOR_HOPS,
    instanceHeartbeatMs: s.HARBOR_INSTANCE_HEARTBEAT_MS,
    instanceTtlMs: s.HARBOR_INSTANCE_TTL_MS,
    shutdownGraceMs: s.HARBOR_SHUTDOWN_GRACE_MS,
    durableWaits: s.HARBOR_DURABLE_WAITS,
    // The demo's own MCP server listens on loopback: a demo deployment may connect it unless told otherwise.
    mcp: { allowLocal: s.HARBOR_MCP_ALLOW_LOCAL ?? seedDemo, timeoutMs: s.HARBOR_MCP_TIMEOUT_MS, stdioServers: s.HARBOR_MCP_STDIO_SERVERS },
    webhooks: {
      allowLocal: s.HARBOR_WEBHOOKS_ALLOW_LOCAL ?? false,
      pollMs: s.HARBOR_WEBHOOK_POLL_MS,
      timeoutMs: s.HARBOR_WEBHOOK_TIMEOUT_MS,
      retryScheduleMs: s.HARBOR_WEBHOOK_RETRY_MS,
    },
  };
}

let cached: Settings | undefined;
export function settings(): Settings {
  cached ??= readSettings();
  return cached;
}
