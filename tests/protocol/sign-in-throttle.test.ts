/**
 * Sign-in throttling over the wire (README, "Limits and protections"): more than 5 failed
 * sign-ins for one email from one client within 15 minutes → 429 with Retry-After on the
 * Credentials callback, even for the right password; other clients and other emails are not
 * affected; a burst of parallel attempts is answered quickly without starving the server.
 *
 * The client is the request's X-Forwarded-For (what `next start` fills from the socket when it is
 * absent). Every test speaks from documentation addresses of its own, so the other suites, which
 * sign in from 127.0.0.1, are never throttled by this one.
 */
import { beforeAll, describe, expect, inject, it } from "vitest";
import { credentialsSignIn, csrfOf, DEMO_PASSWORD } from "../helpers/http";

describe.each(inject("servers"))("sign-in throttling on the $name server", (server) => {
  let csrf: { token: string; cookie: string };

  beforeAll(async () => {
    csrf = await csrfOf(server.url);
  });

  /** One Credentials sign-in from `client`; whether it opened a session. */
  const attempt = (email: string, password: string, client: string) => credentialsSignIn(server.url, csrf, { email, password, client });

  it("answers the sixth attempt after 5 wrong passwords with 429 and Retry-After, even with the right password; other clients and emails still sign in", async () => {
    const client = "203.0.113.10";
    for (let i = 0; i < 5; i++) {
      const { res, signedIn } = await attempt("alice@acme.test", `wrong-${i}`, client);
      expect(res.status).toBe(302);
      expect(signedIn).toBe(false);
    }
    const sixth = await attempt("Alice@acme.test", DEMO_PASSWORD, client);
    expect(sixth.res.status).toBe(429);
    expect(sixth.signedIn).toBe(false);
    const retryAfter = Number(sixth.res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(await sixth.res.json()).toMatchObject({
      error: { code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/^Too many failed sign-ins/) },
    });
    // Still refused while the window lasts.
    expect((await attempt("alice@acme.test", DEMO_PASSWORD, client)).res.status).toBe(429);

    // The same email from another client, and another email from this client, are not affected.
    expect(await attempt("alice@acme.test", DEMO_PASSWORD, "203.0.113.11")).toMatchObject({ signedIn: true });
    expect(await attempt("bob@acme.test", DEMO_PASSWORD, client)).toMatchObject({ signedIn: true });
  });

  it("counts only failures: wrong passwords followed by the right one start the count over", async () => {
    const client = "203.0.113.12";
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expect((await attempt("carol@acme.test", "wrong", client)).res.status).toBe(302);
      expect(await attempt("carol@acme.test", DEMO_PASSWORD, client)).toMatchObject({ signedIn: true });
    }
  });

  it("answers 200 parallel wrong attempts from one client quickly, never with a 5xx, and stays responsive", async () => {
    const client = "203.0.113.20";
    const burst = Promise.all(
      Array.from({ length: 200 }, (_, i) => attempt(`nobody-${i}@example.test`, "wrong", client).then(({ res }) => res.status)),
    );
    // While the burst is being answered, the server still answers others.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);

    const statuses = await burst;
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 302 || s === 429)).toBe(true);
    // At most 50 failures from one client are checked; the rest are refused without a password check.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(150);
    // The client is throttled now, whatever the email.
    expect((await attempt("dave@acme.test", "wrong", client)).res.status).toBe(429);
  });
});
