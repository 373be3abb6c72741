/**
 * The benchmark's baseline: a bare SSE route on the same server that sends the same frames as a
 * chat turn — through the same mapping and encoder — with no identity, database or runtime: through
 * Next's router (`/api/bench/sse`, issue 17's baseline) and before it, as the AG-UI endpoint is
 * served (`/api/bench/sse-first`). Mounted only with HARBOR_BENCH=1.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BaseEvent } from "@ag-ui/core";
import { z } from "zod";
import { settings } from "@/server/config";
import { chunkText, type LoggedEvent, type RunEvent } from "@/server/runtime";
import { writeSse } from "@/server/edge/sse";
import { nodeRequest } from "@/server/edge/node-request";
import { toAguiEvents } from "./agui";
import { readJsonBody } from "./body";

const BenchInput = z.object({ threadId: z.string().default("bench"), runId: z.string().default("bench"), text: z.string().default("") });

/** The batches a chat turn writes (start, the streamed message, the end), as AG-UI frames. */
export async function* benchFrames(input: unknown): AsyncGenerator<BaseEvent[]> {
  const { threadId, runId, text } = BenchInput.parse(input);
  const transport = { threadId, runId, peer: "1.x" as const };
  const batches: RunEvent[][] = [
    [{ type: "run.started", runId, threadId, agentId: "bench" }],
    [
      { type: "text.started", messageId: "m" },
      ...chunkText(text).map((delta): RunEvent => ({ type: "text.delta", messageId: "m", delta })),
      { type: "text.ended", messageId: "m" },
    ],
    [
      {
        type: "snapshot",
        state: {},
        messages: [
          { id: "u", role: "user", content: "hello" },
          { id: "m", role: "assistant", content: text },
        ],
      },
      { type: "run.completed" },
    ],
  ];
  let seq = 0;
  for (const batch of batches) {
    const at = Date.now();
    yield batch.flatMap((event) => toAguiEvents({ runId, seq: ++seq, at, event } satisfies LoggedEvent, transport));
  }
}

/** `POST /api/bench/sse-first`: the baseline before Next's router, as `serveAgentRun` serves the AG-UI endpoint. */
export function serveBenchSse(req: IncomingMessage, res: ServerResponse, port: number): void {
  void readJsonBody(nodeRequest(req, res, port))
    .then((input) => writeSse(res, benchFrames(input), { pingMs: settings().ssePingMs }))
    // A body that is not the bench's input: refused; anything later: the stream is cut.
    .catch(() => (res.headersSent ? res.destroy() : res.writeHead(400).end()));
}
