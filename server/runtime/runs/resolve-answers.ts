/**
 * Answers to open interactions, wherever their wait is held: resolved here, forwarded to the
 * instance that holds it, or — its holder gone or stopping — taken over here. A run every answer
 * of which is in goes on here (see continue-run.ts).
 */
import type { InstanceState } from "@/server/db/queries/instances";
import type { Identity } from "../access";
import { NotForwarded, routedIdentity, type RoutedRequest } from "../cluster";
import { HarborError } from "../errors";
import { HeldElsewhere, type Coordinator, type ReadyRun, type ResolutionInput, type ResolveVia } from "../pause";
import { continueRun } from "./continue-run";
import type { RunsContext, RunsDeps } from "./runs-context";

export const HELD_BY_LOST_INSTANCE =
  "This request was held by a Harbor instance that is gone, so it can no longer be answered. Please ask again.";

/**
 * Resolves on this instance. A wait another instance holds throws `HeldElsewhere` while that
 * instance serves (the caller forwards). Once its holder stops, a wait made durable is taken over
 * here at once, and any other is still forwarded (its holder answers it until it exits). A gone
 * holder — or one in `left`: it gave a forwarded answer back — is reclaimed first, so its waits
 * made durable go on here and the others answer `INTERACTION_LOST`, as the rules say.
 */
export async function resolveHere(
  deps: Pick<RunsDeps, "coordinator" | "route">,
  identity: Identity,
  entries: readonly ResolutionInput[],
  options: Parameters<Coordinator["resolve"]>[2],
  left: ReadonlySet<string> = new Set(),
): Promise<ReadyRun[]> {
  const holders = new Map<string, InstanceState>();
  for (;;) {
    try {
      return await deps.coordinator.resolve(identity, entries, { ...options, takeOverFrom: new Set(holders.keys()) });
    } catch (error) {
      if (!(error instanceof HeldElsewhere)) throw error;
      const known = holders.get(error.instanceId);
      // Held there even so: a wait that lives in its holder's process only.
      if (known === "stopping") throw error;
      if (known === "gone") throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
      const gaveBack = left.has(error.instanceId);
      const holder = gaveBack || !deps.route ? "gone" : await deps.route.state(error.instanceId);
      if (holder === "serving") throw error;
      // One that gave an answer back is stopping, not dead: nothing to reclaim.
      if (holder === "gone" && !gaveBack) await deps.route?.reclaim();
      holders.set(error.instanceId, holder);
    }
  }
}

/** Sends a request to the instance that holds its wait; with nobody to send it to, the wait is lost. */
export async function forward(deps: Pick<RunsDeps, "route">, held: HeldElsewhere, request: RoutedRequest): Promise<{ runIds: string[] }> {
  if (!deps.route) throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
  return deps.route.forward(held.instanceId, request);
}

/** Resolves interactions outside a transport run (tRPC, console); ready runs go on in the background. */
export function resolveInteractions(
  ctx: RunsContext,
  identity: Identity,
  entries: readonly ResolutionInput[],
  via: Exclude<ResolveVia, "agui">,
): Promise<{ continued: string[] }> {
  return ctx.inFlight.admit(() => resolveAnywhere(ctx, identity, entries, via));
}

async function resolveAnywhere(
  ctx: RunsContext,
  identity: Identity,
  entries: readonly ResolutionInput[],
  via: Exclude<ResolveVia, "agui">,
): Promise<{ continued: string[] }> {
  const left = new Set<string>();
  for (;;) {
    try {
      const ready = await resolveHere(ctx.deps, identity, entries, { via }, left);
      for (const next of ready) ctx.inFlight.track(continueRun(ctx, next, {}));
      return { continued: ready.map((r) => r.runId) };
    } catch (error) {
      if (!(error instanceof HeldElsewhere)) throw error;
      try {
        const { runIds } = await forward(ctx.deps, error, {
          type: "resolve",
          identity: routedIdentity(identity),
          entries: [...entries],
          via,
          transport: {},
        });
        return { continued: runIds };
      } catch (forwarded) {
        // Its holder stopped without deciding it: decided here, as if it had never been forwarded.
        if (!(forwarded instanceof NotForwarded)) throw forwarded;
        left.add(forwarded.target);
      }
    }
  }
}

/** A request another instance forwarded here: decided as if it had arrived here. */
export function handleRouted(ctx: RunsContext, request: RoutedRequest): Promise<{ runIds: string[] }> {
  return ctx.inFlight.admit(() => decideRouted(ctx, request));
}

async function decideRouted(ctx: RunsContext, request: RoutedRequest): Promise<{ runIds: string[] }> {
  if (request.type === "steer") {
    await ctx.steering.steer(request.identity, request.runId, request.instruction, { routed: true });
    return { runIds: [] };
  }
  const { identity, entries, transport, ...options } = request;
  try {
    const ready = await ctx.deps.coordinator.resolve(identity, entries, options);
    for (const next of ready) ctx.inFlight.track(continueRun(ctx, next, transport));
    return { runIds: ready.map((r) => r.runId) };
  } catch (error) {
    // Moved on meanwhile (taken over, or held by yet another instance): never forwarded twice.
    if (error instanceof HeldElsewhere) throw new HarborError("INTERACTION_LOST", HELD_BY_LOST_INSTANCE);
    throw error;
  }
}
