/**
 * Cancelling every kind of interrupt the way the stock AG-UI clients do: `resume: [{ interruptId,
 * status: "cancelled" }]`, no payload key, sent by the same client that holds the conversation.
 * The wait closes as cancelled, nothing gated runs, the stream ends with RUN_FINISHED and the
 * thread takes the next message.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, cancelledEnding, interruptsOf, runTurn, streamedText, userMessage, type AguiClient } from "../helpers/agui";
import { signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

interface OutboxRow {
  details: { to?: string };
}

const KINDS = [
  { kind: "approval", ask: (tag: string) => `send an email to cancel-${tag}@example.com saying never`, reason: "tool_call" },
  { kind: "private form", ask: () => "connect my api key", reason: "private_input" },
  { kind: "remote-agent question", ask: () => "ask the travel agent to book a trip", reason: "input_required" },
  { kind: "OAuth consent", ask: () => "check my calendar", reason: "oauth" },
] as const;

describe.each(inject("servers"))("cancelling interrupts on the $name server", (server) => {
  let alice: Auth;

  beforeAll(async () => {
    ({ alice } = await signInCast(server.url));
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client: AguiClient) => {
    it.each(KINDS)("cancels a $kind with status cancelled and no payload", async ({ ask, reason }) => {
      // Consent is asked for only while the calendar is not connected (another test may have connected it).
      if (reason === "oauth") await trpcMutation(server.url, alice, "connections.disconnect", { provider: "calendar" });
      const threadId = randomUUID();
      const tag = `${client.version}-${randomUUID().slice(0, 8)}`;
      const parked = await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(ask(tag))] });
      const [interrupt] = interruptsOf(parked.events);
      expect(interrupt?.reason).toBe(reason);
      // Exactly what a stock client sends: its own helper, from the interrupts it keeps.
      const resume = client.resumeArray(parked.agent.pendingInterrupts, { [interrupt!.id]: { status: "cancelled" } });
      expect(resume).toEqual([{ interruptId: interrupt!.id, status: "cancelled" }]);

      // The private form forbids a transcript with its answer, so that one is answered by a
      // client holding none; every other kind by the client that holds the conversation.
      const privateAnswer = reason === "private_input";
      const cancelled = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [],
        ...(privateAnswer ? {} : { agent: parked.agent }),
        resume,
      });
      expect(cancelled.events.at(-1)).toMatchObject(cancelledEnding(client));
      expect(cancelled.events.some((e) => e.type === "TOOL_CALL_RESULT")).toBe(true);

      const stored = await trpcQuery<{ status: string }>(server.url, alice, "interactions.get", { interactionId: interrupt!.id });
      expect(stored.data?.status).toBe("cancelled");
      if (reason === "tool_call") {
        const outbox = await trpcQuery<OutboxRow[]>(server.url, alice, "outbox.list");
        expect((outbox.data ?? []).filter((row) => row.details.to === `cancel-${tag}@example.com`)).toEqual([]);
      }

      const next = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage("hello")],
        ...(privateAnswer ? {} : { agent: cancelled.agent }),
      });
      expect(streamedText(next.events)).toMatch(/^Hello!/);
    });
  });
});
