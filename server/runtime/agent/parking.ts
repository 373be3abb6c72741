/**
 * What a run asks the pause for, and what it goes on with: the shapes the run loop and the
 * coordinator share, kept below both so that a run uses the pause and the pause knows no run loop.
 */
import { z } from "zod";
import type { InteractionDetail, InteractionKind, PendingCall, ResolverPolicy, TokenCount } from "@/server/domain";
import type { HandleRegistry } from "./tool-context";
import type { DeadlinePolicy, Resolution } from "./tools";

/** A wait the run asks the coordinator for (the RequestPause signal of planners and tools). */
export interface PauseRequest {
  id: string;
  kind: InteractionKind;
  policy: ResolverPolicy;
  message: string;
  toolCallId?: string;
  tool?: { name: string; args: Record<string, unknown> };
  /** What an answer must match, beyond the kind's own rules (a browser tool's output schema). */
  answer?: z.ZodType;
  /** The answer's JSON Schema as someone else wrote it (an MCP server's form), shown as is. */
  responseSchema?: Record<string, unknown>;
  /** What the reason needs shown: an OAuth consent URL, a remote agent's kind of question. */
  detail?: InteractionDetail;
  /** How long it waits before it expires, when its tool says (else the kind's default). */
  ttlMs?: number;
  /** How many approvers must approve (an `approvers` gate; 1 when absent). */
  quorum?: number;
  /** What the gate's deadline does (its tool's declaration). */
  deadline?: DeadlinePolicy;
}

/** The owner's answer to a remote agent's question. */
export const RemoteInputAnswer = z.strictObject({ text: z.string().trim().min(1, "an answer cannot be empty").max(2000) });
/** The credential a remote agent asked for: sent once to it, kept nowhere (like a private form's value). */
export const RemoteAuthAnswer = z.strictObject({
  credential: z.string().min(1, "a credential cannot be empty").max(4096).meta({ writeOnly: true, title: "Credential" }),
});

/** A tool call that has not run yet (or paused itself), as the checkpoint keeps it. */
export type { PendingCall } from "@/server/domain";

export interface Parking {
  requests: PauseRequest[];
  /** Calls still to run once the requests are answered, in order. */
  calls: PendingCall[];
  /** Live handles of paused calls, by tool call id: held in memory, never checkpointed. */
  handles: Map<string, HandleRegistry>;
  /** What the run spent on models since it started or last went on (see usageSince). */
  usage?: TokenCount;
}

/** What a resumed run continues with. */
export interface ResumeInput {
  calls: PendingCall[];
  resolutions: ReadonlyMap<string, Resolution>;
  handles?: ReadonlyMap<string, HandleRegistry>;
}
