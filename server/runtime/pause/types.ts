/**
 * The coordinator's vocabulary: what it holds for a parked run, what an answer is, and what it
 * needs from the rest of the runtime. Shared by its parts (park, resolve, sweep, consent).
 */
import type { Logger } from "pino";
import type { z } from "zod";
import type { Database } from "@/server/db";
import type { StoredContinuation } from "@/server/db/queries/runs";
import type { ConfigurablyDurableKind, EscalationGroup, InteractionKind, InteractionStatus, ResolverPolicy } from "@/server/domain";
import type { EventBus, RunJournal } from "../log";
import type { HandleRegistry, Resolution } from "../agent";

/** A parked invocation, as the serving process holds it: small, because thousands may wait. */
export interface ParkedRun {
  journal: RunJournal;
  waitingOn: string[];
  expiresAt: number;
  resolutions?: Map<string, Resolution>;
  handles?: Map<string, HandleRegistry>;
  /** Schemas answers must match, by interaction (a browser tool's output). */
  answers?: Map<string, z.ZodType>;
}

/** Lets go of what a parked run held open for its answers (an MCP session): it will not go on from here. */
export function letGo(run: ParkedRun | undefined): void {
  for (const registry of run?.handles?.values() ?? []) registry.dispose();
}

/** A run whose every interaction is answered: to be driven on (its continuation came with the claim). */
export interface ReadyRun {
  runId: string;
  parked: ParkedRun;
  continuation?: StoredContinuation;
}

/** One answer to one interaction: a `resume[]` entry, or an approve/reject from tRPC or the console. */
export interface ResolutionInput {
  interactionId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
  /** Optional proof of the pause's scope, checked against the caller's identity. */
  resumeToken?: string;
}

/**
 * Where an answer came from: recorded in the audit log; an OAuth pause takes only its callback's.
 * `link`: an approver's signed decision link (`decision-links.ts`), decided under the same rules.
 */
export type ResolveVia = "agui" | "trpc" | "console" | "oauth_callback" | "link";

/** How `resolve` is asked to answer. */
export interface ResolveOptions {
  /** An AG-UI resume: the entries must answer every open interaction of this thread. */
  threadId?: string;
  via: ResolveVia;
  /** The resume also carries messages or state (refused for a private form). */
  withTranscript?: boolean;
  /**
   * Instances whose waits made durable are taken over here — they stopped or are gone — rather
   * than answered by their holder.
   */
  takeOverFrom?: ReadonlySet<string>;
}

export interface InteractionChange {
  tenantId: string;
  interactionId: string;
  runId: string;
  ownerId: string;
  policy: ResolverPolicy;
  status: InteractionStatus;
  /** The group the gate was escalated to (it may decide it too). */
  escalatedTo?: EscalationGroup;
}

/** Thrown by `resolve` when a live process-held wait belongs to another instance: the answer goes there. */
export class HeldElsewhere extends Error {
  constructor(
    readonly instanceId: string,
    readonly runId: string,
  ) {
    super(`held by instance ${instanceId}`);
  }
}

export interface CoordinatorDeps {
  db: Database;
  log: Logger;
  instanceId: string;
  approvalTtlMs: number;
  /** How long an OAuth consent may take. */
  oauthTtlMs: number;
  /** How long a remote agent's question waits for its answer. */
  a2aTtlMs: number;
  resumeTokenKey: Uint8Array;
  bus: EventBus;
  /** A pause stored jobs (external work): the runner should look for them now. */
  onJobsStarted?: () => void;
  /** A journal continuing a run's log from its last stored event (taking over a durable pause). */
  journalFor(runId: string): Promise<RunJournal>;
  /** Waits closed unanswered (cancelled, expired, lost): their runs' remote work must stop too. */
  onWaitsClosed?(closed: readonly { runId: string; kind: InteractionKind }[]): void;
  /** Process-held waits made durable (`HARBOR_DURABLE_WAITS`). */
  durableWaits?: readonly ConfigurablyDurableKind[];
  /** The output schema of a browser tool, to check an answer to a wait this process did not park. */
  clientToolOutput?(toolName: string): z.ZodType | undefined;
}
