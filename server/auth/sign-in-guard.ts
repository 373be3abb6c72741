/**
 * Where the sign-in throttle and the password-hashing gate meet Auth.js. The Credentials provider's
 * `authorize` checks a password through `guardedSignIn`, which both ways of signing in pass
 * through (the `/api/auth/callback/credentials` route and the sign-in page's server action).
 *
 * Auth.js turns any sign-in error into a redirect, so a refusal is also noted for the request
 * (`withSignInRefusals`, wrapped around the route's POST), which answers it as a 429 with
 * `Retry-After` instead; the server action shows the refusal's sentence. A sign-in that succeeded
 * is noted the same way, so the browser is remembered for the account (`known-device.ts`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { CredentialsSignin } from "next-auth";
import { settings } from "@/server/config";
import { databaseHandle } from "@/server/db";
import { log } from "@/server/log";
import { isKnownDevice, knownDeviceSetCookie, rememberedDevice } from "./known-device";
import { PasswordHashingBusy } from "@/server/crypto/password";
import { authSecret } from "./secret";
import { clientAddress, createSignInThrottle, throttleKeys, type SignInThrottle } from "./throttle";

export { KNOWN_DEVICE_COOKIE, KNOWN_DEVICE_MAX_AGE_S } from "./known-device";

const REFUSED = Symbol.for("harbor.signInRefused");

/** Sign-in refused before the password was looked at: too many failures, or too many checks at once. */
export class SignInRefused extends CredentialsSignin {
  readonly [REFUSED] = true;

  /** True for a refusal from any bundle's copy of this module. */
  static is(value: unknown): value is SignInRefused {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[REFUSED] === true;
  }

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
/** What became of the sign-in a request made: refused before the password was checked, or signed in as `email`. */
export interface SignInOutcome {
  refused?: SignInRefused;
  signedIn?: string;
}
type Holder = { [THROTTLE]?: Promise<SignInThrottle>; [REFUSALS]?: AsyncLocalStorage<SignInOutcome> };
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
 * (`check` answers the user) resets the count, a wrong one (`undefined`) stays counted. A check
 * that failed without an answer (the hashing gate was full, the database hiccuped) is given back:
 * only a wrong password counts.
 */
export async function guardedSignIn<T>(email: string, headers: Headers, check: () => Promise<T | undefined>): Promise<T> {
  const secret = authSecret();
  const known = isKnownDevice(secret, email, headers.get("cookie"));
  const keys = throttleKeys(secret, email, clientAddress(headers, settings().forwardedForHops), known);
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
    await throttle.withdrawn(keys);
    if (!PasswordHashingBusy.is(error)) throw error;
    log.warn("sign-in refused: too many password checks at once");
    throw refuse(new SignInRefused("busy", 1));
  }
  if (user === undefined) throw new CredentialsSignin();
  await throttle.succeeded(keys);
  const slot = refusals.getStore();
  if (slot) slot.signedIn = email;
  return user;
}

function refuse(refusal: SignInRefused): SignInRefused {
  const slot = refusals.getStore();
  if (slot) slot.refused = refusal;
  return refusal;
}

/** Runs a sign-in (Auth.js's handler or its `signIn`), noting in `outcome` what became of it. */
export function noteSignIn<T>(outcome: SignInOutcome, work: () => Promise<T>): Promise<T> {
  return refusals.run(outcome, work);
}

/** Whether the request came over https (to the proxy in front, or to Harbor itself). */
export function isSecureRequest(headers: Headers, url?: string): boolean {
  const forwarded = headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return (forwarded ?? (url ? new URL(url).protocol.replace(/:$/, "") : "http")) === "https";
}

/** The known-device cookie's value once the request's browser signed in to `email`. */
export function rememberedDeviceValue(email: string, headers: Headers): string {
  return rememberedDevice(authSecret(), email, headers.get("cookie"));
}

/**
 * Runs Auth.js's POST handler; a sign-in it refused for the throttle or the gate answers 429 with
 * Retry-After, and a successful one also remembers the browser for the account.
 */
export async function withSignInRefusals<R extends Request>(request: R, handler: (request: R) => Promise<Response>): Promise<Response> {
  const slot: SignInOutcome = {};
  const response = await noteSignIn(slot, () => handler(request));
  if (slot.signedIn) {
    const headers = new Headers(response.headers);
    const value = rememberedDeviceValue(slot.signedIn, request.headers);
    headers.append("set-cookie", knownDeviceSetCookie(value, isSecureRequest(request.headers, request.url)));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
  if (!slot.refused) return response;
  return Response.json(
    { error: { code: "TOO_MANY_REQUESTS", message: slot.refused.sentence } },
    { status: 429, headers: { "retry-after": String(slot.refused.retryAfterSeconds), "cache-control": "no-store" } },
  );
}
