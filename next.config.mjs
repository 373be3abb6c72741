import { API_POLICY, SECURITY_HEADERS } from "./server/ops/security-headers.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and data files from its own package folder: bundling it breaks the first open.
  // pino and pg are Node-only libraries that gain nothing from bundling; prom-client and
  // OpenTelemetry keep one registry / provider per process only when every route loads the same copy.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pino",
    "pg",
    "oidc-provider",
    "@a2a-js/sdk",
    "express",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-trace",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/core",
  ],
  poweredByHeader: false,
  reactStrictMode: true,
  // Every page and answer: nothing may frame Harbor (its Approve buttons), no MIME sniffing, no
  // full URLs leaking to other sites, scripts and connections only from Harbor itself (see
  // server/transport/page-policy.ts for the pages').
  async headers() {
    const withPolicy = (policy) => [...SECURITY_HEADERS, { key: "Content-Security-Policy", value: policy }];
    return [
      // Pages get their policy, with a fresh script nonce, from proxy.ts.
      { source: "/:path((?!api/).*)", headers: SECURITY_HEADERS },
      // Sign-in and OAuth answers under /api can be pages (Auth.js's error page, a provider's callback).
      { source: "/api/(auth|oauth)/:path*", headers: withPolicy(API_PAGE_POLICY) },
      { source: "/api/:path((?!(?:auth|oauth)(?:/|$)).*)", headers: withPolicy(API_POLICY) },
    ];
  },
};

/** Auth.js's and OAuth's pages under /api: plain HTML, inline styles, scripts only from files of Harbor's. */
const API_PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export default nextConfig;
