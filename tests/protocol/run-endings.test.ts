/**
 * What a client following a run is told over AG-UI, with both stock clients: an operator's cancel
 * ends the stream with `CUSTOM run.cancelled` and `RUN_FINISHED { result: { status: "cancelled" } }`
 * (and leaves a note in the thread); double-texting follows `forwardedProps.harbor.multitask`.
 */
import { randomUUID } from "node:crypto";
import type { BaseEvent } from "@ag-ui/client";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  AGUI_CLIENTS,
  cancelledEnding,
  customEvents,
  postRun,
  runInput,
  runTurn,
  streamedText,
  userMessage,
  type AguiClient,
} from "../helpers/agui";
import { runOnThread, signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

describe.each(inject("servers"))("run endings over AG-UI on the $name server", (server) => {
  let alice: Auth;
  let carol: Auth;

  beforeAll(async () => {
    ({ alice, carol } = await signInCast(server.url));
  });

  const countLine = (to: number) => userMessage(`count slowly to ${to}`);
  /** The numbers a counting run said, one message each. */
  const numbers = (events: readonly BaseEvent[]) =>
    events.flatMap((e) => {
      const delta = e.type === "TEXT_MESSAGE_CONTENT" ? (e as BaseEvent & { delta: string }).delta : "";
      return /^\d+$/.test(delta) ? [Number(delta)] : [];
    });

  /** Alice's counting run, followed by `client` in the background; resolves with its Harbor run id once it runs. */
  async function counting(client: AguiClient, threadId: string, to: number) {
    const turn = runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [countLine(to)] });
    const runId = await runOnThread(server.url, carol, threadId, "running");
    return { turn, runId };
  }

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("an operator's cancel ends the follower's stream with run.cancelled, and the thread keeps a note", async () => {
      const threadId = randomUUID();
      const { turn, runId } = await counting(client, threadId, 200);
      const steered = await trpcMutation(server.url, carol, "runs.steer", { runId, instruction: { type: "CANCEL" } });
      expect(steered.data).toEqual({ accepted: true });
      const { events } = await turn;
      expect(customEvents(events, "run.cancelled")).toEqual([{ runId, by: { role: "operator" } }]);
      expect(events.at(-1)).toMatchObject(cancelledEnding(client));
      const thread = await trpcQuery<{ messages: { role: string; content: string }[] }>(server.url, alice, "threads.get", { threadId });
      expect(thread.data?.messages.at(-1)).toEqual(expect.objectContaining({ role: "system", content: "Run cancelled by an operator." }));
      const next = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("hello")] });
      expect(streamedText(next.events)).toMatch(/^Hello!/);
    });

    it("double-texting: enqueue waits its turn and says so; reject refuses; interrupt cancels the running run", async () => {
      const threadId = randomUUID();
      const first = await counting(client, threadId, 3);
      const queued = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [countLine(2)] });
      expect(customEvents(queued.events, "run.queued")).toEqual([expect.objectContaining({ position: 1 })]);
      expect(numbers(queued.events)).toEqual([1, 2]);
      expect(numbers((await first.turn).events)).toEqual([1, 2, 3]);

      const long = await counting(client, threadId, 200);
      const rejected = await postRun(
        server.url,
        alice,
        runInput(threadId, [userMessage("hello")], { forwardedProps: { harbor: { multitask: "reject" } } }),
      );
      expect(await rejected.text()).toContain('"code":"RUN_IN_PROGRESS"');

      // The owner stops it herself (the chat's Stop): her stream says so.
      expect((await trpcMutation(server.url, alice, "runs.steer", { runId: long.runId, instruction: { type: "CANCEL" } })).data).toEqual({
        accepted: true,
      });
      expect(customEvents((await long.turn).events, "run.cancelled")).toEqual([{ runId: long.runId, by: { role: "owner" } }]);
    });
  });

  it("interrupt: the running run ends cancelled by its owner and the new message is answered after it", async () => {
    const client = AGUI_CLIENTS[0]!;
    const threadId = randomUUID();
    const long = await counting(client, threadId, 200);
    const response = await postRun(
      server.url,
      alice,
      runInput(threadId, [userMessage("hello")], { forwardedProps: { harbor: { multitask: "interrupt" } } }),
    );
    expect(response.status).toBe(200);
    const body = await response.text();
    const { events } = await long.turn;
    expect(customEvents(events, "run.cancelled")).toEqual([{ runId: long.runId, by: { role: "owner" } }]);
    expect(body).toContain("Hello!");
    expect(body).toContain('"type":"RUN_FINISHED"');
  });

  it("refuses an unknown multitask policy with 400 naming the field", async () => {
    const response = await postRun(
      server.url,
      alice,
      runInput(randomUUID(), [userMessage("hi")], { forwardedProps: { harbor: { multitask: "shout" } } }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "forwardedProps.harbor.multitask" } });
  });
});
