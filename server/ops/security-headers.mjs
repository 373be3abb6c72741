// The headers every answer carries (no framing, no MIME sniffing, no full URLs leaking to other
// sites), and the API's content policy: it renders nothing, so it allows nothing. Plain JavaScript,
// because next.config.mjs applies them to what Next.js serves, and the health checks answered
// before Next.js (answer-first.ts) carry the same.

// Kept free of colons on purpose: Next.js compiles a header value that holds one (the pages'
// `data:` sources) as a path pattern on every request it applies to — a few per cent of a chat
// turn's time, spent on a constant.
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

export const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];
