/**
 * Upgrades that lose nothing: the previous release (built from git history, see
 * upgrades/previous-release.json) leaves one of each waiting thing behind, stops, and this build,
 * started on the same database, answers each — on PostgreSQL, and on the embedded database's data
 * folder. See tests/helpers/upgrade-scenario.ts for what waits and what is checked.
 *
 * The previous release's rows, as it left them here, are the fixtures of
 * tests/integration/upgrade/state-fixtures.test.ts: HARBOR_CAPTURE_STATE=1 writes them again.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createPostgresDatabase } from "../helpers/postgres";
import { buildPreviousRelease, type PreviousRelease } from "../helpers/previous-release";
import { startServer, type RunningServer } from "../helpers/server";
import { captureState } from "../helpers/state-fixtures";
import { answerAll, leaveBehind, UPGRADE_ENV } from "../helpers/upgrade-scenario";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

let previous: PreviousRelease;
let receiver: WebhookReceiver;
const started: RunningServer[] = [];

beforeAll(async () => {
  previous = buildPreviousRelease();
  receiver = await startWebhookReceiver();
}, 600_000);
afterAll(async () => {
  for (const server of started) await server.stop();
  await receiver?.close();
});

async function start(env: Record<string, string>, label: string, cwd?: string): Promise<RunningServer> {
  const server = await startServer(env, label, [], cwd);
  started.push(server);
  return server;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("an upgrade from the previous release on PostgreSQL", () => {
  it("answers everything the previous release left waiting: each effect once, deadlines once, links and grants honoured", async () => {
    const database = await createPostgresDatabase(process.env.TEST_DATABASE_URL!);
    try {
      const env = { ...UPGRADE_ENV, DATABASE_URL: database.url, AUTH_SECRET: randomBytes(32).toString("base64url") };
      const old = await start(env, "upgrade-old-pg", previous.dir);
      const left = await leaveBehind(old.url, receiver);
      await old.stop();
      // HARBOR_CAPTURE_STATE=1 writes tests/fixtures/state/<previous release>/ from what it left.
      if (process.env.HARBOR_CAPTURE_STATE) {
        const { alice: _a, bob: _b, carol: _c, ...waiting } = left;
        await captureState(database.url, { release: previous.name, authSecret: env.AUTH_SECRET }, waiting);
      }
      const current = await start(env, "upgrade-new-pg");
      await answerAll(current.url, left, receiver);
      await current.stop();
    } finally {
      await database.drop();
    }
  }, 180_000);
});

describe("an upgrade from the previous release on the embedded database's data folder", () => {
  it("answers everything the previous release left waiting in the same data folder", async () => {
    const env = { ...UPGRADE_ENV, AUTH_SECRET: randomBytes(32).toString("base64url") };
    const old = await start(env, "upgrade-old-pglite", previous.dir);
    const left = await leaveBehind(old.url, receiver);
    await old.stop();
    // The same data folder, as a deploy on one machine keeps it.
    const current = await start({ ...env, HARBOR_DATA_DIR: old.dataDir }, "upgrade-new-pglite");
    try {
      await answerAll(current.url, left, receiver);
    } finally {
      await current.stop();
      for (const dir of [old.dataDir, current.dataDir]) fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
