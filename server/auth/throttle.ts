/**
 * Sign-in throttling (README, "Limits and protections"): more than `failures` failed sign-ins for
 * one email from one client within the window, or more than `clientFailures` from one client for
 * any emails, and sign-in is refused — even with the right password — until the window passes.
 * More than `accountFailures` for one email from clients it does not know (whatever addresses they
 * claim) and that email is refused to unknown clients too; a browser the account signed in from
 * before (`known-device.ts`) is not counted there, so a flood cannot lock its owner out.
 *
 * Every attempt is counted before its password is checked, so a burst of parallel guesses cannot
 * slip past the count; a right password then resets the email's counter and gives the client its
 * attempt back, so only failures stay counted. An attempt refused before its password was checked
 * (the hashing gate was full) is given back too.
 *
 * Counters are keyed by an HMAC (the server secret) of the normalised email and the client address:
 * neither the email nor the address is stored. On PostgreSQL they live in `sign_in_failures`
 * (shared by every Harbor process; a database hiccup falls back to this process's memory); on the
 * embedded database, which has one process, in memory.
 */
import { createHmac } from "node:crypto";
import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from "rate-limiter-flexible";

export interface SignInLimits {
  /** Failed sign-ins allowed for one email from one client within the window. */
  failures: number;
  /** Failed sign-ins allowed from one client, whatever the email, within the window. */
  clientFailures: number;
  /** Failed sign-ins allowed for one email from clients it does not know, whatever their addresses. */
  accountFailures: number;
  windowSeconds: number;
}

/** The counters' keys for one attempt: HMACs, so neither the email nor the address is kept. */
export interface ThrottleKeys {
  emailAndClient: string;
  client: string;
  /** The email's own counter; null for a browser the account knows, which is not counted there. */
  account: string | null;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignInThrottle {
  /** Counts an attempt before its password is checked; refused, with the seconds until it may be tried again. */
  attempt(keys: ThrottleKeys): Promise<AttemptVerdict>;
  /** The password was right: the email's counter starts over and the client's attempt is given back. */
  succeeded(keys: ThrottleKeys): Promise<void>;
  /** The password was never checked: the attempt is given back. */
  withdrawn(keys: ThrottleKeys): Promise<void>;
}

/** Emails compare trimmed and lower-cased (as sign-in looks them up). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function throttleKeys(secret: string, email: string, client: string, knownDevice = false): ThrottleKeys {
  const mac = (...parts: string[]) => createHmac("sha256", secret).update(parts.join("\u0000")).digest("base64url");
  return {
    emailAndClient: mac("sign-in:email+client", normalizeEmail(email), client),
    client: mac("sign-in:client", client),
    account: knownDevice ? null : mac("sign-in:account", normalizeEmail(email)),
  };
}

/** A limiter's refusal (a RateLimiterRes), told by its shape: the class may come from another bundle's copy. */
function refusalWait(reason: unknown): number | undefined {
  if (typeof reason !== "object" || reason === null || reason instanceof Error) return undefined;
  const wait = (reason as { msBeforeNext?: unknown }).msBeforeNext;
  return typeof wait === "number" ? wait : undefined;
}

/**
 * The client a request comes from: the `hops`-th X-Forwarded-For entry counted from the right.
 *
 * Route handlers never see the socket, but `next start` writes the socket's address into
 * X-Forwarded-For when a request comes without one, so with no proxy the last entry is the peer.
 * A proxy in front appends (or sets) the address it saw, so with one proxy the last entry is still
 * the one to trust, and with two (say a CDN, then a load balancer) the second from the right. The
 * entries left of those are whatever the client claimed and are never used. With nothing in front,
 * a client can send its own X-Forwarded-For and pick its address: put Harbor behind a proxy that
 * sets the header when it faces the internet (the per-email limit then holds per address, and the
 * hashing gate holds regardless).
 */
export function clientAddress(headers: Headers, hops = 1): string {
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const entry = entries[Math.max(entries.length - hops, 0)];
  return entry ? entry.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "").toLowerCase() : "unknown";
}

export function createSignInThrottle(limits: SignInLimits, store: { pool?: pg.Pool } = {}): SignInThrottle {
  const limiter = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const options = { keyPrefix, points, duration: limits.windowSeconds };
    if (!store.pool) return new RateLimiterMemory(options);
    // The table comes with the migrations (0010); the library only reads and writes it.
    return new RateLimiterPostgres({
      ...options,
      storeClient: store.pool,
      storeType: "pool",
      tableName: "sign_in_failures",
      tableCreated: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  };
  const perEmail = limiter("email+client", limits.failures);
  const perClient = limiter("client", limits.clientFailures);
  const perAccount = limiter("account", limits.accountFailures);
  /** The longest wait any of the limiters asked for, or -1 when they all let the attempt through. */
  const longestWait = async (consumed: Promise<unknown>[]): Promise<number> => {
    let waitMs = -1;
    for (const answer of await Promise.allSettled(consumed)) {
      if (answer.status === "fulfilled") continue;
      // The library rejects with a RateLimiterRes when the limit is exceeded, with an Error when its store fails.
      const wait = refusalWait(answer.reason);
      if (wait === undefined) throw answer.reason;
      waitMs = Math.max(waitMs, wait);
    }
    return waitMs;
  };
  const giveBackToAccount = (keys: ThrottleKeys) => (keys.account === null ? Promise.resolve() : perAccount.reward(keys.account, 1));

  return {
    async attempt(keys) {
      const refused = await longestWait([perEmail.consume(keys.emailAndClient), perClient.consume(keys.client)]);
      // The account's own counter takes only attempts the client's limits let through: one client
      // counts at most `failures` against an account, so closing it takes many addresses.
      const accountRefused = refused < 0 && keys.account !== null ? await longestWait([perAccount.consume(keys.account)]) : -1;
      const waitMs = Math.max(refused, accountRefused);
      return waitMs < 0 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
    async succeeded(keys) {
      await Promise.all([perEmail.delete(keys.emailAndClient), perClient.reward(keys.client, 1), giveBackToAccount(keys)]);
    },
    async withdrawn(keys) {
      await Promise.all([perEmail.reward(keys.emailAndClient, 1), perClient.reward(keys.client, 1), giveBackToAccount(keys)]);
    },
  };
}
