/**
 * The approval gates this process parked, as it wrote them: an answer to one of them is checked
 * against this copy instead of a read, so answering costs only the claim. Only rows nobody else
 * can change while they wait are kept — one approver, no escalation — and the claim (a
 * compare-and-set on `status = 'pending'`) still decides: a gate answered, cancelled or expired
 * elsewhere loses the claim, and the caller then reads it to say why.
 */
import type { InteractionRow } from "@/server/db/queries/interactions";
import type { InteractionInsert } from "@/server/db/queries/run-writes";
import type { InteractionDetail } from "@/server/domain";

/**
 * What answering a gate reads of it, and no more: thousands may wait at once, so the copy keeps
 * neither its message nor its arguments, and its times as numbers.
 */
interface GateCopy {
  tenantId: string;
  runId: string;
  threadId: string;
  ownerId: string;
  policy: InteractionRow["policy"];
  pauseReason: InteractionRow["pauseReason"];
  toolCallId: string | null;
  toolName: string | null;
  /** The standing approval the gate offers (see grants.ts), when it offers one. */
  grant: NonNullable<InteractionDetail["grant"]> | undefined;
  instanceId: string;
  expiresAt: number;
  remindAt: number | null;
  onExpiry: InteractionRow["onExpiry"];
  createdAt: number;
}

export class ParkedGates {
  private readonly rows = new Map<string, GateCopy>();

  /** Keeps the gates a park is about to write that qualify. */
  remember(runId: string, written: readonly InteractionInsert[], at = new Date()): void {
    for (const w of written) {
      if (w.kind !== "approval" || (w.quorum ?? 1) > 1 || w.escalateAt) continue;
      this.rows.set(w.id, {
        tenantId: w.tenantId,
        runId,
        threadId: w.threadId,
        ownerId: w.ownerId,
        policy: w.policy,
        pauseReason: w.pauseReason,
        toolCallId: w.toolCallId ?? null,
        toolName: w.toolName ?? null,
        grant: w.detail?.grant,
        instanceId: w.instanceId,
        expiresAt: w.expiresAt.getTime(),
        remindAt: w.remindAt?.getTime() ?? null,
        onExpiry: w.onExpiry ?? "reject",
        createdAt: at.getTime(),
      });
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
    const named = ids.map((id) => this.rows.get(id)).map((copy) => (copy && copy.expiresAt > now ? copy : undefined));
    if (named.length === 0 || named.some((copy) => !copy)) return undefined;
    const rowsOf = (which: readonly string[]) => which.map((id) => asRow(id, this.rows.get(id)!));
    const runIds = new Set(named.map((copy) => copy!.runId));
    if (!openOfRun) return rowsOf(ids);
    if (runIds.size !== 1) return undefined;
    const open = openOfRun([...runIds][0]!);
    if (!open || open.some((id) => !this.rows.has(id))) return undefined;
    return rowsOf([...new Set([...ids, ...open])]);
  }

  /**
   * Whose thread the named gates wait on, read from their copies: undefined unless this process
   * can vouch for every one and all wait on `threadId`.
   */
  threadOf(ids: readonly string[], threadId: string): { id: string; tenantId: string; ownerId: string } | undefined {
    const now = Date.now();
    const copies = ids.map((id) => this.rows.get(id));
    const first = copies[0];
    if (!first || copies.some((c) => !c || c.expiresAt <= now || c.threadId !== threadId)) return undefined;
    return { id: threadId, tenantId: first.tenantId, ownerId: first.ownerId };
  }

  get size(): number {
    return this.rows.size;
  }
}

/** The gate's row as the park wrote it: pending, no votes, nothing escalated. */
function asRow(id: string, copy: GateCopy): InteractionRow {
  return {
    id,
    tenantId: copy.tenantId,
    runId: copy.runId,
    threadId: copy.threadId,
    ownerId: copy.ownerId,
    kind: "approval",
    pauseReason: copy.pauseReason,
    policy: copy.policy,
    toolCallId: copy.toolCallId,
    toolName: copy.toolName,
    // Not read to answer a gate (the inbox and the log read the stored row).
    toolArgs: null,
    message: "",
    responseSchema: null,
    detail: copy.grant ? { grant: copy.grant } : null,
    status: "pending",
    instanceId: copy.instanceId,
    expiresAt: new Date(copy.expiresAt),
    decision: null,
    resolvedBy: null,
    resolvedAt: null,
    quorum: 1,
    votes: [],
    remindAt: copy.remindAt === null ? null : new Date(copy.remindAt),
    remindedAt: null,
    escalateAt: null,
    escalateTo: null,
    escalatedAt: null,
    onExpiry: copy.onExpiry,
    createdAt: new Date(copy.createdAt),
  };
}
