/**
 * The statements of a graceful stop's handoff: the instance row says it is stopping and its queued
 * runs leave it, a run handed back keeps its checkpoint and steering for whoever takes it, and
 * forwarded requests and job leases it still holds go back. Older rows (no `handoff` in a queued
 * run's checkpoint) read as before.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { RunEvent } from "@/server/domain";
import { handOffInstance, instanceState, registerInstance, unregisterInstance } from "@/server/db/queries/instances";
import { claimDueJobs, releaseLeases } from "@/server/db/queries/jobs";
import { appendRunEvents, beginRun } from "@/server/db/queries/run-writes";
import { findRun, holdSteering, releaseQueuedRun, takeNextQueuedRun, takeUnheldQueuedRun } from "@/server/db/queries/runs";
import { returnUntakenRoutedRequests, storeRoutedRequest, takeRoutedReply, takeRoutedRequest } from "@/server/db/queries/routing";
import { testBackends, useSeededDatabase } from "../../helpers/backends";

const started = (runId: string): { seq: number; type: string; data: RunEvent }[] => [
  { seq: 1, type: "run.started", data: { type: "run.started", runId, threadId: runId, agentId: "concierge" } },
];

describe.each(testBackends())("a stop's handoff on $name", (backend) => {
  const h = useSeededDatabase(backend);

  /** A run of its own thread on `instance`, with `status`. */
  async function runOn(runId: string, instance: string, status: "queued" | "running", checkpoint?: Record<string, unknown>) {
    await beginRun(h.db, {
      thread: { id: runId, tenantId: "tenant-acme", ownerId: "user-alice", title: runId },
      messages: [{ id: `${runId}-m`, role: "user", content: "hello" }],
      run: { id: runId, agentId: "concierge", transportRunId: runId, instanceId: instance },
      events: started(runId),
    });
    await h.db.execute(
      sql`update runs set status = ${status}, checkpoint = coalesce(${checkpoint ? JSON.stringify(checkpoint) : null}::jsonb, checkpoint) where id = ${runId}`,
    );
  }

  /** Takes from the cluster's queue until `runId` comes (the oldest goes first: earlier tests leave queued runs). */
  async function takeUntil(runId: string, taker: string) {
    for (;;) {
      const next = await takeNextQueuedRun(h.db, taker, { runIds: [], threadIds: [] }, 100);
      if (!next || next.runId === runId) return next;
    }
  }

  it("says the instance is stopping, and hands its queued runs — only those — to the cluster's queue", async () => {
    await registerInstance(h.db, "i-stop");
    await registerInstance(h.db, "i-other");
    await runOn("h-queued", "i-stop", "queued");
    await runOn("h-running", "i-stop", "running");
    await runOn("h-others", "i-other", "queued");
    expect(await instanceState(h.db, "i-stop", 10_000)).toBe("serving");

    expect(await handOffInstance(h.db, "i-stop", true)).toEqual({ queued: 1 });
    expect(await instanceState(h.db, "i-stop", 10_000)).toBe("stopping");
    expect(await findRun(h.db, "h-queued")).toMatchObject({ status: "queued", instanceId: null });
    expect(await findRun(h.db, "h-running")).toMatchObject({ status: "running", instanceId: "i-stop" });
    expect(await findRun(h.db, "h-others")).toMatchObject({ status: "queued", instanceId: "i-other" });
    expect(await instanceState(h.db, "i-other", 10_000)).toBe("serving");

    await unregisterInstance(h.db, "i-stop");
    expect(await instanceState(h.db, "i-stop", 10_000)).toBe("gone");
  });

  it("alone, only says it is stopping: its queued runs stay its own (they end with it)", async () => {
    await registerInstance(h.db, "i-alone");
    await runOn("h-alone", "i-alone", "queued");
    expect(await handOffInstance(h.db, "i-alone", false)).toEqual({ queued: 0 });
    expect(await instanceState(h.db, "i-alone", 10_000)).toBe("stopping");
    expect(await findRun(h.db, "h-alone")).toMatchObject({ status: "queued", instanceId: "i-alone" });
  });

  it("hands a run back in one write: queued, no instance, its checkpoint marked; taken, it says so", async () => {
    await runOn("h-back", "i-back", "running");
    await appendRunEvents(h.db, [
      {
        runId: "h-back",
        events: [{ seq: 2, type: "run.handed_off", data: { type: "run.handed_off", from: "i-back" } }],
        alongside: { run: { status: "queued", leave: true, checkpoint: { version: 1, step: 4, calls: [], handoff: { from: "i-back" } } } },
      },
    ]);
    const back = await findRun(h.db, "h-back");
    expect(back).toMatchObject({ status: "queued", instanceId: null });
    expect(back?.readCheckpoint()).toMatchObject({ step: 4, handoff: { from: "i-back" } });
    expect(await takeUntil("h-back", "i-taker")).toMatchObject({ runId: "h-back", handedOff: true, heldInput: false });
    expect(await findRun(h.db, "h-back")).toMatchObject({ status: "running", instanceId: "i-taker" });
  });

  it("reads a queued run of an older row (no handoff) as a fresh one", async () => {
    await runOn("h-old", "i-gone-old", "queued", { step: 0, calls: [], pendingInput: [{ id: "p", role: "user", content: "hi" }] });
    expect(await takeUntil("h-old", "i-taker")).toMatchObject({ runId: "h-old", handedOff: false, heldInput: true });
  });

  it("keeps steering with a handed-back run, not with one merely queued", async () => {
    const instruction = {
      instruction: { type: "INJECT_CONTEXT" as const, context: "note" },
      actorId: "user-carol",
      actorRole: "operator" as const,
    };
    await runOn("h-steer-back", "i-x", "queued", { step: 2, calls: [], handoff: { from: "i-x" } });
    await runOn("h-steer-queued", "i-x", "queued");
    expect(await holdSteering(h.db, "h-steer-back", instruction, 20)).toEqual({ held: true });
    expect(await holdSteering(h.db, "h-steer-queued", instruction, 20)).toEqual({ held: false });
    expect((await findRun(h.db, "h-steer-back"))?.readCheckpoint()?.steering).toEqual([instruction]);
  });

  it("releases a queued run only while it is its own, and takes an unheld one once", async () => {
    await runOn("h-cas", "i-cas", "queued");
    expect(await releaseQueuedRun(h.db, "h-cas", "i-someone-else")).toBe(false);
    expect(await takeUnheldQueuedRun(h.db, "h-cas", "i-taker")).toBe(false);
    expect(await releaseQueuedRun(h.db, "h-cas", "i-cas")).toBe(true);
    expect(await releaseQueuedRun(h.db, "h-cas", "i-cas")).toBe(false);
    expect(await takeUnheldQueuedRun(h.db, "h-cas", "i-taker")).toBe(true);
    expect(await takeUnheldQueuedRun(h.db, "h-cas", "i-other-taker")).toBe(false);
    expect(await findRun(h.db, "h-cas")).toMatchObject({ status: "running", instanceId: "i-taker" });
  });

  it("gives forwarded requests it has not taken back to their senders, and leaves those it took", async () => {
    await storeRoutedRequest(h.db, { id: "rr-untaken", targetInstance: "i-closing", fromInstance: "i-sender", sealed: "x" });
    await storeRoutedRequest(h.db, { id: "rr-taken", targetInstance: "i-closing", fromInstance: "i-sender", sealed: "y" });
    await storeRoutedRequest(h.db, { id: "rr-elsewhere", targetInstance: "i-open", fromInstance: "i-sender", sealed: "z" });
    expect(await takeRoutedRequest(h.db, "rr-taken", "i-closing")).toBeDefined();

    expect(await returnUntakenRoutedRequests(h.db, "i-closing", { returned: true })).toBe(1);
    expect(await takeRoutedReply(h.db, "rr-untaken")).toEqual({ returned: true });
    expect(await takeRoutedReply(h.db, "rr-taken")).toBeUndefined();
    expect(await takeRoutedRequest(h.db, "rr-untaken", "i-closing")).toBeUndefined();
    expect(await takeRoutedRequest(h.db, "rr-elsewhere", "i-open")).toBeDefined();
  });

  it("lets go of the jobs it works on: another instance takes them at once", async () => {
    await runOn("h-job", "i-worker", "running");
    await appendRunEvents(h.db, [
      {
        runId: "h-job",
        events: [{ seq: 2, type: "external_wait.started", data: { type: "external_wait.started", responseId: "job-1", toolCallId: "c" } }],
        alongside: {
          jobs: [
            {
              id: "job-1",
              tenantId: "tenant-acme",
              ownerId: "user-alice",
              threadId: "h-job",
              agentId: "concierge",
              toolCallId: "c",
              toolName: "deep_research",
              args: {},
            },
          ],
        },
      },
    ]);
    expect((await claimDueJobs(h.db, "i-worker", 60_000, 10)).map((j) => j.id)).toEqual(["job-1"]);
    expect(await claimDueJobs(h.db, "i-next", 60_000, 10)).toEqual([]);
    expect(await releaseLeases(h.db, "i-worker")).toBe(1);
    expect((await claimDueJobs(h.db, "i-next", 60_000, 10)).map((j) => j.id)).toEqual(["job-1"]);
  });
});
