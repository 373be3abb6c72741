/**
 * What the run loop needs from whoever drives it, and what it says back. Kept apart from the loop
 * so the loop's pieces (announcing, running and recording calls) share them without importing it.
 */
import type { GrantUse, OutboxInsert } from "@/server/db/queries/run-writes";
import type { TokenCount } from "@/server/domain";
import type { CredentialBroker, SecretKeeper } from "../access";
import type { StandingApproval } from "../policies";
import type { RunEvent } from "../log";
import type { Parking, PauseRequest, RunState, ToolDefinition, TranscriptMessage } from "../agent";

export interface RunLoopDeps {
  /**
   * Records events (and the transcript message they say, if any) in the run's log, then
   * publishes them, spaced by `paceMs`. `defer` lets them ride with the next write instead.
   */
  append(
    events: readonly RunEvent[],
    options?: {
      paceMs?: number;
      message?: TranscriptMessage;
      defer?: boolean;
      outbox?: readonly OutboxInsert[];
      /** A standing approval the call whose result this is passed on: counted and audited with it. */
      grantUse?: GrantUse;
    },
  ): Promise<unknown>;
  /**
   * Publishes a model's streamed text at once and stores it soon after (the one exception to
   * "stored, then published"); answers a promise to wait for when the run is too far ahead of its
   * writes. Anything appended afterwards is stored after it.
   */
  stream(events: readonly RunEvent[]): Promise<void> | undefined;
  /** Stores (and publishes) what was deferred: before waiting on anything that may take a while. */
  flush?(): Promise<void>;
  /**
   * Throws when this process may no longer act for the run (another instance reclaimed it while it
   * stalled): checked before a tool acts outside the database and before a standing approval is used.
   */
  fence?(): Promise<void>;
  newId(): string;
  /** Pause between streamed chunks of text. */
  streamChunkMs: number;
  /** A model's streamed text goes out at most this often, in ms (default `TEXT_FRAME_MS`). */
  textFrameMs?: number;
  /**
   * Model token budgets: `check` before each model request (throws BUDGET_EXCEEDED, or answers the
   * warnings to log), `record` with what the request reported after it.
   */
  budget?: {
    check(state: RunState): Promise<RunEvent[]>;
    record(state: RunState, usage: TokenCount | undefined): Promise<void>;
  };
  /** Upper bound on planner steps, so a planner bug cannot spin forever. */
  maxSteps: number;
  /**
   * A safe point (before each planner step and each tool): applies steering that arrived meanwhile.
   * Returns the state to go on with, or says to stop (cancelled), to park (an operator's pause), or
   * — before a step only — to hand the run back (its instance is stopping).
   * Before a tool only a cancel is honored: a pause there could lose answers held in memory, and a
   * message there would split a tool call from its result.
   */
  safePoint?(state: RunState, where: "step" | "tool"): Promise<SafePoint>;
  /** Starts child runs (one per request); returns their run ids. */
  spawn?(state: RunState, requests: readonly string[]): Promise<string[]>;
  /** OAuth credentials for tools that declare `auth`. */
  credentials?: CredentialBroker;
  /** Where a private form's tool keeps a secret for the owner (sealed); absent, `keepSecret` fails the call. */
  keepSecret?: SecretKeeper;
  /** Whether a grant that let a call through is still live (asked when the run parked in between). */
  grantIsLive?(grantId: string): Promise<boolean>;
  /**
   * The standing approval covering a gated call, used — or undefined, and the call's gate pauses.
   * Asked only for calls whose gate could grant one (see grants.ts).
   */
  standingApproval?(
    state: RunState,
    definition: ToolDefinition,
    call: { toolCallId: string; args: Record<string, unknown> },
  ): Promise<StandingApproval | undefined>;
  /** Aborts when the run is cancelled, so a model's answer in flight stops at once. */
  signal?: AbortSignal;
  /**
   * Tool calls of earlier runs whose requests closed unanswered (expired, lost): left out of what
   * the planner sees, so it plans from the user's words again instead of from a dead request.
   */
  closedCalls?: ReadonlySet<string>;
}

export type SafePoint =
  | { type: "continue"; state: RunState }
  | { type: "cancel"; state: RunState }
  | { type: "pause"; state: RunState; request: PauseRequest }
  /** Between two steps the state is whole: the run can go on from it on another instance. */
  | { type: "hand_back"; state: RunState };

export type LoopResult =
  | { type: "finished"; state: RunState }
  | { type: "paused"; state: RunState; parking: Parking }
  /** Stopped between two steps for another instance to go on from `state` (nothing is pending). */
  | { type: "handed_back"; state: RunState };
