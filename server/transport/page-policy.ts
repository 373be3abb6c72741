/**
 * The Content-Security-Policy of Harbor's pages. Scripts run only with this response's nonce:
 * Next.js reads it from the request's policy (set by `proxy.ts`) and puts it on every script it
 * renders, and `'strict-dynamic'` lets those scripts load the page's chunks. No inline script
 * without the nonce runs, so injected markup cannot run code. Styles keep `'unsafe-inline'`
 * (React's style attributes need it; styles cannot run code).
 */
export function pagePolicy(nonce: string, development = false): string {
  return [
    "default-src 'self'",
    // Next.js's development server evaluates modules; a production build never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A fresh nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
}
