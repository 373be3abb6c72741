/**
 * A stretch of a run on this instance, traced when tracing is on (see server/telemetry/tracing.ts):
 * the first stretch stores its trace context with the run; every later one, on whichever instance
 * continues the run, joins that trace. Off, it costs nothing: no span, no statement.
 */
import type { Database } from "@/server/db";
import { findTraceParent, saveTraceParent } from "@/server/db/queries/traces";
import { endSegment, runSegmentSpan, tracingEnabled } from "@/server/telemetry";
import type { RunState } from "../agent";

export async function tracedStretch<T extends string>(
  deps: { db: Database },
  run: RunState,
  resumed: boolean,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  const parent = await findTraceParent(deps.db, run.runId);
  const { runId, threadId, agentId, tenantId } = run;
  return runSegmentSpan({ runId, threadId, agentId, tenantId, resumed, parent }, async (traceparent) => {
    if (!parent && traceparent) await saveTraceParent(deps.db, runId, traceparent);
    const outcome = await work();
    endSegment(outcome);
    return outcome;
  });
}
