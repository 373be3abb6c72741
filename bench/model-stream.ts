/**
 * Model streaming through Harbor against the same scripted OpenAI-compatible server called
 * directly: time to first token and streamed tokens per second, at 1 and 50 concurrent chats.
 * The model server streams as fast as it can, so what differs is what Harbor adds (its run, its
 * log writes, AG-UI encoding).
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { percentile } from "./stats";

export interface StreamResult {
  path: "direct" | "Harbor";
  chats: number;
  firstTokenP50: number;
  firstTokenP99: number;
  /** The model's words (its tokens) per second, summed over the concurrent chats. */
  tokensPerSecond: number;
  turns: number;
  failures: number;
}

/** Reads an SSE body, calling `onData` with each data line; resolves at its end. */
async function readData(res: Response, onData: (data: string) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of frame.split("\n")) if (line.startsWith("data:")) onData(line.slice(5).trim());
    }
  }
}

/** One streamed answer: when its first token came, and how many tokens there were. */
async function oneTurn(path: StreamResult["path"], url: string, bearer: string): Promise<{ firstMs: number; tokens: number; ok: boolean }> {
  const started = performance.now();
  let first = 0;
  let tokens = 0;
  let ok = false;
  const res =
    path === "direct"
      ? await fetch(`${url}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "scripted", stream: true, messages: [{ role: "user", content: "tell me a story" }] }),
        })
      : await fetch(`${url}/api/agents/assistant/runs`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${bearer}` },
          body: JSON.stringify({
            threadId: randomUUID(),
            runId: randomUUID(),
            messages: [{ id: randomUUID(), role: "user", content: "tell me a story" }],
            tools: [],
            context: [],
            state: {},
            forwardedProps: {},
          }),
        });
  await readData(res, (data) => {
    if (data === "[DONE]") {
      ok = true;
      return;
    }
    const parsed = JSON.parse(data) as { type?: string; delta?: string; choices?: { delta?: { content?: string } }[] };
    // Tokens are the model's words (the scripted model streams one per chunk); Harbor may carry
    // several in one delta when they arrive while it writes.
    const text =
      path === "direct" ? parsed.choices?.[0]?.delta?.content : parsed.type === "TEXT_MESSAGE_CONTENT" ? parsed.delta : undefined;
    const words = text?.match(/\S+/g)?.length ?? 0;
    if (words > 0) {
      tokens += words;
      if (!first) first = performance.now();
    }
    if (parsed.type === "RUN_FINISHED") ok = true;
  });
  return { firstMs: first - started, tokens, ok };
}

export async function measureModelStream(
  path: StreamResult["path"],
  url: string,
  bearer: string,
  chats: number,
  seconds: number,
): Promise<StreamResult> {
  const firsts: number[] = [];
  let tokens = 0;
  let turns = 0;
  let failures = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: chats }, async () => {
      while (performance.now() < deadline) {
        try {
          const turn = await oneTurn(path, url, bearer);
          if (!turn.ok) failures++;
          firsts.push(turn.firstMs);
          tokens += turn.tokens;
          turns++;
        } catch {
          failures++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  firsts.sort((a, b) => a - b);
  return {
    path,
    chats,
    firstTokenP50: percentile(firsts, 50),
    firstTokenP99: percentile(firsts, 99),
    tokensPerSecond: tokens / elapsed,
    turns,
    failures,
  };
}
