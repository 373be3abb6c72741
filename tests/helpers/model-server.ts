/**
 * A scripted OpenAI-compatible model server over real HTTP: `POST /v1/chat/completions` answers
 * with streamed chat-completion chunks (text deltas, streamed `tool_calls`, usage), or with the
 * errors and stalls a test asks for. No weights can be downloaded here, so tests script the model's
 * turns; everything between Harbor and this server is the real wire.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: "function"; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  max_tokens?: number;
}

/** One model turn: text and/or tool calls, streamed in that order. */
export interface ScriptedTurn {
  text?: string;
  /** Each call's id is the model's own: `call_<request>_<i>` unless the script names it. */
  toolCalls?: {
    id?: string;
    name: string;
    args: unknown;
    /** Sent as the arguments instead, verbatim (not JSON, say). */ rawArgs?: string;
  }[];
  usage?: { prompt: number; completion: number };
  /** Answer with this HTTP status instead (and `Retry-After` when given). */
  status?: number;
  retryAfterSeconds?: number;
  /** Wait this long before the first chunk (a stall), and between chunks. */
  stallMs?: number;
  chunkMs?: number;
  /** After the text, send this delta again and again until the client hangs up (a model that never stops). */
  endless?: string;
}

export type Script = (request: ChatRequest, index: number) => ScriptedTurn;

export interface ModelServer {
  /** The API root to configure (`HARBOR_MODEL_BASE_URL`), ending in `/v1`. */
  baseUrl: string;
  /** Every request body received, in order. */
  requests: ChatRequest[];
  /** Answers the client hung up on before their end. */
  hungUp: number;
  script(next: Script): void;
  close(): Promise<void>;
}

/**
 * A model that knows the ids it gave its calls, as providers do: a tool result under any other id
 * answers nothing it asked, so it asks again (a new id each time); once its call is answered under
 * its own id, it says `done`. `ids` can fix the ids it uses, in order (a model that numbers its
 * calls `call_0` every turn).
 */
export function checksItsOwnCallIds(call: { name: string; args: unknown }, done: string, ids?: string[]): Script {
  const issued = new Set<string>();
  let next = 0;
  return (request) => {
    const last = request.messages.at(-1);
    if (last?.role === "tool" && last.tool_call_id && issued.has(last.tool_call_id)) {
      issued.delete(last.tool_call_id);
      return { text: done };
    }
    const id = ids?.[next] ?? `own-${next}-${Math.random().toString(36).slice(2, 8)}`;
    next += 1;
    issued.add(id);
    return { toolCalls: [{ id, ...call }] };
  };
}

/** Splits text into word-sized deltas, as models stream. */
const deltasOf = (text: string) => text.match(/\s*\S+\s*/g) ?? [];

export async function startModelServer(initial: Script = () => ({ text: "Hello from the model." })): Promise<ModelServer> {
  let script = initial;
  const requests: ChatRequest[] = [];
  const state = { hungUp: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void answer(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  });

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
      return;
    }
    const request = JSON.parse(body) as ChatRequest;
    const index = requests.push(request) - 1;
    const turn = script(request, index);
    if (turn.status && turn.status >= 400) {
      res
        .writeHead(turn.status, {
          "content-type": "application/json",
          ...(turn.retryAfterSeconds !== undefined ? { "retry-after": String(turn.retryAfterSeconds) } : {}),
        })
        .end(JSON.stringify({ error: { message: `scripted ${turn.status}`, type: "server_error" } }));
      return;
    }
    const id = `chatcmpl-${index}`;
    const created = Math.floor(Date.now() / 1000);
    const frame = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    const pause = (ms?: number) => (ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
    let closed = false;
    res.on("close", () => {
      if (!res.writableEnded) state.hungUp += 1;
      closed = true;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    await pause(turn.stallMs);
    const send = async (text: string) => {
      if (closed) return;
      res.write(text);
      await pause(turn.chunkMs);
    };
    await send(frame({ role: "assistant", content: "" }));
    for (const delta of deltasOf(turn.text ?? "")) await send(frame({ content: delta }));
    while (turn.endless && !closed) {
      res.write(frame({ content: turn.endless }));
      // Let the socket drain and the client read: as fast as the client takes it, never faster.
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      const args = call.rawArgs ?? JSON.stringify(call.args);
      const half = Math.floor(args.length / 2);
      // Streamed as models do: the call's id and name first, its arguments in pieces.
      await send(
        frame({
          tool_calls: [
            {
              index: i,
              id: call.id ?? `call_${index}_${i}`,
              type: "function",
              function: { name: call.name, arguments: args.slice(0, half) },
            },
          ],
        }),
      );
      await send(frame({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] }));
    }
    const usage = turn.usage ?? { prompt: 10, completion: deltasOf(turn.text ?? "").length + (turn.toolCalls?.length ?? 0) * 5 };
    await send(frame({}, turn.toolCalls?.length ? "tool_calls" : "stop"));
    await send(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: request.model, choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } })}\n\n`,
    );
    await send("data: [DONE]\n\n");
    if (!closed) res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get hungUp() {
      return state.hungUp;
    },
    script: (next) => {
      script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
