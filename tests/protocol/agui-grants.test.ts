/**
 * Standing approvals over AG-UI, with both client versions: an approval gate offers its grant in
 * the interrupt's metadata; a resume whose payload carries `grant` creates it; a later matching
 * call on the thread passes with `CUSTOM grant.used` and no interrupt; once revoked (tRPC), it asks again.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, customEvents, interruptsOf, runTurn, streamedText, userMessage, type WireInterrupt } from "../helpers/agui";
import { signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

type Offered = WireInterrupt & {
  metadata: { harbor: { grant?: { summary: string; bounds: Record<string, unknown>; caps?: unknown } } };
};

describe.each(inject("servers"))("standing approvals over AG-UI on the $name server", (server) => {
  let alice: Auth;

  beforeAll(async () => {
    ({ alice } = await signInCast(server.url));
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("creates a grant from a resume's payload, lets the next matching call through, and asks again once it is revoked", async () => {
      const threadId = randomUUID();
      const to = `standing-${client.version}-${threadId.slice(0, 8)}@example.com`;
      const ask = (text: string) => runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(text)] });

      const parked = await ask(`send an email to ${to} saying hi`);
      const [gate] = interruptsOf(parked.events) as Offered[];
      expect(gate!.metadata.harbor.grant).toEqual({ summary: `emails to ${to}`, bounds: { to: { equals: to } } });
      // The answer's schema names the optional grant; the tool's version stays on the server.
      expect(gate!.responseSchema).toMatchObject({ properties: { approved: { type: "boolean" }, grant: { type: "object" } } });
      expect(JSON.stringify(gate)).not.toContain("toolVersion");

      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [],
        agent: parked.agent,
        resume: [{ interruptId: gate!.id, status: "resolved", payload: { approved: true, grant: { scope: "thread" } } }],
      });
      expect(streamedText(resumed.events)).toBe(`Email sent to ${to}.`);
      const grants = (await trpcQuery<{ grantId: string; summary: string }[]>(server.url, alice, "grants.list")).data ?? [];
      const grant = grants.find((g) => g.summary === `emails to ${to}`);
      expect(grant).toBeDefined();

      const again = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage(`send an email to ${to} saying again`)],
        agent: resumed.agent,
      });
      expect(interruptsOf(again.events)).toEqual([]);
      expect(customEvents(again.events, "pause.requested")).toEqual([]);
      expect(customEvents(again.events, "grant.used")).toEqual([
        { grantId: grant!.grantId, toolCallId: expect.any(String), toolName: "send_email" },
      ]);
      expect(streamedText(again.events)).toBe(`Email sent to ${to} under your standing approval.`);
      expect(again.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });

      expect((await trpcMutation(server.url, alice, "grants.revoke", { grantId: grant!.grantId })).data).toEqual({ revoked: true });
      const afterRevoke = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage(`send an email to ${to} saying once more`)],
        agent: again.agent,
      });
      expect(interruptsOf(afterRevoke.events)).toHaveLength(1);
    });

    it("refuses a grant the gate does not offer, and a malformed one, naming the field", async () => {
      const threadId = randomUUID();
      const parked = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId,
        messages: [userMessage(`send an email to refuse-${client.version}@example.com saying hi`)],
      });
      const [gate] = interruptsOf(parked.events);
      for (const grant of [{ scope: "forever" }, { scope: "hours", hours: 73 }, { scope: "thread", caps: { to: 5 } }]) {
        const refused = await runTurn(client, {
          baseUrl: server.url,
          auth: alice,
          threadId,
          messages: [],
          resume: [{ interruptId: gate!.id, status: "resolved", payload: { approved: true, grant } }],
          ends: "RUN_ERROR",
        });
        const error = refused.events.at(-1) as unknown as { code: string; message: string };
        expect(error.code, JSON.stringify(grant)).toBe("INVALID_INPUT");
        expect(error.message).toContain("resume[0].payload.grant");
      }
    });
  });
});
