import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, approve, interruptsOf, runTurn, userMessage } from "../helpers/agui";
import { signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";
import { eventually, startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

const client = AGUI_CLIENTS[0]!;
const EVENTS = ["pause.requested", "pause.resolved", "pause.expired"];

interface Created {
  id: string;
  secret: string;
}

interface LogEntry {
  id: string;
  event: string;
  status: string;
  attempts: number;
  log: { attempt: number; statusCode: number | null }[];
}

describe.each(inject("servers"))("outgoing webhooks over tRPC and AG-UI on the $name server", (server) => {
  let alice: Auth;
  let carol: Auth;
  let mallory: Auth;
  let acme: WebhookReceiver;
  let globex: WebhookReceiver;
  const hooks: { auth: Auth; id: string }[] = [];

  beforeAll(async () => {
    ({ alice, carol, mallory } = await signInCast(server.url));
    acme = await startWebhookReceiver();
    globex = await startWebhookReceiver();
  });
  afterAll(async () => {
    for (const hook of hooks) await trpcMutation(server.url, hook.auth, "webhooks.delete", { webhookId: hook.id });
    await acme.close();
    await globex.close();
  });

  it("lets admins register webhooks and refuses everyone else", async () => {
    const refused = await trpcMutation(server.url, alice, "webhooks.create", { url: acme.url, events: EVENTS });
    expect(refused.status).toBe(403);
    expect(refused.error?.data.code).toBe("FORBIDDEN");
    expect((await trpcQuery(server.url, alice, "webhooks.list")).status).toBe(403);
    const bad = await trpcMutation(server.url, carol, "webhooks.create", { url: "https://10.0.0.1/x", events: EVENTS });
    expect(bad.status).toBe(400);

    const created = await trpcMutation<Created>(server.url, carol, "webhooks.create", { url: acme.url, events: EVENTS });
    expect(created.status).toBe(200);
    expect(created.data!.secret).toMatch(/^whsec_/);
    acme.secret = created.data!.secret;
    hooks.push({ auth: carol, id: created.data!.id });
    const other = await trpcMutation<Created>(server.url, mallory, "webhooks.create", { url: globex.url, events: EVENTS });
    globex.secret = other.data!.secret;
    hooks.push({ auth: mallory, id: other.data!.id });
    const listed = await trpcQuery<{ id: string }[]>(server.url, carol, "webhooks.list");
    expect(listed.data!.map((w) => w.id)).toContain(created.data!.id);
    expect(listed.data!.map((w) => w.id)).not.toContain(other.data!.id);
    expect(JSON.stringify(listed.data)).not.toContain(created.data!.secret);
  });

  it("signs and delivers a parked approval and its decision to the tenant's receiver only", async () => {
    const threadId = randomUUID();
    const parked = await runTurn(client, {
      baseUrl: server.url,
      auth: alice,
      threadId,
      messages: [userMessage("send an email to hook@example.com saying hi")],
    });
    const [gate] = interruptsOf(parked.events);
    const about = (type: string) => acme.received.filter((r) => r.payload.type === type && r.payload.data.interactionId === gate!.id);
    const [requested] = await eventually(() => about("pause.requested").length > 0 && about("pause.requested"));
    expect(requested!.verified).toBe(true);
    expect(requested!.payload.data).toMatchObject({
      threadId,
      kind: "approval",
      policy: "owner",
      status: "pending",
      toolName: "send_email",
    });
    expect(requested!.body).not.toContain("hook@example.com");

    await runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [], agent: parked.agent, resume: [approve(gate!.id)] });
    const [resolved] = await eventually(() => about("pause.resolved").length > 0 && about("pause.resolved"));
    expect(resolved!.verified).toBe(true);
    expect(resolved!.payload.data).toMatchObject({ status: "resolved" });
    expect(globex.received.some((r) => r.payload.data.interactionId === gate!.id)).toBe(false);

    for (let i = 0; ; i++) {
      const entries = (await trpcQuery<LogEntry[]>(server.url, carol, "webhooks.deliveries", { webhookId: hooks[0]!.id })).data ?? [];
      const mine = entries.filter((e) => e.id === requested!.id || e.id === resolved!.id);
      if (mine.length === 2 && mine.every((e) => e.status === "delivered")) {
        expect(mine.map((e) => e.log.map((a) => a.statusCode))).toEqual([[204], [204]]);
        break;
      }
      if (i > 100) throw new Error("the delivery log does not show both deliveries");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const foreign = await trpcQuery(server.url, carol, "webhooks.deliveries", { webhookId: hooks[1]!.id });
    expect(foreign.status).toBe(404);
  });
});
