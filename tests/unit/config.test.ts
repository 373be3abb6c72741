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

  it("take a real OAuth provider as all four settings or none", () => {
    expect(readSettings({}).oauthProvider).toBeUndefined();
    const provider = {
      HARBOR_OAUTH_ISSUER: "https://id.example.com",
      HARBOR_OAUTH_CLIENT_ID: "harbor",
      HARBOR_OAUTH_CLIENT_SECRET: "s3cret",
      HARBOR_CALENDAR_URL: "https://calendar.example.com/today",
    };
    expect(readSettings(provider).oauthProvider).toEqual({
      issuer: "https://id.example.com",
      clientId: "harbor",
      clientSecret: "s3cret",
      calendarUrl: "https://calendar.example.com/today",
    });
    expect(() => readSettings({ HARBOR_OAUTH_ISSUER: "https://id.example.com" })).toThrow(/go together/);
    expect(() => readSettings({ HARBOR_TRAVEL_AGENT_URL: "not a url" })).toThrow(/HARBOR_TRAVEL_AGENT_URL/);
  });

  it("require a shared AUTH_SECRET with PostgreSQL", () => {
    expect(() => readSettings({ DATABASE_URL: "postgres://x/y" })).toThrow(/AUTH_SECRET must be set/);
  });

  it("name the variable that is wrong", () => {
    expect(() => readSettings({ HARBOR_STREAM_CHUNK_MS: "soon" })).toThrow(/HARBOR_STREAM_CHUNK_MS/);
    expect(() => readSettings({ HARBOR_SEED_DEMO: "yes please" })).toThrow(/HARBOR_SEED_DEMO/);
  });

  it("ping silent streams every 15 s unless told otherwise, within 100 ms to 5 min", () => {
    expect(readSettings({}).ssePingMs).toBe(15_000);
    expect(readSettings({ HARBOR_SSE_PING_MS: "200" }).ssePingMs).toBe(200);
    expect(() => readSettings({ HARBOR_SSE_PING_MS: "0" })).toThrow(/HARBOR_SSE_PING_MS/);
    expect(() => readSettings({ HARBOR_SSE_PING_MS: "often" })).toThrow(/HARBOR_SSE_PING_MS/);
    expect(() => readSettings({ HARBOR_SSE_PING_MS: "600000" })).toThrow(/HARBOR_SSE_PING_MS/);
  });
});
