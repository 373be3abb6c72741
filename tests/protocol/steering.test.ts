import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, cancelledEnding, interruptsOf, runError, runTurn, streamedText, userMessage } from "../helpers/agui";
import { readSse, runOnThread, signInAll, trpcMutation, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

interface RunRow {
  runId: string;
  threadId: string;
  status: string;
  pauseReason: string | null;
}

describe.each(inject("servers"))("steering over tRPC on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let carol: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    const [a, b, c, m] = await signInAll(server.url, ["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"]);
    alice = { cookie: a! };
    bob = { cookie: b! };
    carol = { cookie: c! };
    mallory = { cookie: m! };
  });

  /** Starts alice's counting run over AG-UI without waiting for it; returns its Harbor run id. */
  async function startCounting(to: number, suffix = "") {
    const threadId = randomUUID();
    const client = AGUI_CLIENTS[0]!;
    const turn = runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(`count slowly to ${to}${suffix}`)] });
    const runId = await runOnThread(server.url, carol, threadId, "running");
    return { threadId, runId, turn };
  }

  const steer = (auth: Auth, runId: string, instruction: unknown) =>
    trpcMutation<{ accepted: boolean }>(server.url, auth, "runs.steer", { runId, instruction });

  it("pauses a live run for an operator: the user's open stream ends with the operator_pause interrupt; an admin resumes it", async () => {
    const { runId, threadId, turn } = await startCounting(4);
    expect((await steer(carol, runId, { type: "PAUSE" })).data).toEqual({ accepted: true });
    const paused = await turn;
    const [interrupt] = interruptsOf(paused.events);
    expect(interrupt).toMatchObject({
      reason: "operator_pause",
      message: "Paused by an operator",
      metadata: { harbor: { pauseReason: "operator" } },
    });
    expect(interrupt?.responseSchema).toBeUndefined();
    expect((await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data).toMatchObject({
      status: "paused",
      pauseReason: "operator",
    });
    const refused = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("still there?")],
      ends: "RUN_ERROR",
    });
    expect(runError(refused.events)).toMatchObject({ code: "PENDING_INTERACTION" });
    expect((await steer(alice, runId, { type: "RESUME" })).error?.data.code).toBe("FORBIDDEN");

    const following = readSse(await trpcSubscribe(server.url, alice, "runs.events", { runId }), (f) => f.data.includes('"run.completed"'));
    expect((await steer(carol, runId, { type: "RESUME" })).data).toEqual({ accepted: true });
    const frames = await following;
    expect(frames.some((f) => f.data.includes('"Done counting to 4."'))).toBe(true);
    const timeline = await trpcQuery<{ event: { type: string } }[]>(server.url, carol, "runs.timeline", { runId });
    expect(timeline.data?.map((e) => e.event.type)).toEqual(
      expect.arrayContaining(["steer.applied", "run.paused", "pause.resumed", "run.completed"]),
    );
  });

  it("refuses an instruction outside the nine, and steering it does not allow, changing nothing", async () => {
    const { runId } = await startCounting(30);
    const unknown = await steer(carol, runId, { type: "EXPLODE" });
    expect(unknown.error?.data).toMatchObject({ code: "BAD_REQUEST" });
    expect((await steer(bob, runId, { type: "USER_MESSAGE", message: "hi" })).error?.data.code).toBe("FORBIDDEN");
    expect((await steer(mallory, runId, { type: "CANCEL" })).error?.data.code).toBe("NOT_FOUND");
    expect((await trpcQuery(server.url, mallory, "runs.get", { runId })).error?.data.code).toBe("NOT_FOUND");
    expect((await trpcQuery(server.url, alice, "runs.queue")).error?.data.code).toBe("FORBIDDEN");
    expect((await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data?.status).toBe("running");
    expect((await steer(alice, runId, { type: "CANCEL" })).data).toEqual({ accepted: true });
    await expect
      .poll(async () => (await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data?.status, { timeout: 10_000 })
      .toBe("cancelled");
  });

  const logged = async (runId: string) =>
    (
      (await trpcQuery<{ event: { type: string; instruction?: string; detail?: string } }[]>(server.url, carol, "runs.timeline", { runId }))
        .data ?? []
    ).map((e) => e.event);

  it("honors INJECT_CONTEXT, USER_MESSAGE, PRIORITIZE and REDIRECT on a live run, each visible in the run and its log", async () => {
    const { runId, turn } = await startCounting(40);
    for (const [auth, instruction] of [
      [carol, { type: "INJECT_CONTEXT", context: "the user is in a hurry" }],
      [alice, { type: "USER_MESSAGE", message: "faster please" }],
      [carol, { type: "PRIORITIZE", priority: 3 }],
      [carol, { type: "REDIRECT", goal: "count slowly to 3" }],
    ] as const) {
      expect((await steer(auth, runId, instruction)).data).toEqual({ accepted: true });
    }
    const finished = await turn;
    const said = streamedText(finished.events);
    expect(said).toContain("Noted: the user is in a hurry");
    expect(said).toContain("You said: “faster please”. Counting on.");
    expect(said).toContain("Done counting to 3.");
    expect(said).not.toContain("40");
    const applied = (await logged(runId)).filter((e) => e.type === "steer.applied").map((e) => e.instruction);
    expect(applied).toEqual(["INJECT_CONTEXT", "USER_MESSAGE", "PRIORITIZE", "REDIRECT"]);
    expect((await trpcQuery<{ priority: number; status: string }>(server.url, carol, "runs.get", { runId })).data).toMatchObject({
      priority: 3,
      status: "completed",
    });
  });

  it("decides a routed gate with APPROVE, and cancels a run alone (isolate) or with its helpers (cascade)", async () => {
    const gated = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: alice,
      threadId: randomUUID(),
      messages: [userMessage("transfer 12 EUR to STEER-1")],
    });
    const gateRun = (interruptsOf(gated.events)[0]!.metadata!.harbor as { runId: string }).runId;
    expect((await steer(alice, gateRun, { type: "APPROVE" })).error?.data.code).toBe("FORBIDDEN");
    expect((await steer(bob, gateRun, { type: "APPROVE", reason: "fine" })).data).toEqual({ accepted: true });
    await expect
      .poll(async () => (await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId: gateRun })).data?.status, { timeout: 10_000 })
      .toBe("completed");

    const children = async (parent: string) =>
      ((await trpcQuery<(RunRow & { parentRunId: string | null })[]>(server.url, carol, "runs.list")).data ?? []).filter(
        (r) => r.parentRunId === parent,
      );
    const status = async (runId: string) => (await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data?.status;
    for (const mode of ["isolate", "cascade"] as const) {
      const { runId, turn } = await startCounting(60, " with helpers");
      await expect.poll(async () => (await children(runId)).length, { timeout: 10_000 }).toBe(2);
      expect((await steer(carol, runId, { type: "CANCEL", mode })).data).toEqual({ accepted: true });
      await expect.poll(() => status(runId), { timeout: 10_000 }).toBe("cancelled");
      expect((await turn).events.at(-1)).toMatchObject(cancelledEnding(AGUI_CLIENTS[0]!));
      const helpers = await children(runId);
      if (mode === "cascade") {
        for (const helper of helpers) await expect.poll(() => status(helper.runId), { timeout: 10_000 }).toBe("cancelled");
      } else {
        for (const helper of helpers) expect(await status(helper.runId)).toBe("running");
        for (const helper of helpers) await steer(carol, helper.runId, { type: "CANCEL" });
      }
    }
  });
});
