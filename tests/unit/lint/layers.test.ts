/**
 * The layering is enforced by path (eslint.layers.mjs), so a relative import is held to it like an
 * aliased one. Each case lints one import as if it were written in a file at `filePath`.
 */
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// Probes are not files of the TypeScript project: the type-aware rule (and its parser service) is off.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: { "@typescript-eslint/switch-exhaustiveness-check": "off" },
  },
});

async function layerErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport const used = imported;\n`, { filePath });
  return (result?.messages ?? []).filter((m) => m.fatal === true || m.ruleId?.startsWith("boundaries/")).map((m) => m.message);
}

describe("the layering rules", { timeout: 30_000 }, () => {
  // The first lint loads the plugins and the TypeScript resolver: seconds on a busy machine.
  beforeAll(() => layerErrors("server/domain/probe.ts", "const imported = 1;"), 60_000);

  it.each([
    [
      "a lower runtime room importing a higher one, relatively",
      "server/runtime/access/probe.ts",
      'import { runService as imported } from "../runs";',
    ],
    [
      "a room reaching past another room's index",
      "server/runtime/runs/probe.ts",
      'import { createCoordinator as imported } from "../pause/coordinator";',
    ],
    ["the database layer importing the runtime", "server/db/probe.ts", 'import { createRuntime as imported } from "../runtime";'],
    ["the vocabulary importing the database", "server/domain/probe.ts", 'import { schema as imported } from "../db";'],
    ["the runtime importing an edge", "server/runtime/log/probe.ts", 'import { createContext as imported } from "../../api/trpc";'],
    ["a component importing the runtime", "components/chat/probe.ts", 'import { createRuntime as imported } from "../../server/runtime";'],
    ["an agent importing the database", "server/agents/probe.ts", 'import { listOutbox as imported } from "../db/queries/outbox";'],
    ["tRPC importing the AG-UI route", "server/api/probe.ts", 'import { handleAgentRun as imported } from "../transport/agui-route";'],
  ])("refuses %s", async (_case, filePath, source) => {
    expect((await layerErrors(filePath, source)).join("\n")).toMatch(/may not import/);
  });

  it.each([
    [
      "a room importing a lower room through its index",
      "server/runtime/runs/probe.ts",
      'import { createCoordinator as imported } from "../pause";',
    ],
    [
      "a file importing its neighbour in the same room",
      "server/runtime/pause/probe.ts",
      'import { createCoordinator as imported } from "./coordinator";',
    ],
    ["an edge importing the runtime's face", "server/transport/probe.ts", 'import { createRuntime as imported } from "@/server/runtime";'],
    ["the runtime importing the crypto leaf", "server/runtime/notify/probe.ts", 'import { seal as imported } from "../../crypto/sealing";'],
  ])("allows %s", async (_case, filePath, source) => {
    expect(await layerErrors(filePath, source)).toEqual([]);
  });
});
