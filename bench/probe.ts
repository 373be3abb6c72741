import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createToken, signIn } from "../tests/helpers/http";
import { startServer } from "../tests/helpers/server";
import { startModelServer } from "../tests/helpers/model-server";
async function main() {
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ");
  const model = await startModelServer(() => ({ text: words }));
  const server = await startServer(
    { HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted", HARBOR_STREAM_CHUNK_MS: "0", LOG_LEVEL: "warn" },
    "probe",
  );
  console.log(server.logFile);
  try {
    const { token } = await createToken(server.url, await signIn(server.url, "alice@acme.test"), "probe");
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      const marks: string[] = [];
      const before = model.requests.length;
      const poll = setInterval(() => {
        if (model.requests.length > before) {
          marks.push(`model-request ${(performance.now() - t0).toFixed(1)}`);
          clearInterval(poll);
        }
      }, 1);
      const res = await fetch(`${server.url}/api/agents/assistant/runs`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          threadId: randomUUID(),
          runId: randomUUID(),
          messages: [{ id: randomUUID(), role: "user", content: "tell me" }],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        }),
      });
      marks.push(`headers ${(performance.now() - t0).toFixed(1)} enc=${res.headers.get("content-encoding")}`);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      const seen = new Set<string>();
      let n = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const m of value.matchAll(/"type":"([A-Z_]+)"/g)) {
          if (m[1] === "TEXT_MESSAGE_CONTENT") n++;
          if (!seen.has(m[1]!)) {
            seen.add(m[1]!);
            marks.push(`${m[1]} ${(performance.now() - t0).toFixed(1)}`);
          }
        }
      }
      marks.push(`end ${(performance.now() - t0).toFixed(1)} deltas=${n} modelreqs=${model.requests.length}`);
      console.log(marks.join(" | "));
    }
    const t1 = performance.now();
    const r = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted", stream: true, messages: [{ role: "user", content: "x" }] }),
    });
    const rd = r.body!.getReader();
    const first = await rd.read();
    console.log("direct first chunk", (performance.now() - t1).toFixed(1));
    while (!(await rd.read()).done);
    console.log("direct end", (performance.now() - t1).toFixed(1));
  } finally {
    await server.stop();
    await model.close();
  }
}
void main();
