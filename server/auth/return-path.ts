/**
 * Where to go after signing in: only a path on this site. Anything else — absolute URLs,
 * protocol-relative `//host`, `/\host` (browsers read a backslash as a slash), control
 * characters, repeated parameters — falls back to the chat. The path is checked again after
 * normalising, which turns `/..//host` (or `/%2e%2e//host`) into `//host`.
 */
const BASE = "http://harbor.invalid";
export const DEFAULT_RETURN_PATH = "/chat";

/** C0 controls and DEL: a browser may drop them, and what is left may name another host. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code <= 0x1f || code === 0x7f) return true;
  }
  return false;
}

export function safeReturnPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.includes("\\") || hasControlCharacter(value)) return DEFAULT_RETURN_PATH;
  try {
    const url = new URL(value, BASE);
    const path = `${url.pathname}${url.search}${url.hash}`;
    return url.origin === BASE && !path.startsWith("//") ? path : DEFAULT_RETURN_PATH;
  } catch {
    // Unparseable input is simply not a place to return to.
    return DEFAULT_RETURN_PATH;
  }
}

/**
 * The request header `proxy.ts` puts the requested page's path in, so that a layout (which is not
 * told its URL) can send a signed-out visitor to sign in and back to that page.
 */
export const REQUESTED_PATH_HEADER = "x-harbor-requested-path";

/** The page a request asked for, as a return path: its path and query, without Next's `_rsc` cache key. */
export function requestedPath(url: URL): string {
  const search = new URLSearchParams(url.search);
  search.delete("_rsc");
  const query = search.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}
