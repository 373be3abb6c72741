/**
 * Tool-side OAuth through the runtime, with the real embedded identity provider: a tool that needs
 * a credential parks the run (reason `oauth`); the callback leg — state, identity and expiry checked
 * before anything changes — stores the tokens sealed and continues the run, which calls the
 * protected calendar with the owner's token. Refresh, revocation and encryption at rest too.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgents } from "@/server/agents";
import { CALENDAR_PROVIDER, CALENDAR_SCOPES } from "@/server/agents/concierge/tools";
import { findRun } from "@/server/db/queries/runs";
import { DEMO_PASSWORD, DEMO_USERS } from "@/server/db/seed";
import { log } from "@/server/log";
import { oauthBroker, type OAuthBroker } from "@/server/oauth/broker";
import { beginConsent, completeConsent } from "@/server/oauth/callback";
import { oauthClient } from "@/server/oauth/client";
import { startIdentityProvider, type RunningIdentityProvider } from "@/server/peers/identity-provider";
import type { Identity, VerifiedIdentity, InterruptView, LoggedEvent, Runtime, StartRunRequest } from "@/server/runtime";
import { queryRows, testBackends, useSeededDatabase } from "../../helpers/backends";
import { consentAt } from "../../helpers/consent";
import { drain, started, TEST_SECRET, testRuntime } from "../../helpers/runtime";

const CALLBACK = "http://127.0.0.1:9/api/oauth/callback/calendar";
const CLIENT = { clientId: "harbor", clientSecret: "consent-test-client-secret" };
const TOKEN_TTL_SECONDS = 3;
const alice: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const bob: VerifiedIdentity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["approver"] };
const mallory: VerifiedIdentity = { tenantId: "tenant-globex", userId: "user-mallory", roles: ["admin"] };
const account = (email: string) => ({ email, password: DEMO_PASSWORD });

let counter = 0;
const ask = (threadId: string, text?: string, resume?: StartRunRequest["resume"]): StartRunRequest => ({
  agentId: "concierge",
  threadId,
  transportRunId: `t-${++counter}`,
  messages: text ? [{ id: `m-${counter}-${threadId}`, role: "user", content: text }] : [],
  resume,
});

const events = (logged: readonly LoggedEvent[]) => logged.map((e) => e.event);

describe.each(testBackends())("tool-side OAuth on $name", (backend) => {
  const database = useSeededDatabase(backend);
  let idp: RunningIdentityProvider;
  let runtime: Runtime;
  let broker: OAuthBroker;
  /** Every bearer token the calendar received, in order. */
  const seenByCalendar: string[] = [];

  beforeAll(async () => {
    idp = await startIdentityProvider({
      client: { ...CLIENT, redirectUris: [CALLBACK] },
      accounts: DEMO_USERS.map((u) => ({ id: u.id, email: u.email, name: u.name, password: DEMO_PASSWORD })),
      accessTokenTtlSeconds: TOKEN_TTL_SECONDS,
      onCalendarRequest: (token) => seenByCalendar.push(token),
    });
    broker = oauthBroker({
      db: database.db,
      serverSecret: TEST_SECRET,
      providers: new Map([
        [
          CALENDAR_PROVIDER,
          {
            id: CALENDAR_PROVIDER,
            name: "demo calendar",
            issuer: idp.issuer,
            client: oauthClient({ issuer: idp.issuer, ...CLIENT, redirectUri: CALLBACK, scopes: [...CALENDAR_SCOPES] }),
          },
        ],
      ]),
      connectUrl: (id) => `http://127.0.0.1:9/api/oauth/connect/${id}`,
      log: log.child({ test: true }),
    });
    runtime = testRuntime(database.db, {
      agents: createAgents({ calendarUrl: idp.calendarUrl }),
      credentials: broker,
      oauthTtlMs: 60_000,
    });
  });
  afterAll(async () => {
    runtime?.close();
    await runtime?.idle();
    await idp?.close();
  });

  /** Asks for the calendar; returns the run's events up to where its transport run ended. */
  async function checkCalendar(identity: Identity, threadId: string, rt = runtime) {
    const run = started(await rt.startRun(identity, ask(threadId, "check my calendar")));
    return { runId: run.runId, events: events(await drain(run.events)) };
  }

  function consentOf(evs: ReturnType<typeof events>): InterruptView {
    const last = evs.at(-1);
    if (last?.type !== "run.paused") throw new Error(`expected an oauth pause, got ${JSON.stringify(last)}`);
    const [interrupt] = last.interrupts;
    expect(interrupt).toMatchObject({ kind: "oauth", reason: "oauth", policy: "owner", detail: { provider: "calendar" } });
    return interrupt!;
  }

  /** What the owner's browser does: opens Harbor's consent URL (keeping its nonce), signs in and answers at the provider. */
  async function consentIn(
    identity: VerifiedIdentity,
    email: string,
    consent: InterruptView,
    options: { decision?: "Allow" | "Deny"; rt?: Runtime } = {},
  ) {
    const begun = await beginConsent({ runtime: options.rt ?? runtime, broker }, identity, consent.id);
    const callbackUrl = await consentAt(begun.providerUrl, account(email), { callbackPrefix: CALLBACK, decision: options.decision });
    return { callbackUrl, nonce: begun.nonce as string | undefined };
  }
  /** The provider's redirect arriving, with the cookie of the browser it lands in. */
  const callback = (identity: VerifiedIdentity, browser: { callbackUrl: URL; nonce?: string }, rt = runtime) =>
    completeConsent({ runtime: rt, broker }, identity, "calendar", browser.callbackUrl, () => browser.nonce);

  /** The run's whole log, until it ends. */
  async function rest(identity: Identity, runId: string) {
    const out: ReturnType<typeof events> = [];
    for await (const logged of await runtime.watchRun(identity, runId, 0)) {
      out.push(logged.event);
      if (logged.event.type === "run.completed" || logged.event.type === "run.failed") break;
    }
    return out;
  }

  it("parks with the consent URL, and the callback stores the tokens and continues the run, which reads the calendar with them", async () => {
    const { runId, events: first } = await checkCalendar(alice, "oauth-round-trip");
    const consent = consentOf(first);
    // The pause carries Harbor's own consent URL; the provider's (with its state) is made only for the owner's browser.
    expect(consent.detail!.authorizationUrl).toBe(`http://127.0.0.1:9/api/oauth/connect/${consent.id}`);
    expect(consent.detail!.scopes).toEqual(["openid", "offline_access", "calendar.read"]);
    const begun = await beginConsent({ runtime, broker }, alice, consent.id);
    const url = new URL(begun.providerUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("redirect_uri")).toBe(CALLBACK);
    expect(url.searchParams.get("scope")).toBe("openid offline_access calendar.read");
    expect((await findRun(database.db, runId))?.status).toBe("paused");
    await expect(beginConsent({ runtime, broker }, bob, consent.id)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(beginConsent({ runtime, broker }, mallory, consent.id)).rejects.toMatchObject({ code: "NOT_FOUND" });

    const browser = {
      callbackUrl: await consentAt(url.href, account("alice@acme.test"), { callbackPrefix: CALLBACK }),
      nonce: begun.nonce,
    };
    expect(await callback(alice, browser)).toEqual({ interactionId: consent.id, threadId: "oauth-round-trip", outcome: "connected" });

    const after = await rest(alice, runId);
    const result = after.find((e) => e.type === "tool.result");
    expect(result).toMatchObject({ content: expect.stringContaining("Lunch with Alice") });
    expect(
      after
        .filter((e) => e.type === "text.delta")
        .map((e) => (e.type === "text.delta" ? e.delta : ""))
        .join(""),
    ).toMatch(/^Today \(.+\) you have 3 events/);
    expect(after.at(-1)).toMatchObject({ type: "run.completed" });
    expect(await runtime.interactions.get(alice, consent.id)).toMatchObject({ status: "resolved", decision: { connected: true } });
    // The resource saw a token, and that token is nowhere in the database in clear.
    const token = seenByCalendar.at(-1)!;
    expect(token.length).toBeGreaterThan(20);
    const dump = await databaseDump();
    expect(dump).not.toContain(token);
    expect(dump).toContain('"provider":"calendar"');

    // Replayed: refused, and nothing changes.
    await expect(callback(alice, browser)).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });

    // Next time the stored credential is used at once: no pause.
    const again = await checkCalendar(alice, "oauth-connected");
    expect(again.events.at(-1)).toMatchObject({ type: "run.completed" });
    expect(again.events.some((e) => e.type === "run.paused")).toBe(false);
  });

  it("refuses forged state, another user's callback and another tenant's, changing nothing", async () => {
    await broker.disconnect(alice, "calendar");
    const { events: first } = await checkCalendar(alice, "oauth-refusals");
    const consent = consentOf(first);
    const browser = await consentIn(alice, "alice@acme.test", consent);

    const forged = new URL(browser.callbackUrl);
    const state = forged.searchParams.get("state")!;
    forged.searchParams.set("state", `${state.slice(0, -3)}${state.slice(-3) === "AAA" ? "BBB" : "AAA"}`);
    await expect(callback(alice, { ...browser, callbackUrl: forged })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "state" },
    });
    const missing = new URL(browser.callbackUrl);
    missing.searchParams.delete("state");
    await expect(callback(alice, { ...browser, callbackUrl: missing })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(callback(bob, browser)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(callback(mallory, browser)).rejects.toMatchObject({ code: "NOT_FOUND" });
    // Another browser (no nonce, or another consent's): the link alone is not enough.
    await expect(callback(alice, { callbackUrl: browser.callbackUrl })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("not started from this browser"),
    });
    await expect(callback(alice, { callbackUrl: browser.callbackUrl, nonce: "another-nonce" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    // The provider failing (not the user declining) leaves the pause open.
    const failed = new URL(browser.callbackUrl);
    failed.searchParams.delete("code");
    failed.searchParams.set("error", "temporarily_unavailable");
    await expect(callback(alice, { ...browser, callbackUrl: failed })).rejects.toMatchObject({ code: "OAUTH_FAILED" });
    // An OAuth pause is not answered with a payload by anyone, the owner included: only the callback resolves it.
    await expect(runtime.interactions.resolve(alice, { interactionId: consent.id, status: "resolved", payload: {} })).rejects.toMatchObject(
      { code: "FORBIDDEN" },
    );
    expect(await runtime.interactions.get(alice, consent.id)).toMatchObject({ status: "pending" });

    // The genuine callback still works afterwards: the refusals consumed nothing.
    await expect(callback(alice, browser)).resolves.toMatchObject({ outcome: "connected" });
  });

  it("cancels the pause when the user denies at the provider, storing nothing", async () => {
    const { runId, events: first } = await checkCalendar(mallory, "oauth-denied");
    const consent = consentOf(first);
    const browser = await consentIn(mallory, "mallory@globex.test", consent, { decision: "Deny" });
    expect(browser.callbackUrl.searchParams.get("error")).toBe("access_denied");
    expect(await callback(mallory, browser)).toEqual({ interactionId: consent.id, threadId: "oauth-denied", outcome: "declined" });
    const after = await rest(mallory, runId);
    expect(
      after
        .filter((e) => e.type === "text.delta")
        .map((e) => (e.type === "text.delta" ? e.delta : ""))
        .join(""),
    ).toBe("I did not read your calendar: the connection was cancelled.");
    expect(await findRun(database.db, runId)).toMatchObject({ status: "cancelled" });
    expect(await broker.connections(mallory)).toEqual([]);
  });

  it("refuses a callback after the pause expired, and the run ends expired", async () => {
    const shortLived = testRuntime(database.db, {
      agents: createAgents({ calendarUrl: idp.calendarUrl }),
      credentials: broker,
      oauthTtlMs: 1_500,
    });
    try {
      const { runId, events: first } = await checkCalendar(bob, "oauth-expired", shortLived);
      const consent = consentOf(first);
      const browser = await consentIn(bob, "bob@acme.test", consent, { rt: shortLived });
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      await expect(callback(bob, browser, shortLived)).rejects.toMatchObject({ code: "EXPIRED" });
      expect(await findRun(database.db, runId)).toMatchObject({ status: "expired" });
      expect(await broker.connections(bob)).toEqual([]);
    } finally {
      shortLived.close();
      await shortLived.idle();
    }
  });

  it("lets one callback at a time complete a consent: the other changes nothing", async () => {
    await broker.disconnect(alice, "calendar");
    const { runId, events: first } = await checkCalendar(alice, "oauth-race");
    const consent = consentOf(first);
    const browser = await consentIn(alice, "alice@acme.test", consent);
    const outcomes = await Promise.allSettled([callback(alice, browser), callback(alice, browser)]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(outcomes.find((o) => o.status === "rejected")).toMatchObject({ reason: { code: "ALREADY_RESOLVED" } });
    await rest(alice, runId);
    // The winner's tokens still work: the loser never exchanged the code (which would have revoked them).
    expect((await checkCalendar(alice, "oauth-race-after")).events.at(-1)).toMatchObject({ type: "run.completed" });
  });

  it("refreshes an expired access token, and parks again once the grant is revoked", async () => {
    const carol: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["admin"] };
    const { runId, events: first } = await checkCalendar(carol, "oauth-refresh");
    const consent = consentOf(first);
    await callback(carol, await consentIn(carol, "carol@acme.test", consent));
    await rest(carol, runId);
    const firstToken = seenByCalendar.at(-1)!;

    await new Promise((resolve) => setTimeout(resolve, TOKEN_TTL_SECONDS * 1000 + 200));
    const refreshed = await checkCalendar(carol, "oauth-refreshed");
    expect(refreshed.events.at(-1)).toMatchObject({ type: "run.completed" });
    const secondToken = seenByCalendar.at(-1)!;
    expect(secondToken).not.toBe(firstToken);

    // Revoked at the provider: the calendar refuses the token, the refresh is refused too, the owner is asked again.
    await idp.revokeAccount("user-carol");
    const revoked = await checkCalendar(carol, "oauth-revoked");
    consentOf(revoked.events);
    expect(await broker.connections(carol)).toEqual([]);
  });

  it("lists connections without secrets and disconnects, revoking the grant at the provider", async () => {
    const mine = await broker.connections(alice);
    expect(mine).toEqual([
      expect.objectContaining({
        provider: "calendar",
        kind: "oauth",
        name: "demo calendar",
        scopes: expect.arrayContaining(["calendar.read"]),
      }),
    ]);
    expect(JSON.stringify(mine)).not.toMatch(/token/i);
    expect(await broker.disconnect(alice, "calendar")).toEqual({ revoked: true });
    await expect(broker.disconnect(alice, "calendar")).rejects.toMatchObject({ code: "NOT_FOUND" });
    consentOf((await checkCalendar(alice, "oauth-after-disconnect")).events);
  });

  /** Every row of every table, as text: what a dump of the database would hold. */
  async function databaseDump(): Promise<string> {
    const tables = await queryRows<{ table_name: string }>(
      database.db,
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    const parts: string[] = [];
    for (const { table_name } of tables) {
      parts.push(JSON.stringify(await queryRows(database.db, sql`select * from ${sql.identifier(table_name)}`)));
    }
    return parts.join("\n");
  }
});
