/**
 * Where the sign-in throttle and the password-hashing gate meet Auth.js. The Credentials provider's
 * `authorize` checks a password through `guardedSignIn`, which both ways of signing in pass
 * through (the `/api/auth/callback/credentials` route and the sign-in page's server action).
 *
 * Auth.js turns any sign-in error into a redirect, so a refusal is also noted for the request
 * (`withSignInRefusals`, wrapped around the route's POST), which answers it as a 429 with
 * `Retry-After` instead; the server action shows the refusal's sentence.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { CredentialsSignin } from "next-auth";
import { settings } from "@/server/config";
import { databaseHandle } from "@/server/db";
import { log } from "@/server/log";
import { PasswordHashingBusy } from "./password";
import { authSecret } from "./secret";
import { clientAddress, createSignInThrottle, throttleKeys, type SignInThrottle } from "./throttle";

/** Sign-in refused before the password was looked at: too many failures, or too many checks at once. */
export class SignInRefused extends CredentialsSignin {
  constructor(
    readonly reason: "throttled" | "busy",
    readonly retryAfterSeconds: number,
  ) {
    super();
    this.code = reason === "throttled" ? "rate_limited" : "busy";
  }

  /** What the person signing in reads. */
  get sentence(): string {
    if (this.reason === "busy") return "Harbor is checking too many sign-ins at once. Try again in a moment.";
    const minutes = Math.ceil(this.retryAfterSeconds / 60);
    return `Too many failed sign-ins. Try again in ${minutes === 1 ? "a minute" : `${minutes} minutes`}.`;
  }
}

const THROTTLE = Symbol.for("harbor.signInThrottle");
const REFUSALS = Symbol.for("harbor.signInRefusals");
type Holder = { [THROTTLE]?: Promise<SignInThrottle>; [REFUSALS]?: AsyncLocalStorage<{ refused?: SignInRefused }> };
const holder = globalThis as Holder;
// One of each per process, even when Next.js loads this module once per route bundle.
const refusals = (holder[REFUSALS] ??= new AsyncLocalStorage());

/** The process's throttle: counters in PostgreSQL when Harbor runs on it, in memory on the embedded database. */
function signInThrottle(): Promise<SignInThrottle> {
  if (!holder[THROTTLE]) {
    const opening = databaseHandle().then((handle) => createSignInThrottle(settings().signIn, { pool: handle.pool }));
    holder[THROTTLE] = opening;
    opening.catch(() => {
      if (holder[THROTTLE] === opening) delete holder[THROTTLE];
    });
  }
  return holder[THROTTLE];
}

/**
 * Checks one sign-in attempt for `email` from the request's client: counted first, refused when
 * over the limit (even with the right password), then `check` looks the password up; a right one
 * (`check` answers the user) resets the count, a wrong one (`undefined`) stays counted.
 */
export async function guardedSignIn<T>(email: string, headers: Headers, check: () => Promise<T | undefined>): Promise<T> {
  const keys = throttleKeys(authSecret(), email, clientAddress(headers, settings().forwardedForHops));
  const throttle = await signInThrottle();
  const verdict = await throttle.attempt(keys);
  if (!verdict.allowed) {
    // Neither the email nor the address is logged.
    log.warn({ retryAfterSeconds: verdict.retryAfterSeconds }, "sign-in throttled");
    throw refuse(new SignInRefused("throttled", verdict.retryAfterSeconds));
  }
  let user: T | undefined;
  try {
    user = await check();
  } catch (error) {
    if (!(error instanceof PasswordHashingBusy)) throw error;
    await throttle.withdrawn(keys);
    log.warn("sign-in refused: too many password checks at once");
    throw refuse(new SignInRefused("busy", 1));
  }
  if (user === undefined) throw new CredentialsSignin();
  await throttle.succeeded(keys);
  return user;
}

function refuse(refusal: SignInRefused): SignInRefused {
  const slot = refusals.getStore();
  if (slot) slot.refused = refusal;
  return refusal;
}

/** Runs Auth.js's POST handler; a sign-in it refused for the throttle or the gate answers 429 with Retry-After. */
export async function withSignInRefusals<R extends Request>(request: R, handler: (request: R) => Promise<Response>): Promise<Response> {
  const slot: { refused?: SignInRefused } = {};
  const response = await refusals.run(slot, () => handler(request));
  if (!slot.refused) return response;
  return Response.json(
    { error: { code: "TOO_MANY_REQUESTS", message: slot.refused.sentence } },
    { status: 429, headers: { "retry-after": String(slot.refused.retryAfterSeconds), "cache-control": "no-store" } },
  );
}
