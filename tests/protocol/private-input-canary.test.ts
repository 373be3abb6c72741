/**
 * The canary: a unique secret goes through the private form, and every place Harbor keeps or says
 * anything — the database's files, the server's output, every SSE stream and snapshot, the audit
 * log, the run's timeline, the traces it exports (content capture on) — is searched for it. It must
 * appear nowhere in clear.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { open, sealingKey } from "@/server/crypto/sealing";
import { AGUI_CLIENTS, interruptsOf, postRun, runInput, runTurn, userMessage } from "../helpers/agui";
import { readSse, signIn, trpcQuery, trpcSubscribe } from "../helpers/http";
import { startOtlpReceiver, tracingEnv } from "../helpers/otlp-receiver";
import { startServer, type RunningServer } from "../helpers/server";

const client = AGUI_CLIENTS[0]!;
let server: RunningServer | undefined;

afterAll(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

describe("a private value", () => {
  it("appears nowhere in clear: not in the database, the logs, the streams, the snapshots, the audit log, the timeline or the traces", async () => {
    const receiver = await startOtlpReceiver();
    server = await startServer({ LOG_LEVEL: "debug", ...tracingEnv(receiver), HARBOR_OTEL_CAPTURE_CONTENT: "1" }, "canary");
    const canary = `canary-${randomUUID()}`;
    const cookie = await signIn(server.url, "alice@acme.test");
    const auth = { cookie };
    const said: string[] = [];

    const threadId = randomUUID();
    const asked = await runTurn(client, { baseUrl: server.url, auth, threadId, messages: [userMessage("connect my api key")] });
    const [form] = interruptsOf(asked.events);
    said.push(JSON.stringify(asked.events));

    // Refused attempts must not echo it either: with a transcript, and with an extra field.
    for (const resume of [
      [{ interruptId: form!.id, status: "resolved", payload: { apiKey: canary, extra: canary } }],
      [{ interruptId: form!.id, status: "resolved", payload: { apiKey: 42 } }],
    ]) {
      said.push(await (await postRun(server.url, auth, runInput(threadId, [], { resume }))).text());
    }
    said.push(
      await (
        await postRun(
          server.url,
          auth,
          runInput(threadId, [userMessage(canary)], {
            resume: [{ interruptId: form!.id, status: "resolved", payload: { apiKey: canary } }],
          }),
        )
      ).text(),
    );
    said.push(
      await (
        await postRun(
          server.url,
          auth,
          runInput(threadId, [], {
            state: { k: canary },
            resume: [{ interruptId: form!.id, status: "resolved", payload: { apiKey: canary } }],
          }),
        )
      ).text(),
    );

    const done = await runTurn(client, {
      baseUrl: server.url,
      auth,
      threadId,
      messages: [],
      resume: [{ interruptId: form!.id, status: "resolved", payload: { apiKey: canary } }],
    });
    said.push(JSON.stringify(done.events));
    expect(done.events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });

    const runId = (form!.metadata?.harbor as { runId: string }).runId;
    said.push(JSON.stringify(await trpcQuery(server.url, auth, "threads.get", { threadId })));
    said.push(JSON.stringify(await trpcQuery(server.url, auth, "interactions.list", { threadId })));
    said.push(JSON.stringify(await readSse(await trpcSubscribe(server.url, auth, "runs.events", { runId }))));
    for (const text of said) expect(text).not.toContain(canary);

    await server.stop();
    expect(fs.readFileSync(server.logFile, "utf8")).not.toContain(canary);
    // The server sent what it traced before it stopped: the form's run is there, the value is not.
    expect(receiver.spans.some((s) => s.attributes["harbor.run.id"] === (form!.metadata?.harbor as { runId: string }).runId)).toBe(true);
    for (const body of receiver.raw) expect(body).not.toContain(canary);
    await receiver.close();
    const needle = Buffer.from(canary);
    const holding = filesUnder(server.dataDir).filter((file) => fs.readFileSync(file).includes(needle));
    expect(holding).toEqual([]);

    // It was kept — sealed: the credential opens with the server's key to exactly the canary.
    const db = await PGlite.create({ dataDir: path.join(server.dataDir, "pglite") });
    try {
      const audit = await db.query<{ details: unknown }>("select details from audit_log");
      expect(JSON.stringify(audit.rows)).not.toContain(canary);
      const { rows } = await db.query<{ sealed: string }>("select sealed from credentials where user_id = 'user-alice'");
      const secret = fs.readFileSync(path.join(server.dataDir, "auth-secret"), "utf8").trim();
      expect(open(sealingKey(secret), rows[0]!.sealed, "tenant-acme/user-alice/api_key")).toBe(canary);
    } finally {
      await db.close();
    }
  }, 90_000);
});
