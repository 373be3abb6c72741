/**
 * One of each thing that waits across a deploy, left behind by one build and answered by another:
 * an owner's approval, a quorum gate with one vote cast, a gate decided by a decision link minted
 * before, a gate whose reminder falls due after, a webhook delivery still to retry, a standing
 * approval given before and used after, background work still running. `answerAll` checks that
 * each effect happens once and the audit chain verifies across the boundary.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { AGUI_CLIENTS, customEvents, interruptsOf, runTurn, userMessage } from "./agui";
import { authHeaders, signInCast, trpcMutation, trpcQuery, type Auth } from "./http";
import { eventually, type WebhookReceiver } from "./webhook-receiver";

const client = AGUI_CLIENTS[0]!;

/** The settings both builds run with: short deadlines and slow research, so both fall across the upgrade. */
export const UPGRADE_ENV = {
  HARBOR_SEED_DEMO: "1",
  HARBOR_DURABLE_WAITS: "approvals",
  HARBOR_WEBHOOKS_ALLOW_LOCAL: "1",
  HARBOR_WEBHOOK_POLL_MS: "100",
  HARBOR_WEBHOOK_RETRY_MS: "1500,1500,1500",
  HARBOR_STREAM_CHUNK_MS: "0",
  // An email's reminder comes when a fifth of its time is left: 40 s after its gate, after the
  // upgrade; every gate is answered well before it expires.
  HARBOR_APPROVAL_TTL_MS: "50000",
  HARBOR_RESEARCH_MS: "6000",
};

export interface LeftBehind {
  alice: Auth;
  bob: Auth;
  carol: Auth;
  /** The owner's approval of an email, unanswered. */
  email: { id: string; to: string };
  /** A 2-of-n transfer gate: bob voted before the upgrade. */
  quorum: { id: string; to: string };
  /** A transfer gate bob decides after the upgrade with the link he was sent before it. */
  linked: { id: string; to: string; token: string };
  /** An email gate left open: its reminder falls due after the upgrade; its webhook delivery failed once. */
  reminded: { id: string; to: string };
  /** A standing approval of emails to one address, given before. */
  granted: { to: string };
  /** Research still running when the old build stops. */
  research: { threadId: string; responseId: string };
}

interface Outboxed {
  kind: string;
  details: { to?: string };
}

const park = async (baseUrl: string, auth: Auth, text: string) => {
  const turn = await runTurn(client, { baseUrl, auth, threadId: randomUUID(), messages: [userMessage(text)] });
  const [gate] = interruptsOf(turn.events);
  if (!gate) throw new Error(`expected a pause for "${text}"`);
  return gate;
};

/** Leaves one of each waiting thing behind on the build at `baseUrl`, with webhooks to `receiver`. */
export async function leaveBehind(baseUrl: string, receiver: WebhookReceiver): Promise<LeftBehind> {
  const { alice, bob, carol } = await signInCast(baseUrl);
  const hook = await trpcMutation<{ id: string; secret: string }>(baseUrl, carol, "webhooks.create", {
    url: receiver.url,
    events: ["pause.requested", "pause.reminder", "pause.resolved"],
  });
  expect(hook.error).toBeUndefined();
  receiver.secret = hook.data!.secret;
  const tag = randomUUID().slice(0, 6);

  const emailTo = `upgrade-email-${tag}@example.com`;
  const email = await park(baseUrl, alice, `send an email to ${emailTo} saying before the upgrade`);

  const quorumTo = `UPGRADE-QUORUM-${tag}`;
  const quorum = await park(baseUrl, alice, `transfer 12,500 EUR to ${quorumTo}`);
  const vote = await trpcMutation(baseUrl, bob, "interactions.approve", { interactionId: quorum.id });
  expect(vote.error).toBeUndefined();

  const linkedTo = `UPGRADE-LINK-${tag}`;
  const linked = await park(baseUrl, alice, `transfer 42 EUR to ${linkedTo}`);
  const message = await eventually(() => receiver.received.find((r) => r.payload.data.interactionId === linked.id));
  const links = message.payload.data.decisionLinks as { email: string; approve: string }[];
  const token = links.find((l) => l.email === "bob@acme.test")!.approve.split("/decide/")[1]!;

  const grantTo = `upgrade-grant-${tag}@example.com`;
  const first = await park(baseUrl, alice, `send an email to ${grantTo} saying first`);
  const granted = await trpcMutation(baseUrl, alice, "interactions.approve", {
    interactionId: first.id,
    grant: { scope: "hours", hours: 1 },
  });
  expect(granted.error).toBeUndefined();
  await expect.poll(() => sentTo(baseUrl, alice, grantTo), { timeout: 10_000 }).toBe(1);

  // The receiver refuses the next notification: its delivery waits for a retry, after the upgrade.
  receiver.failAlways(true);
  const remindedTo = `upgrade-reminded-${tag}@example.com`;
  const reminded = await park(baseUrl, alice, `send an email to ${remindedTo} saying remind me`);
  await eventually(() => receiver.received.find((r) => r.payload.data.interactionId === reminded.id && r.status === 500));

  const researchThread = randomUUID();
  const research = await runTurn(client, { baseUrl, auth: alice, threadId: researchThread, messages: [userMessage("research upgrades")] });
  const [wait] = customEvents(research.events, "harnest.external_wait") as { responseId: string }[];
  if (!wait) throw new Error("expected the research to go on in the background");

  return {
    alice,
    bob,
    carol,
    email: { id: email.id, to: emailTo },
    quorum: { id: quorum.id, to: quorumTo },
    linked: { id: linked.id, to: linkedTo, token },
    reminded: { id: reminded.id, to: remindedTo },
    granted: { to: grantTo },
    research: { threadId: researchThread, responseId: wait.responseId },
  };
}

async function sentTo(baseUrl: string, auth: Auth, to: string): Promise<number> {
  const rows = (await trpcQuery<Outboxed[]>(baseUrl, auth, "outbox.list")).data ?? [];
  return rows.filter((r) => r.details.to === to).length;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Answers everything `left` holds on the build at `baseUrl` and checks each effect happened once. */
export async function answerAll(baseUrl: string, left: LeftBehind, receiver: WebhookReceiver): Promise<void> {
  const { alice, bob, carol } = left;
  receiver.failAlways(false);
  // The delivery that failed before the upgrade goes out after it.
  await eventually(() => receiver.received.find((r) => r.payload.data.interactionId === left.reminded.id && r.status === 204), 15_000);

  const approved = await trpcMutation(baseUrl, alice, "interactions.approve", { interactionId: left.email.id });
  expect(approved.error).toBeUndefined();
  // The second vote completes the quorum: the gate is not asked again.
  const second = await trpcMutation<{ continued: string[] }>(baseUrl, carol, "interactions.approve", { interactionId: left.quorum.id });
  expect(second.error).toBeUndefined();
  expect(second.data?.continued).toHaveLength(1);
  const decided = await trpcMutation<{ outcome: string }>(baseUrl, bob, "decisionLinks.decide", { token: left.linked.token });
  expect(decided.error).toBeUndefined();
  expect(decided.data?.outcome).toBe("approved");

  // The standing approval given before the upgrade lets the same email through without a pause.
  const again = await runTurn(client, {
    baseUrl,
    auth: alice,
    threadId: randomUUID(),
    messages: [userMessage(`send an email to ${left.granted.to} saying second`)],
  });
  expect(interruptsOf(again.events)).toEqual([]);

  await expect.poll(() => sentTo(baseUrl, alice, left.email.to), { timeout: 15_000 }).toBe(1);
  await expect.poll(() => transfersTo(baseUrl, alice, left.quorum.to), { timeout: 15_000 }).toBe(1);
  await expect.poll(() => transfersTo(baseUrl, alice, left.linked.to), { timeout: 15_000 }).toBe(1);
  await expect.poll(() => sentTo(baseUrl, alice, left.granted.to), { timeout: 15_000 }).toBe(2);

  // The research the old build started finishes, its report appended once.
  await expect
    .poll(
      async () =>
        (await fetch(`${baseUrl}/api/responses/${left.research.responseId}`, { headers: authHeaders(alice) }).then((r) => r.json())).status,
      {
        timeout: 30_000,
      },
    )
    .toBe("completed");

  // The open gate's reminder falls due after the upgrade and is sent once.
  await eventually(
    () => receiver.received.find((r) => r.payload.type === "pause.reminder" && r.payload.data.interactionId === left.reminded.id),
    60_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(
    receiver.received.filter(
      (r) => r.payload.type === "pause.reminder" && r.payload.data.interactionId === left.reminded.id && r.status === 204,
    ),
  ).toHaveLength(1);
  expect(await sentTo(baseUrl, alice, left.reminded.to)).toBe(0);

  // Every decision is in the audit log once, and the chain verifies across the two builds.
  const exported = await fetch(`${baseUrl}/api/audit/export?from=${day(-1)}&to=${day(1)}&format=jsonl`, { headers: authHeaders(carol) });
  expect(exported.status).toBe(200);
  const text = await exported.text();
  const resolves = text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { action: string; subject_id: string })
    .filter((r) => r.action === "interaction.resolve");
  for (const id of [left.email.id, left.quorum.id, left.linked.id]) expect(resolves.filter((r) => r.subject_id === id)).toHaveLength(1);
  expect(verifyAudit(text)).toMatchObject({ status: 0 });
}

async function transfersTo(baseUrl: string, auth: Auth, to: string): Promise<number> {
  const rows = (await trpcQuery<Outboxed[]>(baseUrl, auth, "outbox.list")).data ?? [];
  return rows.filter((r) => r.kind === "transfer" && r.details.to === to).length;
}

function verifyAudit(content: string): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-upgrade-audit-"));
  try {
    const file = path.join(dir, "export.jsonl");
    fs.writeFileSync(file, content);
    const result = spawnSync(process.execPath, [path.resolve("scripts/verify-audit.mjs"), file], { encoding: "utf8" });
    return { status: result.status, out: result.stdout + result.stderr };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
