/**
 * A model's text is published before it is stored. A server killed (SIGKILL) while an answer
 * streams loses at most the unwritten tail: the next server closes the message in the log as
 * interrupted, keeps what was stored of it in the thread, and never gives a sequence number a
 * reader saw to another event.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { AGUI_CLIENTS, postRun, runInput, runTurn, streamedText, userMessage } from "../helpers/agui";
import { readSse, runOnThread, signIn, trpcQuery, trpcSubscribe, type Auth, type SseFrame } from "../helpers/http";
import { startModelServer } from "../helpers/model-server";
import { startServer } from "../helpers/server";

interface Logged {
  seq: number;
  event: { type: string; delta?: string; messageId?: string; interrupted?: boolean; code?: string };
}

/** The run events carried by `runs.events` frames (tRPC wraps each as `{ id, data }`). */
function loggedOf(frames: readonly SseFrame[]): Logged[] {
  return frames.flatMap((f) => {
    const parsed = JSON.parse(f.data || "null") as { data?: Logged } | Logged | null;
    const logged = parsed && "data" in parsed ? parsed.data : parsed;
    return logged && typeof logged === "object" && "seq" in logged ? [logged] : [];
  });
}

async function timelineOf(url: string, auth: Auth, runId: string): Promise<Logged[]> {
  const all: Logged[] = [];
  for (;;) {
    const page = await trpcQuery<Logged[]>(url, auth, "runs.timeline", { runId, afterSeq: all.at(-1)?.seq ?? 0 });
    all.push(...(page.data ?? []));
    if ((page.data ?? []).length < 500) return all;
  }
}

const words = Array.from({ length: 600 }, (_, i) => `w${i}`).join(" ");

describe("a model's answer streaming when its server is killed", () => {
  it("is closed as interrupted after what was stored, numbered past everything a reader saw", async () => {
    const model = await startModelServer(() => ({ text: words, chunkMs: 5 }));
    const env = { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted", HARBOR_STREAM_CHUNK_MS: "0" };
    const first = await startServer(env, "stream-crash");
    let second: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const alice = { cookie: await signIn(first.url, "alice@acme.test") };
      const threadId = randomUUID();
      const agui = postRun(first.url, alice, runInput(threadId, [userMessage("tell me a long story")]), "assistant")
        .then((res) => readSse(res))
        .catch(() => [] as SseFrame[]);
      const runId = await runOnThread(first.url, alice, threadId);
      // A second reader, with sequence numbers: killed once it has read 60 deltas.
      let deltas = 0;
      const seen = loggedOf(
        await readSse(await trpcSubscribe(first.url, alice, "runs.events", { runId }), (frame) => {
          if (frame.data.includes('"text.delta"')) deltas++;
          return deltas >= 60;
        }),
      );
      await first.kill();
      const aguiText = (await agui)
        .map((f) => JSON.parse(f.data || "{}") as { type?: string; delta?: string })
        .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
        .map((e) => e.delta)
        .join("");

      second = await startServer({ ...env, HARBOR_DATA_DIR: first.dataDir }, "stream-crash-restart");
      const run = await trpcQuery<{ status: string; error: { code: string } | null }>(second.url, alice, "runs.get", { runId });
      expect(run.data).toMatchObject({ status: "failed", error: { code: "INSTANCE_LOST" } });

      const stored = await timelineOf(second.url, alice, runId);
      const started = stored.find((l) => l.event.type === "text.started")!;
      const storedDeltas = stored.filter((l) => l.event.type === "text.delta");
      const storedText = storedDeltas.map((l) => l.event.delta).join("");
      expect(storedText.length).toBeGreaterThan(0);
      // The stored text has no hole: its deltas follow the start seq by seq.
      storedDeltas.forEach((l, i) => expect(l.seq).toBe(started.seq + 1 + i));
      // What a reader saw under a number is what the log holds under it, where it holds it.
      for (const s of seen.filter((l) => l.event.type === "text.delta")) {
        const same = storedDeltas.find((l) => l.seq === s.seq);
        if (same) expect(same.event.delta).toBe(s.event.delta);
      }
      // Both readers saw the same text as the log, up to where each stopped.
      expect(aguiText.startsWith(storedText) || storedText.startsWith(aguiText)).toBe(true);

      const [ended, failed] = stored.slice(-2);
      expect(ended!.event).toEqual({ type: "text.ended", messageId: started.event.messageId, interrupted: true });
      expect(failed!.event).toMatchObject({ type: "run.failed", code: "INSTANCE_LOST" });
      // Numbered past whatever was published and not stored: no reader ever saw these numbers.
      expect(ended!.seq).toBe(storedDeltas.at(-1)!.seq + 1001);
      expect(failed!.seq).toBe(ended!.seq + 1);
      expect(ended!.seq).toBeGreaterThan(Math.max(...seen.map((l) => l.seq)));

      // A reader that reconnects from the last number it saw is told how the run ended.
      const lastSeen = Math.max(...seen.map((l) => l.seq));
      const resumed = loggedOf(
        await readSse(await trpcSubscribe(second.url, alice, "runs.events", { runId, lastEventId: String(lastSeen) })),
      );
      expect(resumed.at(-2)?.event).toMatchObject({ type: "text.ended", interrupted: true });
      expect(resumed.at(-1)?.event).toMatchObject({ type: "run.failed", code: "INSTANCE_LOST" });

      // The thread keeps the interrupted text as stored, then says what happened; it takes new messages.
      const thread = await trpcQuery<{ messages: { id: string; role: string; content: string }[] }>(second.url, alice, "threads.get", {
        threadId,
      });
      const kept = thread.data?.messages.find((m) => m.id === started.event.messageId);
      expect(kept).toMatchObject({ role: "assistant", content: storedText });
      expect(thread.data?.messages.at(-1)?.role).toBe("system");
      model.script(() => ({ text: "Back again." }));
      const next = await runTurn(AGUI_CLIENTS[0]!, {
        baseUrl: second.url,
        auth: alice,
        threadId,
        messages: [userMessage("hello")],
        agentId: "assistant",
      });
      expect(streamedText(next.events)).toBe("Back again.");
    } finally {
      await second?.stop();
      await first.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      await model.close();
    }
  }, 120_000);
});
