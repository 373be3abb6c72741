/**
 * Loads oidc-provider for the demo's identity provider, without its two start-up warnings that a
 * newcomer running `npm run demo` cannot act on:
 *
 * - "Unsupported runtime" on Node 20: Harbor supports Node ≥ 20.19 (package.json's engines), and
 *   the tests run this provider on Node 20 in every lane.
 * - "in-memory adapter is used": the demo's provider is meant to forget everything with its
 *   process (see identity-provider.ts). Passing the memory adapter ourselves says so.
 *
 * Every other warning oidc-provider prints still reaches the console.
 */
// oidc-provider ships no type declarations; identity-provider.ts types the little it uses.
// @ts-expect-error -- untyped module, see above
import { createMemoryAdapter } from "oidc-provider/lib/adapters/memory_adapter.js";

const RUNTIME_WARNING = "oidc-provider WARNING: Unsupported runtime.";

/** oidc-provider's Provider constructor, imported with its runtime warning left out. */
export async function loadOidcProvider(): Promise<unknown> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].includes(RUNTIME_WARNING)) return;
    warn(...args);
  };
  try {
    // @ts-expect-error -- untyped module, see above
    const loaded: { default: unknown } = await import("oidc-provider");
    return loaded.default;
  } finally {
    console.warn = warn;
  }
}

/** A fresh in-memory store for one provider: its grants and tokens live and die with the process. */
export function memoryAdapter(): unknown {
  const create: () => unknown = createMemoryAdapter;
  return create();
}
