/**
 * Where to go after signing in: only a path on this site. Anything else — absolute URLs,
 * protocol-relative `//host`, `/\host` (browsers read a backslash as a slash), control
 * characters, repeated parameters — falls back to the chat.
 */
const BASE = "http://harbor.invalid";

export function safeReturnPath(value: unknown): string {
  if (typeof value !== "string" || !value.startsWith("/") || /[\\\u0000-\u001f\u007f]/.test(value)) return "/chat";
  try {
    const url = new URL(value, BASE);
    return url.origin === BASE ? `${url.pathname}${url.search}${url.hash}` : "/chat";
  } catch {
    // Unparseable input is simply not a place to return to.
    return "/chat";
  }
}
