import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, interruptsOf, runError, runTurn, userMessage } from "../helpers/agui";
import { readSse, signIn, trpcMutation, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

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
    const [a, b, c, m] = await Promise.all(["alice@acme.test", "bob@acme.test", "carol@acme.test", "mallory@globex.test"].map((e) => signIn(server.url, e)));
    alice = { cookie: a! };
    bob = { cookie: b! };
    carol = { cookie: c! };
    mallory = { cookie: m! };
  });

  /** Starts alice's counting run over AG-UI without waiting for it; returns its Harbor run id. */
  async function startCounting(to: number) {
    const threadId = randomUUID();
    const client = AGUI_CLIENTS[0]!;
    const turn = runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(`count slowly to ${to}`)] });
    let runId: string | undefined;
    for (let i = 0; i < 100 && !runId; i++) {
      const runs = (await trpcQuery<RunRow[]>(server.url, carol, "runs.list", { status: "running" })).data ?? [];
      runId = runs.find((r) => r.threadId === threadId)?.runId;
      if (!runId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!runId) throw new Error("the counting run did not show up");
    return { threadId, runId, turn };
  }

  const steer = (auth: Auth, runId: string, instruction: unknown) => trpcMutation<{ accepted: boolean }>(server.url, auth, "runs.steer", { runId, instruction });

  it("pauses a live run for an operator: the user's open stream ends with the operator_pause interrupt; an admin resumes it", async () => {
    const { runId, threadId, turn } = await startCounting(4);
    expect((await steer(carol, runId, { type: "PAUSE" })).data).toEqual({ accepted: true });
    const paused = await turn;
    const [interrupt] = interruptsOf(paused.events);
    expect(interrupt).toMatchObject({ reason: "operator_pause", message: "Paused by an operator", metadata: { harbor: { pauseReason: "operator" } } });
    expect(interrupt?.responseSchema).toBeUndefined();
    expect((await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data).toMatchObject({ status: "paused", pauseReason: "operator" });
    const refused = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("still there?")], ends: "RUN_ERROR" });
    expect(runError(refused.events)).toMatchObject({ code: "PENDING_INTERACTION" });
    expect((await steer(alice, runId, { type: "RESUME" })).error?.data.code).toBe("FORBIDDEN");

    const following = readSse(await trpcSubscribe(server.url, alice, "runs.events", { runId }), (f) => f.data.includes('"run.completed"'));
    expect((await steer(carol, runId, { type: "RESUME" })).data).toEqual({ accepted: true });
    const frames = await following;
    expect(frames.some((f) => f.data.includes('"Done counting to 4."'))).toBe(true);
    const timeline = await trpcQuery<{ event: { type: string } }[]>(server.url, carol, "runs.timeline", { runId });
    expect(timeline.data?.map((e) => e.event.type)).toEqual(expect.arrayContaining(["steer.applied", "run.paused", "pause.resumed", "run.completed"]));
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
    await expect.poll(async () => (await trpcQuery<RunRow>(server.url, carol, "runs.get", { runId })).data?.status, { timeout: 10_000 }).toBe("cancelled");
  });
});
