/**
 * Property-based fuzzing of Harbor's two edges against a real server: malformed and mutated AG-UI run
 * bodies, and every tRPC procedure — enumerated from the router, so a new procedure is fuzzed without
 * editing this file — with inputs shaped by its own schema, alone and in batches. Whatever arrives,
 * no answer is a 5xx (nor a 5xx inside a stream), every AG-UI stream that starts ends with
 * RUN_FINISHED or RUN_ERROR, and the server stays healthy. FUZZ_SEED reproduces a run; FUZZ_RUNS
 * sets the number of cases per property.
 */
import { randomUUID } from "node:crypto";
import { EventSchemas } from "@ag-ui/core/schemas";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "@/server/api/root";
import { interruptsOf, postRun, runInput, runTurn, AGUI_CLIENTS, userMessage } from "../helpers/agui";
import {
  anyJson,
  checkProperty,
  deepNesting,
  FUZZ_RUNS,
  FUZZ_SEED,
  fromSchema,
  oddString,
  setKnownValues,
  type JsonSchema,
} from "../helpers/fuzz";
import { authHeaders, createToken, readSse, runOnThread, signInAll, trpcQuery, trpcSubscribe, type Auth } from "../helpers/http";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

interface Procedure {
  path: string;
  type: "query" | "mutation" | "subscription";
  schema?: JsonSchema;
}

/** Every procedure of the router, with its input's JSON Schema. */
const PROCEDURES: Procedure[] = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: Procedure["type"]; inputs: z.ZodType[] } }>,
).map(([path, procedure]) => {
  const input = procedure._def.inputs[0];
  return {
    path,
    type: procedure._def.type,
    schema: input ? (z.toJSONSchema(input, { unrepresentable: "any", io: "input" }) as JsonSchema) : undefined,
  };
});

/** How long a started stream may take to end (an AG-UI run), or is watched (a live subscription). */
const STREAM_END_MS = 20_000;
const SUBSCRIPTION_WATCH_MS = 100;
/** Cases per tRPC procedure: every procedure gets its own property. */
const CALLS_PER_PROCEDURE = Math.ceil(FUZZ_RUNS / 5);

/** Phrases of the concierge: each starts a different kind of run (reply, gate, browser tool, form, wait…). */
const PHRASES = [
  "hello",
  "what can you do",
  "send an email to fuzz@example.com saying hi",
  "transfer 5 to ACME-1",
  "what is my time zone",
  "connect my api key",
  "research fuzzing",
  "check my calendar",
  "ask the travel agent to book a trip",
  "count slowly to 2",
];

/** A 5xx anywhere in a tRPC answer (a status, a batch item, a streamed or serialized error). */
const SERVER_ERROR_IN_BODY = /"httpStatus":\s*5\d\d/;

interface Exchange {
  describe: string;
  problem?: string;
}

/** How the answers of a property were distributed (printed, to show the fuzz got past the parsers). */
class Tally {
  private readonly counts = new Map<string, number>();
  add(key: string) {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
  toString() {
    return [...this.counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}×${n}`)
      .join(" ");
  }
}

function excerpt(text: string, max = 400) {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Reads a response whole, a stream until it ends (or `watchMs`, for live ones); any problem is named. */
/** Over these, Node or Harbor refuses a request before reading all of it (431 headers, 413 body). */
const OVERSIZED_BYTES = 16 * 1024;

/**
 * Sends a request; an oversized one may find its connection closed before it was all sent (EPIPE,
 * reset) — a refusal too, which the tally counts as `closed`. Any other failure to connect is thrown.
 */
async function send(request: Promise<Response>, bytes: number, tally: Tally): Promise<Response | undefined> {
  try {
    return await request;
  } catch (error) {
    if (bytes <= OVERSIZED_BYTES) throw error;
    tally.add("closed");
    return undefined;
  }
}

async function judge(res: Response, what: string, options: { agui?: boolean; watchMs?: number; tally?: Tally } = {}): Promise<Exchange> {
  const type = res.headers.get("content-type") ?? "";
  options.tally?.add(String(res.status));
  if (res.status >= 500) return { describe: what, problem: `HTTP ${res.status}: ${excerpt(await res.text())}` };
  if (type.startsWith("text/event-stream")) {
    const controller = new AbortController();
    const limit = options.watchMs ?? STREAM_END_MS;
    const timer = setTimeout(() => controller.abort(), limit);
    let ended = true;
    const frames = await readSse(new Response(abortable(res.body!, controller.signal), { headers: res.headers })).catch(() => {
      ended = false;
      return [];
    });
    clearTimeout(timer);
    if (controller.signal.aborted) ended = false;
    const text = frames.map((f) => `${f.event ?? ""} ${f.data}`).join("\n");
    if (SERVER_ERROR_IN_BODY.test(text)) return { describe: what, problem: `5xx inside the stream: ${excerpt(text)}` };
    if (!options.agui) return { describe: what };
    if (!ended) return { describe: what, problem: `the AG-UI stream did not end within ${limit} ms: ${excerpt(text)}` };
    const events = frames.map((f) => JSON.parse(f.data) as { type: string; code?: string });
    for (const event of events) {
      if (!EventSchemas.safeParse(event).success) return { describe: what, problem: `not an AG-UI event: ${JSON.stringify(event)}` };
    }
    const last = events.at(-1);
    options.tally?.add(last?.type === "RUN_ERROR" ? `RUN_ERROR ${last.code}` : `${last?.type}`);
    if (last?.type !== "RUN_FINISHED" && last?.type !== "RUN_ERROR") {
      return { describe: what, problem: `the stream ended with ${last?.type ?? "nothing"}: ${excerpt(text)}` };
    }
    if (last.type === "RUN_ERROR" && last.code === "INTERNAL") return { describe: what, problem: `RUN_ERROR INTERNAL: ${excerpt(text)}` };
    return { describe: what };
  }
  // Node answers an oversized request (431) from its own parser, before Harbor sees it, and may keep
  // the socket while the client is still sending the rest: that body need never end.
  if (res.status === 431) {
    void res.body?.cancel().catch(() => undefined);
    return { describe: what };
  }
  const body = await Promise.race([
    res.text(),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), STREAM_END_MS).unref()),
  ]);
  if (body === undefined) return { describe: what, problem: `the body did not end within ${STREAM_END_MS} ms` };
  if (SERVER_ERROR_IN_BODY.test(body)) return { describe: what, problem: `5xx in the body: ${excerpt(body)}` };
  if (options.agui && res.status !== 200) {
    try {
      const parsed = JSON.parse(body) as { error?: { code?: unknown } };
      if (typeof parsed.error?.code !== "string")
        return { describe: what, problem: `an AG-UI refusal without an error code: ${excerpt(body)}` };
    } catch {
      return { describe: what, problem: `an AG-UI refusal that is not JSON: ${excerpt(body)}` };
    }
  }
  return { describe: what };
}

/** The body, ended by `signal` as a clean close (so a live stream can be watched for a while). */
function abortable(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      const next = await Promise.race([
        reader.read(),
        new Promise<{ done: true; value?: undefined }>((resolve) =>
          signal.aborted ? resolve({ done: true }) : signal.addEventListener("abort", () => resolve({ done: true }), { once: true }),
        ),
      ]);
      if (next.done) {
        await reader.cancel().catch(() => undefined);
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel: () => reader.cancel().catch(() => undefined),
  });
}

function bodyOf(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

describe.each(OWN_ENGINES)("fuzzing the edges of a server on $name", ({ name }) => {
  let server: OwnServer;
  let auths: { label: string; auth: Auth | null }[];
  let known: string[];
  let finishedRun: { runId: string; auth: Auth };

  beforeAll(async () => {
    console.log(`fuzz on ${name}: FUZZ_SEED=${FUZZ_SEED}, ${FUZZ_RUNS} cases per property`);
    server = await startOwnServer(name, "fuzz", { HARBOR_STEP_MS: "50" });
    const [alice, carol, mallory] = await signInAll(server.url, ["alice@acme.test", "carol@acme.test", "mallory@globex.test"]);
    const bearer: Auth = { bearer: (await createToken(server.url, alice!, "fuzz")).token };
    auths = [
      { label: "alice (cookie)", auth: { cookie: alice! } },
      { label: "alice (bearer)", auth: bearer },
      { label: "carol (admin, cookie)", auth: { cookie: carol! } },
      { label: "mallory (other tenant)", auth: { cookie: mallory! } },
      { label: "nobody", auth: null },
    ];
    // Ids that exist, so fuzzed calls reach past "not found": a finished run, a waiting gate, another
    // tenant's thread, a response in progress, a token that may be revoked.
    const client = AGUI_CLIENTS[0]!;
    const done = await runTurn(client, { baseUrl: server.url, auth: bearer, threadId: randomUUID(), messages: [userMessage("hello")] });
    const doneRun = (await trpcQuery<{ runId: string; threadId: string }[]>(server.url, bearer, "runs.list")).data![0]!;
    const gateThread = randomUUID();
    const gated = await runTurn(client, {
      baseUrl: server.url,
      auth: bearer,
      threadId: gateThread,
      messages: [userMessage("send an email to known@example.com saying hi")],
    });
    const otherThread = randomUUID();
    await runTurn(client, { baseUrl: server.url, auth: { cookie: mallory! }, threadId: otherThread, messages: [userMessage("hello")] });
    const research = await runTurn(client, {
      baseUrl: server.url,
      auth: bearer,
      threadId: randomUUID(),
      messages: [userMessage("research ids")],
    });
    const responseId = (research.events.at(-1) as unknown as { result?: { responseId?: string } }).result?.responseId;
    const spare = await createToken(server.url, alice!, "spare");
    const runs = (await trpcQuery<{ runId: string }[]>(server.url, bearer, "runs.list")).data ?? [];
    known = setKnownValues({
      runId: runs.map((r) => r.runId),
      threadId: [doneRun.threadId, gateThread, otherThread],
      interactionId: interruptsOf(gated.events).map((i) => i.id),
      responseId: responseId ? [responseId] : [],
      tokenId: [spare.id],
      provider: ["demo", "calendar", "google"],
      lastEventId: ["0", "1", "3", "1000"],
      messageId: done.messages.map((m) => m.id),
    });
    finishedRun = { runId: doneRun.runId, auth: bearer };
  });

  afterAll(async () => {
    await server?.dispose();
  });

  const healthy = async () => {
    const started = Date.now();
    const res = await fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
  };

  // Counterexamples name the caller, not their cookie.
  const pickAuth = () => fc.integer({ min: 0, max: 4 }).map((i) => ({ ...auths[i]!, [fc.toStringMethod]: () => auths[i]!.label }));

  /** A message of any role and shape; text content often one of the concierge's phrases. */
  const message = () =>
    fc.record(
      {
        id: fc.oneof(fc.uuid(), oddString(known)),
        role: fc.oneof(
          { weight: 5, arbitrary: fc.constantFrom("user", "assistant", "system", "developer", "tool", "activity", "reasoning") },
          { weight: 1, arbitrary: oddString() },
        ),
        content: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...PHRASES) },
          { weight: 3, arbitrary: oddString(known) },
          {
            weight: 1,
            arbitrary: fc.array(fc.record({ type: fc.constantFrom("text", "binary", "image"), text: oddString() }), { maxLength: 3 }),
          },
          { weight: 1, arbitrary: anyJson(known) },
        ),
        toolCallId: oddString(known),
        toolCalls: anyJson(known),
        name: oddString(),
      },
      { requiredKeys: ["id", "role"] },
    );

  type Mutation = (body: Record<string, unknown>) => void;
  const FIELDS = ["threadId", "runId", "messages", "tools", "context", "state", "forwardedProps", "resume", "parentRunId"];

  const mutation = (): fc.Arbitrary<Mutation> =>
    fc.oneof(
      fc.tuple(fc.constantFrom(...FIELDS), anyJson(known)).map(
        ([field, value]): Mutation =>
          (body) =>
            void (body[field] = value),
      ),
      fc.constantFrom(...FIELDS).map(
        (field): Mutation =>
          (body) =>
            void delete body[field],
      ),
      fc.tuple(oddString(), anyJson(known)).map(
        ([field, value]): Mutation =>
          (body) =>
            void (body[field] = value),
      ),
      fc.array(message(), { maxLength: 4 }).map(
        (messages): Mutation =>
          (body) =>
            void (body.messages = messages),
      ),
      fc.oneof(fc.uuid(), oddString(known)).map(
        (threadId): Mutation =>
          (body) =>
            void (body.threadId = threadId),
      ),
      fc
        .array(
          fc.record(
            {
              interruptId: oddString(known),
              status: fc.oneof(fc.constantFrom("resolved", "cancelled"), oddString()),
              payload: fc.oneof(fc.record({ approved: fc.boolean(), reason: oddString() }, { requiredKeys: [] }), anyJson(known)),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        )
        .map(
          (resume): Mutation =>
            (body) =>
              void (body.resume = resume),
        ),
      fc
        .oneof(
          anyJson(known),
          fc.record({
            harbor: fc.oneof(
              anyJson(known),
              fc.record({ multitask: fc.oneof(fc.constantFrom("enqueue", "reject", "interrupt"), oddString()) }),
            ),
          }),
        )
        .map(
          (props): Mutation =>
            (body) =>
              void (body.forwardedProps = props),
        ),
      fc.oneof(anyJson(known), deepNesting).map(
        (state): Mutation =>
          (body) =>
            void (body.state = state),
      ),
      fc
        .array(fc.record({ name: oddString(), description: oddString(), parameters: anyJson() }, { requiredKeys: [] }), { maxLength: 3 })
        .map(
          (tools): Mutation =>
            (body) =>
              void (body.tools = tools),
        ),
      fc.array(fc.record({ description: oddString(), value: oddString() }, { requiredKeys: [] }), { maxLength: 3 }).map(
        (context): Mutation =>
          (body) =>
            void (body.context = context),
      ),
    );

  /** A request body: a valid RunAgentInput with a few mutations, or raw bytes that are hardly JSON. */
  const runBody = () =>
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(fc.uuid(), fc.constantFrom(...PHRASES), fc.array(mutation(), { minLength: 0, maxLength: 3 }))
          .map(([threadId, phrase, mutations]) => {
            const body: Record<string, unknown> = runInput(threadId, [userMessage(phrase)]);
            for (const mutate of mutations) mutate(body);
            return JSON.stringify(body) as string | Uint8Array;
          }),
      },
      { weight: 1, arbitrary: oddString() },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.uuid(), fc.nat()).map(([threadId, cut]) => {
          const text = JSON.stringify(runInput(threadId, [userMessage("hello")]));
          return text.slice(0, cut % text.length);
        }),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.uuid(), fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.nat()).map(([threadId, bytes, at]) => {
          const text = Buffer.from(JSON.stringify(runInput(threadId, [userMessage("hello")])));
          const cut = at % text.length;
          return Buffer.concat([text.subarray(0, cut), bytes, text.subarray(cut)]) as Uint8Array;
        }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.uuid(), fc.constantFrom("1e400", "-0", "1.0", "true", "[]", "{}", '"\\ud800"', '"\\u0000"'))
          .map(([threadId, raw]) => `{"threadId":"${threadId}","runId":${raw},"messages":[],"tools":[],"context":[],"state":${raw}}`),
      },
    );

  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=latin1", "application/x-www-form-urlencoded", "") },
  );

  // Found by this file: a seq past PostgreSQL's integer range (or a Last-Event-ID that is no seq)
  // reached the event-log query and failed there — a 500, or a 500 inside the subscription's stream.
  it("refuses a seq out of range or a Last-Event-ID that is no seq with 400, and resumes after a real one", async () => {
    const { runId, auth } = finishedRun;
    for (const input of [
      { runId, afterSeq: 2 ** 31 },
      { runId, afterSeq: 2 ** 53 - 1 },
    ]) {
      const answer = await trpcQuery(server.url, auth, "runs.timeline", input);
      expect(answer.status, JSON.stringify(input)).toBe(400);
    }
    const badEvents = [
      { runId, afterSeq: 2 ** 31 },
      { runId, lastEventId: "1.5" },
      { runId, lastEventId: "1e20" },
      { runId, lastEventId: "-3" },
      { runId, lastEventId: "99999999999" },
    ];
    for (const input of badEvents) {
      const frames = await readSse(await trpcSubscribe(server.url, auth, "runs.events", input));
      const text = frames.map((f) => f.data).join("\n");
      expect(text, JSON.stringify(input)).toContain('"httpStatus":400');
      expect(text).not.toMatch(SERVER_ERROR_IN_BODY);
    }
    const resumed = await readSse(await trpcSubscribe(server.url, auth, "runs.events", { runId, lastEventId: "2" }));
    expect(resumed.find((f) => f.data.includes('"seq"'))?.data).toContain('"seq":3');
    const fromLast = await readSse(
      await fetch(`${server.url}/api/trpc/runs.events?input=${encodeURIComponent(JSON.stringify({ runId }))}`, {
        headers: { accept: "text/event-stream", "last-event-id": "2", ...authHeaders(auth) },
      }),
    );
    expect(fromLast.find((f) => f.data.includes('"seq"'))?.data).toContain('"seq":3');
  });

  it("answers every malformed or mutated AG-UI run body with a 4xx or a stream that ends, never a 5xx", async () => {
    const started = Date.now();
    const tally = new Tally();
    await checkProperty(
      "AG-UI run bodies",
      fc.asyncProperty(pickAuth(), runBody(), contentType, async ({ label, auth }, body, type) => {
        const headers: Record<string, string> = { ...(auth ? authHeaders(auth) : {}) };
        if (type) headers["content-type"] = type;
        const res = await fetch(`${server.url}/api/agents/concierge/runs`, { method: "POST", headers, body: body as BodyInit });
        const preview = typeof body === "string" ? body : Buffer.from(body).toString("latin1");
        const outcome = await judge(res, `${label} POST ${excerpt(preview, 300)}`, { agui: true, tally });
        if (outcome.problem) throw new Error(`${outcome.describe}\n→ ${outcome.problem}`);
      }),
    );
    console.log(`fuzz on ${name}: AG-UI bodies, ${FUZZ_RUNS} cases in ${Date.now() - started} ms: ${tally}`);
    await healthy();
  });

  /** One call of a procedure (of `among`, by default all) with a fuzzed input (or none). */
  const call = (among: readonly Procedure[] = PROCEDURES) =>
    fc.integer({ min: 0, max: among.length - 1 }).chain((i) => {
      const procedure = among[i]!;
      const input = procedure.schema
        ? fc.option(fromSchema(procedure.schema, known), { freq: 12, nil: undefined })
        : fc.option(anyJson(known), { freq: 2, nil: undefined });
      return input.map((value) => ({
        procedure,
        input: value,
        [fc.toStringMethod]: () => `${procedure.path}(${fc.stringify(value)})`,
      }));
    });

  /** The HTTP request for one tRPC call: by its type's method, now and then the other one. */
  function request(path: string, method: "GET" | "POST", input: unknown, auth: Auth | null, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { ...(auth ? authHeaders(auth) : {}), ...extra };
    if (method === "GET") {
      const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      return fetch(`${server.url}/api/trpc/${path}${query}`, { headers });
    }
    return fetch(`${server.url}/api/trpc/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: bodyOf(input),
    });
  }

  it.each(PROCEDURES)("calls $path ($type) with arbitrary inputs and methods: never a 5xx", async (procedure) => {
    const started = Date.now();
    const tally = new Tally();
    await checkProperty(
      procedure.path,
      fc.asyncProperty(
        pickAuth(),
        call([procedure]),
        fc.boolean(),
        fc.integer({ min: 0, max: 9 }),
        async ({ label, auth }, { input }, sse, other) => {
          const natural = procedure.type === "mutation" ? "POST" : "GET";
          const method = other === 0 ? (natural === "GET" ? "POST" : "GET") : natural;
          const accept: Record<string, string> = procedure.type === "subscription" && sse ? { accept: "text/event-stream" } : {};
          const res = await send(request(procedure.path, method, input, auth, accept), (JSON.stringify(input) ?? "").length, tally);
          if (!res) return;
          const what = `${label} ${method} ${procedure.path} ${excerpt(JSON.stringify(input) ?? "(no input)", 300)}`;
          const outcome = await judge(res, what, { watchMs: SUBSCRIPTION_WATCH_MS, tally });
          if (outcome.problem) throw new Error(`${outcome.describe}\n→ ${outcome.problem}`);
        },
      ),
      CALLS_PER_PROCEDURE,
    );
    console.log(`fuzz on ${name}: ${procedure.path}, ${CALLS_PER_PROCEDURE} cases in ${Date.now() - started} ms: ${tally}`);
  });

  it("is healthy after every procedure was fuzzed", healthy);

  it("answers arbitrary tRPC batches (up to 12 calls, JSON or streamed) without a 5xx", async () => {
    const started = Date.now();
    const tally = new Tally();
    await checkProperty(
      "tRPC batches",
      fc.asyncProperty(
        pickAuth(),
        // Mostly calls of one type (a batch cannot mix them), now and then any mix.
        fc
          .constantFrom<readonly Procedure[]>(
            PROCEDURES.filter((p) => p.type === "query"),
            PROCEDURES.filter((p) => p.type === "mutation"),
            PROCEDURES.filter((p) => p.type === "query"),
            PROCEDURES,
          )
          .chain((among) => fc.array(call(among), { minLength: 1, maxLength: 12 })),
        fc.integer({ min: 0, max: 5 }),
        fc.boolean(),
        async ({ label, auth }, calls, flip, streamed) => {
          const natural = calls[0]!.procedure.type === "mutation" ? "POST" : "GET";
          const method = flip === 0 ? (natural === "GET" ? "POST" : "GET") : natural;
          const paths = calls.map((c) => c.procedure.path).join(",");
          const input = Object.fromEntries(calls.flatMap((c, i) => (c.input === undefined ? [] : [[String(i), c.input]])));
          const headers: Record<string, string> = streamed ? { "trpc-accept": "application/jsonl" } : {};
          const url = `${server.url}/api/trpc/${paths}?batch=1`;
          const res = await send(
            method === "GET"
              ? fetch(`${url}&input=${encodeURIComponent(JSON.stringify(input))}`, {
                  headers: { ...(auth ? authHeaders(auth) : {}), ...headers },
                })
              : fetch(url, {
                  method: "POST",
                  headers: { "content-type": "application/json", ...(auth ? authHeaders(auth) : {}), ...headers },
                  body: JSON.stringify(input),
                }),
            JSON.stringify(input).length,
            tally,
          );
          if (!res) return;
          const outcome = await judge(res, `${label} ${method} batch ${paths} ${excerpt(JSON.stringify(input), 300)}`, {
            watchMs: SUBSCRIPTION_WATCH_MS,
            tally,
          });
          if (outcome.problem) throw new Error(`${outcome.describe}\n→ ${outcome.problem}`);
        },
      ),
      Math.ceil(FUZZ_RUNS / 2),
    );
    console.log(`fuzz on ${name}: tRPC batches, ${Math.ceil(FUZZ_RUNS / 2)} cases in ${Date.now() - started} ms: ${tally}`);
    await healthy();
  });

  it("still serves afterwards: a chat turn completes and a finished run's events stream to their end", async () => {
    const threadId = randomUUID();
    const auth = auths[1]!.auth!;
    const turn = await runTurn(AGUI_CLIENTS[0]!, { baseUrl: server.url, auth, threadId, messages: [userMessage("hello")] });
    expect(turn.events.at(-1)?.type).toBe("RUN_FINISHED");
    // A run of its own: the fuzzing may have deleted (threads.delete) the threads it was given.
    const runId = await runOnThread(server.url, auth, threadId, "completed");
    const frames = await readSse(await trpcSubscribe(server.url, auth, "runs.events", { runId }));
    expect(frames.filter((f) => f.data.includes('"seq"')).at(-1)?.data).toContain('"run.completed"');
    expect((await postRun(server.url, auths[1]!.auth, "{")).status).toBe(400);
    await healthy();
  });
});
