/**
 * Checks every request passes before anything reads it further: JSON nested too deep (refused
 * before parsing — nothing recursive can overflow on it), text PostgreSQL cannot store, and
 * cookie-authenticated writes from another site.
 */
import { settings } from "@/server/config";
import type { EdgeRequest } from "@/server/edge/node-request";
import { findUnstorableText, HarborError, InvalidInputError, UNSTORABLE_TEXT_MESSAGE } from "@/server/runtime";

/** How deep arrays and objects may nest in any JSON Harbor reads. */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of arrays and objects in JSON text, counted in one pass without parsing it. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * Parses JSON text after checking its depth and its strings; refusals name `field` (the body when
 * absent), or the path inside it of the string that cannot be stored.
 */
export function parseBoundedJson(text: string, field?: string): unknown {
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new InvalidInputError(field ?? "body", `nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input; the field name is all the caller needs.
    throw new InvalidInputError(field ?? "body", "is not valid JSON");
  }
  const unstorable = findUnstorableText(value);
  if (unstorable) {
    const path = field === undefined ? unstorable : unstorable === "body" ? field : `${field}.${unstorable}`;
    throw new InvalidInputError(path, UNSTORABLE_TEXT_MESSAGE);
  }
  return value;
}

/**
 * A write a browser made on its own, with the session cookie, from another site: refused. Bearer
 * tokens are exempt (a browser never attaches them by itself), and so are requests that say
 * nothing of where they come from (programs: curl, the stock AG-UI clients).
 */
export function crossSiteRefusal(request: Pick<EdgeRequest, "method" | "headers">): HarborError | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  if (/^bearer\s/i.test(request.headers.get("authorization") ?? "")) return undefined;
  const refusal = new HarborError("FORBIDDEN", "Cross-site request refused: this request did not come from Harbor's own pages.");
  if (request.headers.get("sec-fetch-site") === "cross-site") return refusal;
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return refusal;
  }
  const hosts = [request.headers.get("x-forwarded-host"), request.headers.get("host")].filter(Boolean);
  const publicUrl = settings().publicUrl;
  if (hosts.includes(from.host) || (publicUrl !== undefined && new URL(publicUrl).origin === from.origin)) return undefined;
  return refusal;
}
