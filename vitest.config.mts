import path from "node:path";
import { defineConfig } from "vitest/config";

// `server-only` throws outside React's server build; tests import server modules directly.
const alias = {
  "@": path.resolve(import.meta.dirname),
  "server-only": path.resolve(import.meta.dirname, "node_modules/server-only/empty.js"),
};
// next-auth imports `next/server` without an extension; inlining lets Vite resolve it.
const server = { deps: { inline: ["next-auth"] } };
// Runtime code logs failures on purpose in several tests; the tests assert on outcomes instead.
const env = { LOG_LEVEL: process.env.LOG_LEVEL ?? "silent" };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node", server, env },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          server,
          env,
          globalSetup: ["tests/helpers/pglite-template.setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "protocol",
          include: ["tests/protocol/**/*.test.ts"],
          environment: "node",
          server,
          globalSetup: ["tests/helpers/servers.setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/helpers/servers.setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
