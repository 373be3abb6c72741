// One lint config for the repository. Besides the usual rule sets it encodes the layering in
// docs/architecture.md (Layers): app → server/api | server/transport → server/runtime → server/db, everything may
// import server/domain, and components see only the domain and the types tRPC infers.
import js from "@eslint/js";
import nextPlugin from "@next/eslint-plugin-next";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";
import { layers } from "./eslint.layers.mjs";

/** The runtime's only public face is its index. */
const runtimeInternals = {
  group: ["@/server/runtime/*", "**/server/runtime/*"],
  message: "Import the runtime through '@/server/runtime' (its index is its only public face).",
};
/** SQL lives in server/db/queries and nowhere else. */
const sqlOutsideDb = {
  name: "drizzle-orm",
  message: "SQL lives in server/db/queries: call a named query instead.",
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      ".test-data/",
      ".upgrade/",
      "test-results/",
      "screenshots/",
      "next-env.d.ts",
      "server/db/migrations/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      "no-restricted-imports": ["error", { patterns: [runtimeInternals] }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks, "@next/next": nextPlugin },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...nextPlugin.configs.recommended.rules,
      ...nextPlugin.configs["core-web-vitals"].rules,
    },
  },
  {
    // Components render what the API gives them: no server internals, only the vocabulary and types.
    files: ["components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/server/*", "!@/server/domain", "!@/server/domain/*", "!@/server/api", "!@/server/api/root"],
              message: "Components import only '@/server/domain' and the router's types ('@/server/api/root', type-only).",
            },
            {
              group: ["@/server/api", "@/server/api/root"],
              allowTypeImports: true,
              message: "Only the router's types, with 'import type'.",
            },
          ],
        },
      ],
    },
  },
  {
    // The core: no HTTP, no React, no SQL, and nothing from the layers above it.
    files: ["server/runtime/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [sqlOutsideDb, { name: "react", message: "The runtime renders nothing." }],
          patterns: [
            { group: ["next", "next/*", "next-auth", "next-auth/*"], message: "The runtime knows no HTTP framework." },
            {
              group: ["@/server/api", "@/server/api/*", "@/server/transport", "@/server/transport/*", "@/app/*", "@/components/*"],
              message: "Imports flow one way: app → api | transport → runtime → db.",
            },
          ],
        },
      ],
    },
  },
  {
    // The vocabulary depends on nothing.
    files: ["server/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/*", "drizzle-orm", "drizzle-orm/*", "next", "next/*", "react"],
              message: "server/domain depends on nothing but zod.",
            },
          ],
        },
      ],
    },
  },
  {
    // Edges stay thin: they call the runtime, never a query.
    files: ["app/**/*.{ts,tsx}", "server/api/**/*.ts", "server/transport/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [sqlOutsideDb],
          patterns: [runtimeInternals, { group: ["@/server/db/queries/*"], message: "Edges call the runtime, not queries." }],
        },
      ],
    },
  },
  {
    // Integrations behind runtime ports keep their own rows through named queries, never raw SQL.
    files: ["server/agents/**/*.ts", "server/oauth/**/*.ts", "server/a2a/**/*.ts", "server/auth/**/*.ts", "server/peers/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { paths: [sqlOutsideDb], patterns: [runtimeInternals] }],
    },
  },
  {
    // Switches over Harbor's closed unions name every member: a new kind, status or event fails
    // lint until each switch says what it means, instead of falling into a silent default.
    files: ["server/**/*.ts", "components/**/*.{ts,tsx}", "app/**/*.{ts,tsx}"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": [
        "error",
        { allowDefaultCaseForExhaustiveSwitch: false, considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    // Layering by path (eslint.layers.mjs): relative imports are held to it too.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "server/**/*.ts", "proxy.ts", "instrumentation.ts"],
    ...layers,
  },
  {
    files: ["tests/**/*.ts", "bench/**/*.ts"],
    rules: {
      // Tests reach into internals on purpose (a query counter, a runtime's parts).
      "no-restricted-imports": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
);
