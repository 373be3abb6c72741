import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, runTurn, streamedText, userMessage } from "../helpers/agui";
import { createToken, signIn, trpcQuery, type Auth } from "../helpers/http";

describe.each(inject("servers"))("AG-UI chat turns on the $name server", (server) => {
  let alice: Auth;

  beforeAll(async () => {
    const cookie = await signIn(server.url, "alice@acme.test");
    alice = { bearer: (await createToken(server.url, cookie)).token };
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("streams the reply token by token and finishes with snapshots then RUN_FINISHED", async () => {
      const threadId = randomUUID();
      const turn = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("hello")] });
      const types = turn.events.map((e) => e.type);
      expect(types[0]).toBe("RUN_STARTED");
      expect(types.slice(-3)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
      expect(types.filter((t) => t === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(5);
      expect(streamedText(turn.events)).toMatch(/^Hello! I'm the Harbor concierge\. Here is what I can do:/);
      const finished = turn.events.at(-1) as unknown as { threadId: string; outcome?: { type: string } };
      expect(finished.threadId).toBe(threadId);
      expect(finished.outcome).toEqual({ type: "success" });
      expect(turn.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    });

    it("keeps the conversation across turns and persists it for a reload", async () => {
      const threadId = randomUUID();
      const first = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage("hello")] });
      const history = first.messages.map((m) => ({ ...m, content: String(m.content) })) as never[];
      const second = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [...history, userMessage("what else?")],
      });
      expect(streamedText(second.events)).toContain("I can't help with that yet.");
      expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

      const stored = await trpcQuery<{ thread: { title: string }; messages: { role: string; content: string }[] }>(
        server.url,
        alice,
        "threads.get",
        { threadId },
      );
      expect(stored.data?.thread.title).toBe("hello");
      expect(stored.data?.messages.map((m) => [m.role, m.content.slice(0, 10)])).toEqual([
        ["user", "hello"],
        ["assistant", "Hello! I'm"],
        ["user", "what else?"],
        ["assistant", "I can't he"],
      ]);
    });
  });

  it("accepts the Auth.js session cookie as well as a bearer token", async () => {
    const cookie = await signIn(server.url, "alice@acme.test");
    const turn = await runTurn(AGUI_CLIENTS[0]!, {
      baseUrl: server.url,
      auth: { cookie },
      threadId: randomUUID(),
      messages: [userMessage("hi")],
    });
    expect(streamedText(turn.events)).toContain("Harbor concierge");
  });
});
