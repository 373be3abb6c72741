import { spawnSync } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { freePort } from "../helpers/server";

const embedded = inject("servers").find((s) => s.name === "pglite")!;

describe("the embedded database's folder", () => {
  it("refuses a second server on the same folder with a clear message, and the first keeps serving", async () => {
    const port = await freePort();
    const second = spawnSync(
      process.execPath,
      ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)],
      { env: { ...process.env, HARBOR_DATA_DIR: embedded.dataDir, NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8", timeout: 60_000 },
    );
    expect(second.status).toBe(1);
    expect(second.stdout + second.stderr).toMatch(/embedded database in .* is in use by process \d+/);
    const health = await fetch(`${embedded.url}/api/health`);
    expect(await health.json()).toEqual({ ok: true });
  }, 90_000);
});
