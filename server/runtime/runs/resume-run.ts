/**
 * A run request that answers the thread's open interrupts (AG-UI `resume[]`, or a browser tool's
 * result): the waiting run goes on, here or on the instance that holds its wait, and this request
 * streams it.
 */
import { lastSeq } from "@/server/db/queries/runs";
import { findThread } from "@/server/db/queries/threads";
import { assertThreadAccess, ownsThread, verifiedOnly, type Identity } from "../access";
import { NotForwarded, routedIdentity } from "../cluster";
import { HarborError, NotFoundError, StaleCredentialError } from "../errors";
import { HeldElsewhere, type Coordinator, type ResolutionInput } from "../pause";
import { continueRun, type ContinuingTransport } from "./continue-run";
import { forward, resolveHere } from "./resolve-answers";
import type { RunStart, StartRunRequest } from "./run-requests";
import type { RunsContext, RunsDeps } from "./runs-context";

type ResolveOptions = Parameters<Coordinator["resolve"]>[2] & { via: "agui" };

/** What one try at resuming needs, the same on every try. */
interface Resuming {
  identity: Identity;
  threadId: string;
  answers: readonly ResolutionInput[];
  options: ResolveOptions;
  transport: ContinuingTransport;
}

/**
 * Continues the thread's waiting run with the answers in `request.resume`. Messages and state in
 * the request are not taken: the server's transcript is the record (a tool message a client
 * appended for the gated call is therefore not counted twice).
 */
export async function resumeRun(ctx: RunsContext, identity: Identity, request: StartRunRequest): Promise<RunStart> {
  const threadId = await threadToResume(ctx.deps, identity, request);
  const resuming: Resuming = {
    identity,
    threadId,
    answers: request.resume ?? [],
    options: {
      threadId,
      via: "agui",
      withTranscript: request.carriesTranscript ?? (request.messages.length > 0 || Object.keys(request.state ?? {}).length > 0),
    },
    transport: { transportRunId: request.transportRunId, requestId: request.requestId, threadId: request.clientThreadId },
  };
  const left = new Set<string>();
  for (;;) {
    try {
      return await resumeHere(ctx, resuming, left);
    } catch (error) {
      // Told to the caller, who looks the identity up and tries again: not a refusal of the run.
      if (StaleCredentialError.is(error)) throw error;
      if (error instanceof HeldElsewhere) {
        const elsewhere = await resumeElsewhere(ctx, resuming, error);
        // Its holder stopped without deciding it: decided here, as if it had never been forwarded.
        if ("givenBackBy" in elsewhere) left.add(elsewhere.givenBackBy);
        else return elsewhere;
        continue;
      }
      if (HarborError.is(error)) return { refused: error };
      throw error;
    }
  }
}

/**
 * The thread the answers are for, its access checked. Gates parked here on this thread say whose
 * it is without a read (a thread with a paused run stays), so their owner may be a remembered
 * identity: the claim is the first statement, and it checks the credential. Anyone else is read
 * first, so only a looked-up identity goes on.
 */
async function threadToResume(deps: Pick<RunsDeps, "coordinator" | "db">, identity: Identity, request: StartRunRequest): Promise<string> {
  const ids = (request.resume ?? []).map((r) => r.interactionId);
  const parkedHere = deps.coordinator.threadOfParkedGates(ids, request.threadId);
  if (!parkedHere || !ownsThread(parkedHere, identity)) verifiedOnly(identity);
  const thread = parkedHere ?? (await findThread(deps.db, request.threadId));
  if (!thread) throw new NotFoundError("Thread");
  assertThreadAccess(thread, identity);
  return thread.id;
}

/** Answers the waits here (taking over those of a holder that is gone), and the ready run goes on here. */
async function resumeHere(ctx: RunsContext, resuming: Resuming, left: ReadonlySet<string>): Promise<RunStart> {
  const { deps } = ctx;
  const { identity, threadId, answers } = resuming;
  const abandoned = await deps.coordinator.abandonUnanswerable(identity, answers, threadId);
  if (abandoned) return { abandoned: { runId: abandoned.runId, threadId } };
  const [next] = await resolveHere(deps, identity, answers, resuming.options, left);
  // Completeness made every open interrupt of the thread part of this resume: one run, now ready.
  if (!next) throw new Error(`a complete resume of thread ${threadId} left no run ready`);
  const events = deps.bus.follow(next.runId);
  ctx.inFlight.track(continueRun(ctx, next, resuming.transport));
  return { runId: next.runId, threadId, events };
}

/**
 * The owner continues the run; this instance streams it from the shared log, from where it
 * parked. `givenBackBy`: the holder stopped without deciding it.
 */
async function resumeElsewhere(ctx: RunsContext, resuming: Resuming, held: HeldElsewhere): Promise<RunStart | { givenBackBy: string }> {
  const { deps } = ctx;
  const { identity, threadId, answers, options, transport } = resuming;
  const events = deps.bus.follow(held.runId, await lastSeq(deps.db, held.runId));
  try {
    await forward(deps, held, { type: "resolve", identity: routedIdentity(identity), entries: [...answers], ...options, transport });
    return { runId: held.runId, threadId, events };
  } catch (forwarded) {
    await events.return?.();
    if (forwarded instanceof NotForwarded) return { givenBackBy: forwarded.target };
    if (HarborError.is(forwarded)) return { refused: forwarded };
    throw forwarded;
  }
}
