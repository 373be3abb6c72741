/**
 * `threads.edit` and `threads.regenerate` over plain JSON, as curl speaks them, on every server:
 * what each refusal answers (status, tRPC code, Harbor code), that a refusal changes nothing, and
 * that an accepted edit's run is followed on `runs.events` like any run.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { postRun, runInput, userMessage } from "../helpers/agui";
import { readSse, runOnThread, signInCast, trpcMutation, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";

interface Message {
  id: string;
  role: string;
  content: string;
}
interface Rewound {
  runId: string;
  threadId: string;
  messageId?: string;
  superseded: string[];
}

const RUN_ENDED = (data: string) => /"run\.(completed|failed)"/.test(data);

describe.each(inject("servers"))("threads.edit and threads.regenerate on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, mallory } = await signInCast(server.url));
  });

  /** One AG-UI turn on the thread, read to its end. */
  const turn = async (threadId: string, text: string) => {
    const res = await postRun(server.url, alice, runInput(threadId, [userMessage(text)]));
    expect(res.status).toBe(200);
    await readSse(res, (f) => f.data.includes('"RUN_FINISHED"') || f.data.includes('"RUN_ERROR"'));
  };
  const messagesOf = async (threadId: string) =>
    (await trpcQuery<{ messages: Message[] }>(server.url, alice, "threads.get", { threadId })).data!.messages;
  const edit = (auth: Auth | null, input: unknown) => trpcMutation<Rewound>(server.url, auth, "threads.edit", input);
  const regenerate = (auth: Auth | null, input: unknown) => trpcMutation<Rewound>(server.url, auth, "threads.regenerate", input);

  it("answers each refusal with its status and code, and changes nothing", async () => {
    const threadId = randomUUID();
    await turn(threadId, "hello");
    const [question, reply] = await messagesOf(threadId);
    const ok = { threadId, messageId: question!.id, text: "hello again" };

    expect((await edit(null, ok)).status).toBe(401);
    // (A NUL is refused before tRPC reads the body, with the same 400.)
    for (const bad of [
      { ...ok, text: "   " },
      { ...ok, text: "a\u0000b" },
      { ...ok, text: "x".repeat(32_001) },
      { ...ok, ownerId: "user-bob" },
      { threadId, text: "no message named" },
    ]) {
      expect((await edit(alice, bad)).status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
    expect((await edit(alice, { ...ok, text: "" })).error?.data.code).toBe("BAD_REQUEST");
    const notAReply = await regenerate(alice, { threadId, messageId: question!.id });
    expect([notAReply.status, notAReply.error?.data.harborCode]).toEqual([400, "INVALID_INPUT"]);
    const otherTenant = await edit(mallory, ok);
    expect([otherTenant.status, otherTenant.error?.data.harborCode]).toEqual([404, "NOT_FOUND"]);
    expect((await regenerate(mallory, { threadId, messageId: reply!.id })).status).toBe(404);
    const otherUser = await edit(bob, ok);
    expect([otherUser.status, otherUser.error?.data.harborCode]).toEqual([403, "FORBIDDEN"]);
    expect((await edit(alice, { ...ok, messageId: "no-such-message" })).status).toBe(404);
    expect((await edit(alice, { ...ok, threadId: randomUUID() })).status).toBe(404);

    // While a run works on the thread: 409, RUN_IN_PROGRESS, naming the run.
    const counting = await postRun(server.url, alice, runInput(threadId, [userMessage("count slowly to 60")]));
    const runId = await runOnThread(server.url, alice, threadId, "running");
    const busy = await edit(alice, ok);
    expect([busy.status, busy.error?.data.code, busy.error?.data.harborCode]).toEqual([409, "CONFLICT", "RUN_IN_PROGRESS"]);
    expect((await regenerate(alice, { threadId, messageId: reply!.id })).error?.data.harborCode).toBe("RUN_IN_PROGRESS");
    expect((await trpcMutation(server.url, alice, "runs.steer", { runId, instruction: { type: "CANCEL" } })).status).toBe(200);
    await readSse(counting, (f) => f.data.includes('"RUN_FINISHED"'));
    const after = await messagesOf(threadId);
    expect(after.slice(0, 2)).toEqual([question, reply]);
  });

  it("edits: the new run is followed on runs.events; the old turn is gone; the same request again is 404", async () => {
    const threadId = randomUUID();
    await turn(threadId, "hello");
    const before = await messagesOf(threadId);
    const answer = await edit(alice, { threadId, messageId: before[0]!.id, text: "count slowly to 2" });
    expect(answer.status).toBe(200);
    expect(answer.data).toMatchObject({ threadId, superseded: before.map((m) => m.id), messageId: expect.any(String) });
    const frames = await readSse(await trpcSubscribe(server.url, alice, "runs.events", { runId: answer.data!.runId }), (f) =>
      RUN_ENDED(f.data),
    );
    expect(frames.some((f) => f.data.includes('"run.completed"'))).toBe(true);
    const after = await messagesOf(threadId);
    expect(after[0]).toMatchObject({ id: answer.data!.messageId, role: "user", content: "count slowly to 2" });
    expect(after.some((m) => before.some((b) => b.id === m.id))).toBe(false);
    expect((await edit(alice, { threadId, messageId: before[0]!.id, text: "count slowly to 2" })).status).toBe(404);

    const last = after.at(-1)!;
    const again = await regenerate(alice, { threadId, messageId: last.id });
    expect(again.status).toBe(200);
    expect(again.data).not.toHaveProperty("messageId");
    await readSse(await trpcSubscribe(server.url, alice, "runs.events", { runId: again.data!.runId }), (f) => RUN_ENDED(f.data));
    const regenerated = await messagesOf(threadId);
    expect(regenerated[0]).toEqual(after[0]);
    expect(regenerated.map((m) => m.id)).not.toContain(last.id);
  });
});
