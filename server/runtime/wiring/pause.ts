/**
 * The pause room: the coordinator, which parks runs on interactions and answers them, and the
 * OAuth legs of a consent pause. It stands on the log room; what it calls in the runs room (built
 * after it) it is handed as callbacks.
 */
import type { Identity, VerifiedIdentity } from "../access";
import type { AgentRegistry } from "../agent";
import { createCoordinator, resumeTokenKey, type Coordinator } from "../pause";
import type { runService } from "../runs";
import type { RuntimeDeps } from "./deps";
import type { LogRoom } from "./log";

export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;
export const DEFAULT_OAUTH_TTL_MS = 10 * 60_000;
export const DEFAULT_A2A_TTL_MS = 60 * 60_000;

type CoordinatorDeps = Parameters<typeof createCoordinator>[0];

/** What the coordinator calls in the runs room: jobs a pause stored, waits that closed unanswered. */
export type PauseCallbacks = Required<Pick<CoordinatorDeps, "onJobsStarted" | "onWaitsClosed">>;

/** The output schema of a browser tool by its name, whichever agent declares it. */
function clientToolOutput(agents: AgentRegistry, toolName: string) {
  for (const agent of agents.values()) {
    const tool = agent.tools.get(toolName);
    if (tool?.kind === "client") return tool.output;
  }
  return undefined;
}

export function composePause(deps: RuntimeDeps, below: { instanceId: string; log: LogRoom }, up: PauseCallbacks) {
  const coordinator = createCoordinator({
    db: deps.db,
    log: deps.log,
    instanceId: below.instanceId,
    approvalTtlMs: deps.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS,
    oauthTtlMs: deps.oauthTtlMs ?? DEFAULT_OAUTH_TTL_MS,
    a2aTtlMs: deps.a2aTtlMs ?? DEFAULT_A2A_TTL_MS,
    resumeTokenKey: resumeTokenKey(deps.serverSecret),
    bus: below.log.bus,
    onJobsStarted: up.onJobsStarted,
    journalFor: below.log.journalFor,
    onWaitsClosed: up.onWaitsClosed,
    durableWaits: deps.durableWaits,
    clientToolOutput: (toolName) => clientToolOutput(deps.agents, toolName),
  });
  return { coordinator };
}

export type PauseRoom = ReturnType<typeof composePause>;

/** The OAuth legs of a consent pause (see `consent` in index.ts). */
export function consentLegs(coordinator: Coordinator, runs: ReturnType<typeof runService>) {
  return {
    open: async (identity: VerifiedIdentity, interactionId: string) => {
      const row = await coordinator.openConsent(identity, interactionId);
      return {
        interactionId: row.id,
        threadId: row.threadId,
        provider: row.detail?.provider ?? "",
        scopes: row.detail?.scopes ?? [],
        expiresAt: row.expiresAt,
      };
    },
    hold: (identity: VerifiedIdentity, interactionId: string, provider: string) =>
      coordinator.holdOpenConsent(identity, interactionId, provider),
    release: (interactionId: string) => coordinator.releaseConsent(interactionId),
    complete: (identity: Identity, interactionId: string, outcome: "connected" | "declined") =>
      runs.resolveInteractions(identity, [{ interactionId, status: outcome === "connected" ? "resolved" : "cancelled" }], "oauth_callback"),
  };
}
