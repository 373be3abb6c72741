import { describe, expect, it, vi } from "vitest";
import { boundedGate, PasswordHashingBusy } from "@/server/crypto/password";
import { clientAddress, createSignInThrottle, throttleKeys } from "@/server/auth/throttle";

const SECRET = "a-secret-for-the-throttle-tests";
const limits = { failures: 5, clientFailures: 8, accountFailures: 1000, windowSeconds: 900 };

describe("sign-in throttle keys", () => {
  it("are HMACs of the normalised email and the client: the same for the same pair, never the email itself", () => {
    const keys = throttleKeys(SECRET, "Alice@Acme.test ", "10.0.0.1");
    expect(keys).toEqual(throttleKeys(SECRET, "alice@acme.test", "10.0.0.1"));
    expect(JSON.stringify(keys)).not.toMatch(/alice|acme|10\.0\.0\.1/i);
    expect(keys.emailAndClient).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(throttleKeys(SECRET, "alice@acme.test", "10.0.0.2").emailAndClient).not.toBe(keys.emailAndClient);
    expect(throttleKeys(SECRET, "bob@acme.test", "10.0.0.1").emailAndClient).not.toBe(keys.emailAndClient);
    expect(throttleKeys(SECRET, "bob@acme.test", "10.0.0.1").client).toBe(keys.client);
    expect(throttleKeys("another-secret-entirely", "alice@acme.test", "10.0.0.1")).not.toEqual(keys);
  });
});

describe("the client address", () => {
  const from = (xff?: string, hops?: number) => clientAddress(new Headers(xff === undefined ? {} : { "x-forwarded-for": xff }), hops);

  it("is the last X-Forwarded-For entry (what next start writes from the socket, or what one proxy appends)", () => {
    expect(from("10.0.0.1")).toBe("10.0.0.1");
    expect(from("6.6.6.6, 10.0.0.1")).toBe("10.0.0.1");
    expect(from("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(from("2001:DB8::1")).toBe("2001:db8::1");
  });

  it("counts trusted hops from the right, and never reads further left than the first entry", () => {
    expect(from("6.6.6.6, 10.0.0.1, 192.168.0.9", 2)).toBe("10.0.0.1");
    expect(from("10.0.0.1", 3)).toBe("10.0.0.1");
  });

  it("is 'unknown' without the header", () => {
    expect(from()).toBe("unknown");
    expect(from(" , ")).toBe("unknown");
  });
});

describe("the sign-in throttle (in memory)", () => {
  const alice = throttleKeys(SECRET, "alice@acme.test", "10.0.0.1");

  it("refuses the attempt after 5 failures for one email from one client, with the seconds left in the window", async () => {
    const throttle = createSignInThrottle(limits);
    for (let i = 0; i < 5; i++) expect(await throttle.attempt(alice)).toEqual({ allowed: true });
    const refused = await throttle.attempt(alice);
    expect(refused.allowed).toBe(false);
    expect(refused.allowed ? undefined : refused.retryAfterSeconds).toBeGreaterThan(890);
    expect(refused.allowed ? undefined : refused.retryAfterSeconds).toBeLessThanOrEqual(900);
    // Another client for the same email, and another email from the same client, are not affected.
    expect(await throttle.attempt(throttleKeys(SECRET, "alice@acme.test", "10.0.0.2"))).toEqual({ allowed: true });
    expect(await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", "10.0.0.1"))).toEqual({ allowed: true });
  });

  it("counts only failures: a right password starts the email's count over and gives the client its attempt back", async () => {
    const throttle = createSignInThrottle({ ...limits, clientFailures: 50 });
    for (let i = 0; i < 4; i++) await throttle.attempt(alice);
    expect(await throttle.attempt(alice)).toEqual({ allowed: true });
    await throttle.succeeded(alice);
    for (let i = 0; i < 5; i++) expect(await throttle.attempt(alice)).toEqual({ allowed: true });
    expect(await throttle.attempt(alice)).toMatchObject({ allowed: false });

    const strict = createSignInThrottle({ ...limits, clientFailures: 3 });
    for (let i = 0; i < 10; i++) {
      const keys = throttleKeys(SECRET, `user${i}@acme.test`, "10.0.0.5");
      expect(await strict.attempt(keys)).toEqual({ allowed: true });
      await strict.succeeded(keys);
    }
  });

  it("refuses a client after too many failures across emails, and gives back withdrawn attempts", async () => {
    const throttle = createSignInThrottle(limits);
    const keysFor = (i: number) => throttleKeys(SECRET, `user${i}@acme.test`, "10.0.0.9");
    for (let i = 0; i < 8; i++) expect(await throttle.attempt(keysFor(i))).toEqual({ allowed: true });
    await throttle.withdrawn(keysFor(7));
    expect(await throttle.attempt(keysFor(8))).toEqual({ allowed: true });
    expect(await throttle.attempt(keysFor(9))).toMatchObject({ allowed: false });
  });
});

describe("the account's own counter", () => {
  const accountLimits = { failures: 5, clientFailures: 1000, accountFailures: 3, windowSeconds: 900 };

  it("refuses an email tried from ever new clients after its limit, but not a browser the account knows", async () => {
    const throttle = createSignInThrottle(accountLimits);
    for (let i = 0; i < 3; i++)
      expect(await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", `10.1.0.${i}`))).toEqual({ allowed: true });
    expect(await throttle.attempt(throttleKeys(SECRET, "Bob@Acme.test", "10.1.0.99"))).toMatchObject({ allowed: false });
    expect(await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", "10.1.0.98", true))).toEqual({ allowed: true });
    expect(await throttle.attempt(throttleKeys(SECRET, "carol@acme.test", "10.1.0.97"))).toEqual({ allowed: true });
  });

  it("counts against the account only what the client's own limits let through: one client cannot close it", async () => {
    const throttle = createSignInThrottle({ ...accountLimits, accountFailures: 6 });
    const one = throttleKeys(SECRET, "bob@acme.test", "10.3.0.1");
    for (let i = 0; i < 30; i++) await throttle.attempt(one);
    expect(await throttle.attempt(one)).toMatchObject({ allowed: false });
    // The one client spent 5 of the account's 6: another client still gets the last.
    expect(await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", "10.3.0.2"))).toEqual({ allowed: true });
    expect(await throttle.attempt(throttleKeys(SECRET, "bob@acme.test", "10.3.0.3"))).toMatchObject({ allowed: false });
  });

  it("gives back attempts that were right or never checked", async () => {
    const throttle = createSignInThrottle(accountLimits);
    for (let i = 0; i < 10; i++) {
      const keys = throttleKeys(SECRET, "bob@acme.test", `10.2.0.${i}`);
      expect(await throttle.attempt(keys)).toEqual({ allowed: true });
      await (i % 2 === 0 ? throttle.succeeded(keys) : throttle.withdrawn(keys));
    }
  });
});

describe("a refusal for load", () => {
  it("is recognised by its code, also when it comes from another copy of the module (another route's bundle)", async () => {
    vi.resetModules();
    const other = await import("@/server/crypto/password");
    expect(other.PasswordHashingBusy).not.toBe(PasswordHashingBusy);
    const fromElsewhere = new other.PasswordHashingBusy();
    expect(fromElsewhere instanceof PasswordHashingBusy).toBe(false);
    expect(PasswordHashingBusy.is(fromElsewhere)).toBe(true);
    expect(PasswordHashingBusy.is(new Error("Too many password checks at once."))).toBe(false);
    expect(PasswordHashingBusy.is({ code: "PASSWORD_HASHING_BUSY" })).toBe(false);
  });
});

describe("the password-hashing gate", () => {
  it("runs a few at once, lets a bounded number wait, and refuses the rest at once", async () => {
    const gate = boundedGate(2, 3);
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const work = () =>
      new Promise<void>((resolve) => {
        running++;
        most = Math.max(most, running);
        releases.push(() => {
          running--;
          resolve();
        });
      });
    const admitted = Array.from({ length: 5 }, () => gate.run(work));
    await expect(gate.run(work)).rejects.toBeInstanceOf(PasswordHashingBusy);
    expect(gate.active).toBe(2);
    expect(gate.waiting).toBe(3);
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all(admitted);
    expect(most).toBe(2);
    await expect(gate.run(async () => "free again")).resolves.toBe("free again");
  });
});
