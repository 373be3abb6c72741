import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, postRun, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { runOnThread, signIn, trpcMutation, trpcQuery } from "../helpers/http";
import { freePort, startServer } from "../helpers/server";

const embedded = inject("servers").find((s) => s.name === "pglite")!;

describe("the embedded database's folder", () => {
  it("refuses a second server on the same folder with a clear message, and the first keeps serving", async () => {
    const port = await freePort();
    const second = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)], {
      env: { ...process.env, HARBOR_DATA_DIR: embedded.dataDir, NEXT_TELEMETRY_DISABLED: "1" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(second.status).toBe(1);
    expect(second.stdout + second.stderr).toMatch(/embedded database in .* is in use by process \d+/);
    const health = await fetch(`${embedded.url}/api/health`);
    expect(await health.json()).toEqual({ ok: true, instance: expect.any(String) });
  }, 90_000);

  it("is released on SIGTERM, and the next server on it finds the conversations", async () => {
    const first = await startServer({}, "restart");
    try {
      const alice = { cookie: await signIn(first.url, "alice@acme.test") };
      const created = await trpcMutation<{ id: string }>(first.url, alice, "threads.create", { title: "Survives restarts" });
      await first.stop();
      expect(fs.existsSync(path.join(first.dataDir, "harbor.lock"))).toBe(false);

      const second = await startServer({ HARBOR_DATA_DIR: first.dataDir }, "restart-again");
      try {
        // The session secret lives in the folder too, so alice's cookie still works.
        const threads = await trpcQuery<{ id: string; title: string }[]>(second.url, alice, "threads.list");
        expect(threads.data?.find((t) => t.id === created.data?.id)?.title).toBe("Survives restarts");
      } finally {
        await second.stop();
        fs.rmSync(second.dataDir, { recursive: true, force: true });
      }
    } finally {
      await first.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("after a SIGKILL mid-run, the next server ends that run INSTANCE_LOST and its thread takes new messages", async () => {
    const first = await startServer({ HARBOR_STEP_MS: "100", HARBOR_STREAM_CHUNK_MS: "0" }, "crash");
    let second: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const alice = { cookie: await signIn(first.url, "alice@acme.test") };
      const threadId = randomUUID();
      const counting = postRun(first.url, alice, runInput(threadId, [userMessage("count slowly to 500")]))
        .then((res) => res.text())
        .catch(() => "cut");
      const runId = await runOnThread(first.url, alice, threadId);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.kill();
      await counting;

      second = await startServer({ HARBOR_DATA_DIR: first.dataDir, HARBOR_STEP_MS: "100", HARBOR_STREAM_CHUNK_MS: "0" }, "crash-restart");
      const run = await trpcQuery<{ status: string; error: { code: string } | null }>(second.url, alice, "runs.get", { runId });
      expect(run.data).toMatchObject({ status: "failed", error: { code: "INSTANCE_LOST" } });
      const timeline = await trpcQuery<{ event: { type: string; code?: string } }[]>(second.url, alice, "runs.timeline", { runId });
      expect(timeline.data?.at(-1)?.event).toMatchObject({ type: "run.failed", code: "INSTANCE_LOST" });
      const next = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: second.url, auth: alice, threadId, messages: [userMessage("hello")] });
      expect(streamedText(next.events)).toMatch(/^Hello!/);
    } finally {
      await second?.stop();
      await first.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
