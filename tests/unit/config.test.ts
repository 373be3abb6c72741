import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSettings } from "@/server/config";

describe("settings", () => {
  it("default to the embedded database in .data, seeded", () => {
    const s = readSettings({});
    expect(s).toMatchObject({ databaseUrl: undefined, dataDir: path.resolve(".data"), seedDemo: true, streamChunkMs: 15 });
  });

  it("do not seed PostgreSQL unless asked", () => {
    const postgres = { DATABASE_URL: "postgres://x/y", AUTH_SECRET: "a-long-enough-secret" };
    expect(readSettings(postgres).seedDemo).toBe(false);
    expect(readSettings({ ...postgres, HARBOR_SEED_DEMO: "1" }).seedDemo).toBe(true);
  });

  it("require a shared AUTH_SECRET with PostgreSQL", () => {
    expect(() => readSettings({ DATABASE_URL: "postgres://x/y" })).toThrow(/AUTH_SECRET must be set/);
  });

  it("name the variable that is wrong", () => {
    expect(() => readSettings({ HARBOR_STREAM_CHUNK_MS: "soon" })).toThrow(/HARBOR_STREAM_CHUNK_MS/);
    expect(() => readSettings({ HARBOR_SEED_DEMO: "yes please" })).toThrow(/HARBOR_SEED_DEMO/);
  });
});
