/**
 * What a parked run's checkpoint holds besides its transcript (which lives in the thread's
 * messages): plain JSON, versioned so a newer Harbor can still read an older checkpoint.
 */
import type { MailboxInstruction } from "./steering";
import type { CancelledBy } from "./vocabulary";

export const CHECKPOINT_VERSION = 1;

/** Tokens a model was charged for: what it read and what it wrote. */
export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
}

/**
 * A gate's binding: a digest of the call's arguments, its tool's version and its agent's version.
 * `tool`: the agent's declared version. `agent`: a digest of every tool of the agent, as pending
 * calls written before 0.2.0 bound it (their stored binding was the bare digest).
 */
export interface GateBinding {
  scheme: "tool" | "agent";
  digest: string;
}

/** A tool call the run had announced when it parked, with whatever it waits on. */
export interface PendingCall {
  toolCallId: string;
  name: string;
  args: Record<string, unknown>;
  /** The approval gate in front of the call, and its decision once made. */
  gate?: {
    id: string;
    /** What the approver was shown, as a digest (see runtime/binding.ts). */
    binding?: GateBinding;
    decision?: {
      approved: boolean;
      by: string;
      reason?: string;
      status: "resolved" | "rejected" | "cancelled";
      /** Approved beforehand by this standing approval (no pause). */
      grantId?: string;
    };
  };
  /** The call paused itself: the interaction it waits on, its `ctx.state` and its handle keys. */
  paused?: { on: string; state: Record<string, unknown>; handleKeys: string[] };
  /** A browser tool's call: the request its output answers. */
  browser?: { requestId: string };
  /** A private form's call: the request its value answers (the value itself is never checkpointed). */
  privateInput?: { requestId: string };
}

/** A steering instruction that reached a parked run: applied at its first safe point after it resumes. */
export interface StoredInstruction {
  instruction: MailboxInstruction;
  actorId: string;
  /** In what capacity the actor steers: the run's owner, or an operator (an admin, or Harbor itself). */
  actorRole: CancelledBy;
}

export interface Checkpoint {
  /** Absent in checkpoints written before versioning: read as version 1. */
  version?: typeof CHECKPOINT_VERSION;
  step: number;
  calls: PendingCall[];
  /** Answers to the planner's own pauses, by interaction id. */
  answers?: Record<string, { status: string; payload?: Record<string, unknown> }>;
  /** Set once a gate was rejected or cancelled: the run then ends with that status. */
  outcome?: "rejected" | "cancelled";
  /** The run's goal when an operator redirected it. */
  goal?: string;
  /** Context injected into the running loop, oldest first. */
  context?: string[];
  /** Child runs this run started. */
  children?: string[];
  /** Tokens a model spent on the run before it parked. */
  usage?: TokenCount;
  /**
   * The run's last log seq when something else wrote to its log while it was parked (a deadline's
   * reminder or escalation): the journal that continues it numbers its events after it.
   */
  logSeq?: number;
  /** Instructions that arrived while the run was parked, oldest first. */
  steering?: StoredInstruction[];
  /**
   * A queued run's own messages, held back while an earlier run of the thread executes: they join
   * the thread when the run's turn comes, so each run's reply follows its own question.
   */
  pendingInput?: { id: string; role: "user"; content: string }[];
  /**
   * The run was executing on an instance that stopped, and was handed back between two steps: it
   * waits in the cluster's queue and goes on from this checkpoint wherever it is taken (absent in
   * older rows: a queued run starts from the beginning, as it always did).
   */
  handoff?: { from: string };
}

/** An empty checkpoint: a run that parked before its first step. */
export const EMPTY_CHECKPOINT: Checkpoint = { version: CHECKPOINT_VERSION, step: 0, calls: [] };
