/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and data files from its own package folder: bundling it breaks the first open.
  // pino and pg are Node-only libraries that gain nothing from bundling.
  serverExternalPackages: ["@electric-sql/pglite", "pino", "pg", "oidc-provider", "@a2a-js/sdk", "express"],
  poweredByHeader: false,
  reactStrictMode: true,
  // Every page and answer: nothing may frame Harbor (its Approve buttons), no MIME sniffing, no
  // full URLs leaking to other sites, scripts and connections only from Harbor itself.
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  // Next.js bootstraps each page with inline scripts.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: CONTENT_SECURITY_POLICY },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
];

export default nextConfig;
