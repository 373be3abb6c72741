import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, interruptsOf, runTurn, userMessage } from "../helpers/agui";
import { signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";
import { eventually, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const client = AGUI_CLIENTS[0]!;

interface Link {
  userId: string;
  email: string;
  approve: string;
  reject: string;
}

describe.each(inject("servers"))("decision links over webhooks and tRPC on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let carol: Auth;
  let receiver: WebhookReceiver;
  let hookId: string;

  beforeAll(async () => {
    ({ alice, bob, carol } = await signInCast(server.url));
    receiver = await startWebhookReceiver();
    const created = await trpcMutation<{ id: string; secret: string }>(server.url, carol, "webhooks.create", {
      url: receiver.url,
      events: ["pause.requested"],
    });
    receiver.secret = created.data!.secret;
    hookId = created.data!.id;
  });
  afterAll(async () => {
    await trpcMutation(server.url, carol, "webhooks.delete", { webhookId: hookId });
    await receiver.close();
  });

  it("carries each approver's links, opens them only signed in, and decides once over POST", async () => {
    const threadId = randomUUID();
    const parked = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("transfer 42 EUR to LINK-PROTO")],
    });
    const [gate] = interruptsOf(parked.events);
    const message = await eventually(() =>
      receiver.received.find((r) => r.payload.type === "pause.requested" && r.payload.data.interactionId === gate!.id),
    );
    expect(message.verified).toBe(true);
    expect(message.body).not.toContain("LINK-PROTO");
    const links = message.payload.data.decisionLinks as Link[];
    expect(links.map((l) => l.email).sort()).toEqual(["bob@acme.test", "carol@acme.test"]);
    const mine = links.find((l) => l.email === "bob@acme.test")!;
    const token = mine.approve.split("/decide/")[1]!;
    expect(mine.approve).toBe(`${server.url}/decide/${token}`);

    // The page, signed out, is a redirect to sign in and back; its API needs a sign-in too.
    const page = await fetch(mine.approve, { redirect: "manual" });
    expect([303, 307]).toContain(page.status);
    expect(decodeURIComponent(page.headers.get("location") ?? "")).toContain(`/signin?callbackUrl=/decide/${token}`);
    expect((await trpcQuery(server.url, null, "decisionLinks.get", { token })).status).toBe(401);
    expect((await trpcMutation(server.url, null, "decisionLinks.decide", { token })).status).toBe(401);

    // Reading never decides; another approver is refused.
    expect((await trpcQuery<{ state: string }>(server.url, bob, "decisionLinks.get", { token })).data?.state).toBe("open");
    expect((await trpcQuery<{ state: string }>(server.url, carol, "decisionLinks.get", { token })).data).toEqual({ state: "not_yours" });
    const refused = await trpcMutation(server.url, carol, "decisionLinks.decide", { token });
    expect(refused.status).toBe(403);
    // A decision is a POST: the query path does not take it.
    expect((await trpcQuery(server.url, bob, "decisionLinks.decide", { token })).status).toBe(405);

    const decided = await trpcMutation<{ outcome: string; continued: string[] }>(server.url, bob, "decisionLinks.decide", { token });
    expect(decided.status).toBe(200);
    expect(decided.data).toEqual({ outcome: "approved", continued: [expect.any(String)] });
    const replay = await trpcMutation(server.url, bob, "decisionLinks.decide", { token });
    expect(replay.status).toBe(409);
    expect(replay.error?.data.harborCode).toBe("LINK_USED");
    const other = await trpcMutation(server.url, bob, "decisionLinks.decide", { token: mine.reject.split("/decide/")[1] });
    expect(other.error?.data.harborCode).toBe("LINK_USED");

    const after = await trpcQuery<{ state: string; interaction: { status: string; resolvedBy: { id: string } } }>(
      server.url,
      bob,
      "decisionLinks.get",
      { token },
    );
    expect(after.data).toMatchObject({ state: "used", interaction: { status: "resolved", resolvedBy: { id: "user-bob" } } });
  });
});
