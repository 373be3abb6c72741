/**
 * Sign-in limits that cannot be turned against the person they protect. A flood of others' bad
 * sign-ins that fills the password checks is answered 429 ("busy"), never Auth.js's
 * `error=Configuration`, and the refused attempts are not counted as failures, so carol is not
 * locked out afterwards. Guesses for one account from ever new addresses (no proxy in front, so
 * each claims its own X-Forwarded-For) close it to unknown browsers, but not to the browser carol
 * signed in from before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentialsSignIn, csrfOf, DEMO_PASSWORD } from "../helpers/http";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

const ACCOUNT_FAILURES = 10;
const DEVICE_COOKIE = "harbor-known-device";

describe.each(OWN_ENGINES)("sign-in limits that lock nobody out on $name", ({ name }) => {
  let server: OwnServer;
  let csrf: { token: string; cookie: string };

  beforeAll(async () => {
    server = await startOwnServer(name, "sign-in-lockout", { HARBOR_SIGNIN_ACCOUNT_FAILURES: String(ACCOUNT_FAILURES) });
    csrf = await csrfOf(server.url);
  });

  afterAll(async () => {
    await server?.dispose();
  });

  /** One Credentials sign-in from `client`, with extra cookies; the known-device cookie it set, if any. */
  async function attempt(email: string, password: string, client: string, cookies: string[] = []) {
    const answer = await credentialsSignIn(server.url, csrf, { email, password, client, cookies });
    return { ...answer, device: answer.set.find((c) => c.startsWith(`${DEVICE_COOKIE}=`)) };
  }

  it("answers a flood that fills the password checks with 429, never error=Configuration, and does not count it against carol", async () => {
    const flood = Promise.all(Array.from({ length: 150 }, (_, i) => attempt(`nobody-${i}@example.test`, "wrong", `198.51.100.${i}`)));
    // carol signs in from her own address while the checks are full: each try either works or is refused for load.
    // Her tries stay under the per-email limit (5): every attempt is counted before its password is checked, so
    // more parallel tries than that from one browser are refused as guesses would be, whatever the password.
    const carolsTries = await Promise.all(Array.from({ length: 4 }, () => attempt("carol@acme.test", DEMO_PASSWORD, "203.0.113.77")));
    const answers = [...(await flood), ...carolsTries];

    expect(answers.filter((a) => a.location.includes("error=Configuration")).map((a) => a.location)).toEqual([]);
    expect(answers.every((a) => a.status === 302 || a.status === 429)).toBe(true);
    const busy = answers.filter((a) => a.status === 429);
    expect(busy.length, "the flood filled the password checks").toBeGreaterThan(0);
    for (const refusal of busy) {
      expect(refusal.res.headers.get("retry-after")).toBe("1");
      expect(await refusal.res.json()).toMatchObject({
        error: { code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/too many sign-ins at once/) },
      });
    }
    for (const tried of carolsTries) expect(tried.signedIn || tried.status === 429).toBe(true);

    // Once the flood is over, nothing of it was counted against carol.
    for (let i = 0; i < 3; i++) expect(await attempt("carol@acme.test", DEMO_PASSWORD, "203.0.113.77")).toMatchObject({ signedIn: true });
  });

  it(`closes an account to unknown browsers after ${ACCOUNT_FAILURES} wrong passwords from as many addresses, but not to the browser its owner uses`, async () => {
    const own = await attempt("bob@acme.test", DEMO_PASSWORD, "203.0.113.90");
    expect(own.signedIn).toBe(true);
    expect(own.device).toMatch(new RegExp(`^${DEVICE_COOKIE}=[0-9a-z]+\\.[\\w-]{43}$`));
    expect(own.res.headers.getSetCookie().find((c) => c.startsWith(DEVICE_COOKIE))).toMatch(/HttpOnly/i);

    for (let i = 0; i < ACCOUNT_FAILURES; i++) {
      expect(await attempt("bob@acme.test", `guess-${i}`, `192.0.2.${i + 1}`)).toMatchObject({ status: 302, signedIn: false });
    }
    const next = await attempt("bob@acme.test", "guess-next", "192.0.2.200");
    expect(next.status).toBe(429);
    expect(Number(next.res.headers.get("retry-after"))).toBeGreaterThan(60);
    // The right password from a browser bob never used is refused too, while the window lasts …
    expect((await attempt("BOB@acme.test", DEMO_PASSWORD, "192.0.2.201")).status).toBe(429);
    // … a forged or another account's cookie does not help …
    expect(
      (await attempt("bob@acme.test", DEMO_PASSWORD, "192.0.2.202", [`${DEVICE_COOKIE}=${"1".repeat(6)}.${"A".repeat(43)}`])).status,
    ).toBe(429);
    const alices = await attempt("alice@acme.test", DEMO_PASSWORD, "203.0.113.91");
    expect((await attempt("bob@acme.test", DEMO_PASSWORD, "192.0.2.203", [alices.device!])).status).toBe(429);
    // … but bob's own browser signs in, from any address, and other accounts are not affected.
    expect(await attempt("bob@acme.test", DEMO_PASSWORD, "192.0.2.204", [own.device!])).toMatchObject({ signedIn: true });
    expect(await attempt("carol@acme.test", DEMO_PASSWORD, "192.0.2.205")).toMatchObject({ signedIn: true });
  });
});
