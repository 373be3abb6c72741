/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and data files from its own package folder: bundling it breaks the first open.
  // pino and pg are Node-only libraries that gain nothing from bundling.
  serverExternalPackages: ["@electric-sql/pglite", "pino", "pg", "oidc-provider", "@a2a-js/sdk", "express"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
