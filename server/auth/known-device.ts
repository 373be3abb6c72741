/**
 * Browsers an account has signed in from. A right password sets a cookie naming the account by an
 * HMAC (the server secret), so sign-ins from that browser are not counted against the account's
 * own limit (`throttle.ts`): guesses from everywhere else can close the account to unknown
 * browsers for a while, never to the browser its owner uses (OWASP's "device cookies").
 *
 * The cookie holds a few entries (a shared browser serves a few accounts), each
 * `<issued, base36 seconds>.<HMAC of the email and the time>`, newest first. Neither the email nor
 * anything else readable is in it; an entry older than `KNOWN_DEVICE_DAYS` no longer counts.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { normalizeEmail } from "./throttle";

export const KNOWN_DEVICE_COOKIE = "harbor-known-device";
export const KNOWN_DEVICE_DAYS = 180;
export const KNOWN_DEVICE_MAX_AGE_S = KNOWN_DEVICE_DAYS * 24 * 60 * 60;
/** Accounts one browser is remembered for; a sign-in to another pushes the oldest out. */
const MAX_ENTRIES = 4;

function entryMac(secret: string, email: string, issuedS: number): string {
  return createHmac("sha256", secret)
    .update(["sign-in:known-device", normalizeEmail(email), String(issuedS)].join("\u0000"))
    .digest("base64url");
}

/** The cookie's entries, from a Cookie request header; at most MAX_ENTRIES, anything malformed dropped. */
function entriesOf(cookieHeader: string | null): string[] {
  for (const pair of (cookieHeader ?? "").split(";")) {
    const [name, ...rest] = pair.trim().split("=");
    if (name !== KNOWN_DEVICE_COOKIE) continue;
    return rest
      .join("=")
      .split("~")
      .filter((e) => /^[0-9a-z]{1,12}\.[\w-]{43}$/.test(e))
      .slice(0, MAX_ENTRIES);
  }
  return [];
}

function matches(secret: string, email: string, entry: string, nowS: number): boolean {
  const [issued, mac] = entry.split(".") as [string, string];
  const issuedS = parseInt(issued, 36);
  if (!(issuedS <= nowS && nowS - issuedS < KNOWN_DEVICE_MAX_AGE_S)) return false;
  const expected = Buffer.from(entryMac(secret, email, issuedS));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Whether the request's browser signed in to `email` before (within KNOWN_DEVICE_DAYS). */
export function isKnownDevice(secret: string, email: string, cookieHeader: string | null, now = Date.now()): boolean {
  const nowS = Math.floor(now / 1000);
  return entriesOf(cookieHeader).some((entry) => matches(secret, email, entry, nowS));
}

/**
 * The cookie's new value after `email` signed in from the request's browser: a fresh entry for it
 * first, its older ones dropped, the other accounts' kept up to the bound.
 */
export function rememberedDevice(secret: string, email: string, cookieHeader: string | null, now = Date.now()): string {
  const nowS = Math.floor(now / 1000);
  const fresh = `${nowS.toString(36)}.${entryMac(secret, email, nowS)}`;
  const others = entriesOf(cookieHeader).filter((entry) => !matches(secret, email, entry, nowS));
  return [fresh, ...others].slice(0, MAX_ENTRIES).join("~");
}

/** The Set-Cookie header for the value: HttpOnly, SameSite=Lax, Secure on https. */
export function knownDeviceSetCookie(value: string, secure: boolean): string {
  const attributes = [`Path=/`, `Max-Age=${KNOWN_DEVICE_MAX_AGE_S}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])];
  return [`${KNOWN_DEVICE_COOKIE}=${value}`, ...attributes].join("; ");
}
