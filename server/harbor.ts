/**
 * The composition root of the serving process: database, OAuth providers, demo peers, agents and
 * runtime, wired once. Kept on `globalThis` because Next.js may evaluate this module once per route bundle.
 */
import "server-only";
import { remoteAgent } from "@/server/a2a/remote-agent";
import { mcpConnector } from "@/server/mcp/connector";
import { createAgents } from "@/server/agents";
import { CALENDAR_PROVIDER, CALENDAR_SCOPES } from "@/server/agents/concierge/tools";
import { authSecret } from "@/server/auth/secret";
import { SSO_PROVIDER_ID } from "@/server/auth/sso/policy";
import { settings } from "@/server/config";
import { databaseHandle, type Database, type DatabaseHandle } from "@/server/db";
import { listenForSignals, type ClusterSignals } from "@/server/db/notifications";
import { instanceId } from "@/server/instance-id";
import { log } from "@/server/log";
import { oauthBroker, type OAuthBroker, type OAuthProvider } from "@/server/oauth/broker";
import { oauthClient } from "@/server/oauth/client";
import type { HealthSource } from "@/server/ops/health";
import { exposeMetrics } from "@/server/ops/metrics";
import { readinessProbe, type ReadinessProbe } from "@/server/ops/readiness";
import { startDemoPeers, type DemoPeers } from "@/server/peers";
import { createRuntime, outboxService, type AgentRegistry, type Runtime } from "@/server/runtime";

export interface Harbor {
  db: Database;
  /** Other instances' notifications (PostgreSQL only). */
  signals: ClusterSignals | undefined;
  /** The agents this server offers (the runtime runs them; `agents.list` describes them). */
  agents: AgentRegistry;
  runtime: Runtime;
  outbox: ReturnType<typeof outboxService>;
  oauth: OAuthBroker;
  peers: DemoPeers | undefined;
  /** Whether this instance can serve, as the last probe saw it (`/api/health/ready`). */
  readiness: ReadinessProbe;
}

const KEY = Symbol.for("harbor.instance");
const STARTED = Symbol.for("harbor.started");
type Holder = { [KEY]?: Promise<Harbor>; [STARTED]?: Harbor };

/** Where users reach this server: OAuth providers send them back here. */
function publicUrl(): string {
  // `next start` sets PORT once it listens, which is before it loads this module.
  return settings().publicUrl ?? `http://${process.env.HOSTNAME || "127.0.0.1"}:${process.env.PORT || "3000"}`;
}

async function boot(): Promise<Harbor> {
  const handle = await databaseHandle();
  const config = settings();
  const serverSecret = authSecret();
  const redirectUri = `${publicUrl()}/api/oauth/callback/${CALENDAR_PROVIDER}`;
  // The demo's peers start with the demo accounts; a real provider or agent configured by URL replaces them.
  const peers = config.seedDemo
    ? await startDemoPeers({
        serverSecret,
        redirectUri,
        // Auth.js's callback for single sign-on: the demo provider signs people in to Harbor too.
        signInRedirectUri: `${publicUrl()}/api/auth/callback/${SSO_PROVIDER_ID}`,
        idpPort: config.idpPort,
        mcpPort: config.demoMcpPort,
        travelAgentPort: config.travelAgentPort,
        accessTokenTtlSeconds: config.idpTokenTtlSeconds,
      })
    : undefined;
  try {
    return await wire(handle, serverSecret, redirectUri, peers);
  } catch (error) {
    // Listening peers would outlive a failed start (and hold their ports against a retry).
    await peers?.close();
    throw error;
  }
}

/** Providers, agents and the runtime on top of the database and the demo peers (if any). */
async function wire(handle: DatabaseHandle, serverSecret: string, redirectUri: string, peers: DemoPeers | undefined): Promise<Harbor> {
  const db = handle.db;
  const config = settings();
  const calendar =
    config.oauthProvider ??
    (peers && { issuer: peers.identityProvider.issuer, ...peers.client, calendarUrl: peers.identityProvider.calendarUrl });
  const providers = new Map<string, OAuthProvider>(
    calendar
      ? [
          [
            CALENDAR_PROVIDER,
            {
              id: CALENDAR_PROVIDER,
              name: config.oauthProvider ? "calendar" : "demo calendar",
              issuer: calendar.issuer,
              client: oauthClient({ ...calendar, redirectUri, scopes: [...CALENDAR_SCOPES] }),
            },
          ],
        ]
      : [],
  );
  const oauth = oauthBroker({
    db,
    serverSecret,
    providers,
    connectUrl: (id) => `${publicUrl()}/api/oauth/connect/${encodeURIComponent(id)}`,
    log,
  });
  const travelAgentUrl = config.travelAgentUrl ?? peers?.travelAgent.url;
  // Several instances may share PostgreSQL: listen to what the others say. The embedded database has one.
  const signals = handle.engine === "postgres" && handle.url ? await listenForSignals(handle.url, instanceId(), log) : undefined;
  const agents = createAgents({
    researchMs: config.researchMs,
    stepMs: config.stepMs,
    calendarUrl: calendar?.calendarUrl,
    travelAgent: travelAgentUrl ? remoteAgent(travelAgentUrl, { timeoutMs: config.a2aTimeoutMs }) : undefined,
    model: config.model,
  });
  const runtime = createRuntime({
    db,
    agents,
    log,
    streamChunkMs: config.streamChunkMs,
    textFrameMs: config.textFrameMs,
    approvalTtlMs: config.approvalTtlMs,
    sweepIntervalMs: config.sweepMs,
    oauthTtlMs: config.oauthTtlMs,
    a2aTtlMs: config.a2aTtlMs,
    jobLeaseMs: config.jobLeaseMs,
    maxActiveRuns: config.maxActiveRuns,
    maxActiveRunsPerUser: config.maxActiveRunsPerUser,
    loadLimits: config.loadLimits,
    retention: config.retention,
    budgets: config.budgets,
    maxSubscriptionsPerUser: config.maxSubscriptionsPerUser,
    maxThreadMessages: config.maxThreadMessages,
    maxStateBytes: config.maxStateBytes,
    maxTenantStorageBytes: config.tenantStorageBytes,
    storageMeasureMs: config.storageMeasureMs,
    serverSecret,
    publicUrl: publicUrl(),
    credentials: oauth,
    instanceId: instanceId(),
    instanceHeartbeatMs: config.instanceHeartbeatMs,
    instanceTtlMs: config.instanceTtlMs,
    alone: handle.engine === "pglite",
    durableWaits: config.durableWaits.map((w) => (w === "approvals" ? "approval" : "client_tool")),
    signals,
    webhooks: config.webhooks,
    mcp: {
      allowLocal: config.mcp.allowLocal,
      operatorServers: config.mcp.stdioServers,
      suggested: peers ? [{ name: "calendar", url: peers.calendarMcp.url, title: "The demo's team calendar" }] : [],
      connector: mcpConnector({ allowLocal: config.mcp.allowLocal, timeoutMs: config.mcp.timeoutMs, holdMs: config.a2aTtlMs }),
    },
  });
  // Join the other instances (reclaiming what dead ones held) before serving anyone.
  await runtime.start();
  if (peers)
    log.info(
      { identityProvider: peers.identityProvider.issuer, travelAgent: peers.travelAgent.url, calendarMcp: peers.calendarMcp.url },
      "demo peers started",
    );
  // Metrics are collected only where they can be read.
  if (config.metricsToken) exposeMetrics({ db, load: runtime.load });
  const readiness = readinessProbe(handle, (error) => log.error({ err: error }, "the database does not answer the readiness probe"));
  return { db, signals, agents, runtime, outbox: outboxService(db), oauth, peers, readiness };
}

export function harbor(): Promise<Harbor> {
  const holder = globalThis as Holder;
  if (process.env.NEXT_PHASE === "phase-production-build") {
    // A build that opened the database would lock and migrate the embedded folder, and start the demo's peers.
    return Promise.reject(
      new Error("Harbor does not start while `next build` runs: read the request (headers, cookies) before calling harbor()"),
    );
  }
  if (!holder[KEY]) {
    const booting = boot();
    holder[KEY] = booting;
    booting.then(
      (started) => (holder[STARTED] = started),
      () => {
        if (holder[KEY] === booting) delete holder[KEY];
      },
    );
  }
  return holder[KEY];
}

/** What health checks read, without waiting: undefined while Harbor is still starting (or failed to). */
export function healthSource(): HealthSource | undefined {
  const started = (globalThis as Holder)[STARTED];
  if (!started) return undefined;
  const { runtime, readiness } = started;
  return { instanceId: runtime.instanceId, readiness, stopping: runtime.stopping, load: runtime.load };
}

/**
 * Stops the serving process cleanly: hands its work to the other instances (if any) and lets runs in
 * flight finish or go on elsewhere (see the runtime's `stop`; `graceMs`, by default
 * `HARBOR_SHUTDOWN_GRACE_MS`), stops the demo peers, then closes the database — which, for the
 * embedded one, also releases its folder's lock.
 */
export async function shutdown(graceMs = settings().shutdownGraceMs): Promise<void> {
  const holder = globalThis as Holder;
  if (!holder[KEY]) return;
  const { runtime, peers, signals, readiness } = await holder[KEY];
  await runtime.stop(graceMs);
  readiness.stop();
  await signals?.close();
  await peers?.close();
  await (await databaseHandle()).close();
}
