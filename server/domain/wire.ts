/**
 * Names Harbor puts on the wire, in one place. The seed's own names (`harnest.*`) are kept byte for
 * byte; everything Harbor adds lives under `harbor`.
 */

/** CUSTOM event names. */
export const WIRE_EVENTS = {
  /** The seed's: a browser tool must run (`{ requestId, toolCallId, toolName }`). */
  clientTool: "harnest.client_tool",
  /** The seed's: durable work started (`{ responseId, toolCallId }`). */
  externalWait: "harnest.external_wait",
  pauseRequested: "pause.requested",
  pauseResumed: "pause.resumed",
  /** A run was cancelled while a client followed it (`{ runId, by: { role } }`). */
  runCancelled: "run.cancelled",
  /** A run waits for its turn on the thread or the scheduler (`{ runId, position }`). */
  runQueued: "run.queued",
  /** The instance executing a run stopped: it goes on from its checkpoint on another one (`{ runId }`). */
  runHandedOff: "run.handed_off",
  /** A gated call passed on a standing approval, without a pause (`{ grantId, toolCallId, toolName }`). */
  grantUsed: "grant.used",
  /** A tool call in flight reported progress (`{ toolCallId, progress, total?, message? }`). */
  toolProgress: "tool.progress",
  /** A model request failed and is asked again after a wait (`{ runId, attempt, maxAttempts, delayMs, reason }`). */
  modelRetrying: "model.retrying",
  /** A model token budget the run draws on is 80 % used or more (`{ scope, period, used, limit }`). */
  budgetWarning: "budget.warning",
} as const;

/** Metadata namespaces: the seed's `harnest` (only `privateInput`) and Harbor's own. */
export const SEED_METADATA_KEY = "harnest";
export const HARBOR_METADATA_KEY = "harbor";

/** `forwardedProps.harbor.multitask`: the request's double-texting policy. */
export const FORWARDED_PROPS_KEY = HARBOR_METADATA_KEY;
