/**
 * The approval gates this process parked, as it wrote them: an answer to one of them is checked
 * against this copy instead of a read, so answering costs only the claim. Only rows nobody else
 * can change while they wait are kept — one approver, no escalation — and the claim (a
 * compare-and-set on `status = 'pending'`) still decides: a gate answered, cancelled or expired
 * elsewhere loses the claim, and the caller then reads it to say why.
 */
import type { InteractionRow } from "@/server/db/queries/interactions";
import type { InteractionInsert } from "@/server/db/queries/run-writes";

export class ParkedGates {
  private readonly rows = new Map<string, InteractionRow>();

  /** Keeps the gates a park is about to write that qualify. */
  remember(runId: string, written: readonly InteractionInsert[], at = new Date()): void {
    for (const w of written) {
      if (w.kind !== "approval" || (w.quorum ?? 1) > 1 || w.escalateAt) continue;
      this.rows.set(w.id, asWritten(runId, w, at));
    }
  }

  forget(ids: Iterable<string>): void {
    for (const id of ids) this.rows.delete(id);
  }

  /**
   * The rows to answer, when this process can vouch for all of them: the named gates, and with
   * `openOfRun` (an AG-UI resume must answer every open wait of the thread) the run's other open
   * waits. Undefined when any is unknown here: the caller reads them.
   */
  vouchFor(ids: readonly string[], openOfRun?: (runId: string) => readonly string[] | undefined): InteractionRow[] | undefined {
    const now = Date.now();
    // Past its expiry a gate may have been closed elsewhere: the caller reads what it became.
    const named = ids.map((id) => this.rows.get(id)).map((row) => (row && row.expiresAt.getTime() > now ? row : undefined));
    if (named.length === 0 || named.some((row) => !row)) return undefined;
    const runIds = new Set(named.map((row) => row!.runId));
    if (!openOfRun) return named as InteractionRow[];
    if (runIds.size !== 1) return undefined;
    const open = openOfRun([...runIds][0]!);
    if (!open) return undefined;
    const all = open.map((id) => this.rows.get(id));
    if (all.some((row) => !row)) return undefined;
    return [...new Map([...named, ...all].map((row) => [row!.id, row!])).values()];
  }

  get size(): number {
    return this.rows.size;
  }
}

function asWritten(runId: string, w: InteractionInsert, at: Date): InteractionRow {
  return {
    id: w.id,
    tenantId: w.tenantId,
    runId,
    threadId: w.threadId,
    ownerId: w.ownerId,
    kind: w.kind,
    pauseReason: w.pauseReason,
    policy: w.policy,
    toolCallId: w.toolCallId ?? null,
    toolName: w.toolName ?? null,
    toolArgs: w.toolArgs ?? null,
    message: w.message,
    responseSchema: w.responseSchema ?? null,
    detail: w.detail ?? null,
    status: "pending",
    instanceId: w.instanceId,
    expiresAt: w.expiresAt,
    decision: null,
    resolvedBy: null,
    resolvedAt: null,
    quorum: w.quorum ?? 1,
    votes: [],
    remindAt: w.remindAt ?? null,
    remindedAt: null,
    escalateAt: null,
    escalateTo: null,
    escalatedAt: null,
    onExpiry: w.onExpiry ?? "reject",
    createdAt: at,
  };
}
