/**
 * OpenTelemetry traces, received by a real OTLP/HTTP receiver: an approval cycle is one trace — the
 * run's first stretch (`invoke_agent`), the pause from park to decision as its child, the stretch
 * after it as its child too, linking the pause, and the tool it ran (`execute_tool`) inside; a
 * model's request is a `chat` span with the tokens it reported. Across two instances the second
 * stretch and the pause come from the instance that took the run over, in the same trace. What
 * people typed never reaches a span.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interruptsOf, postRun, runInput, userMessage } from "../helpers/agui";
import { startCluster, hasPostgres, TTL_MS, type Cluster } from "../helpers/cluster";
import { readSse, signIn, trpcMutation, type Auth } from "../helpers/http";
import { startModelServer, type ModelServer } from "../helpers/model-server";
import { startOtlpReceiver, tracingEnv, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

const TYPED = "send an email to traced@example.com saying the secret plan";

/** Parks an approval of alice's on `url`: the run's id and its gate's. */
async function parkApproval(url: string, alice: Auth): Promise<{ runId: string; gateId: string }> {
  const frames = await readSse(await postRun(url, alice, runInput(randomUUID(), [userMessage(TYPED)])));
  const [gate] = interruptsOf(frames.map((f) => JSON.parse(f.data)));
  return { runId: String(gate!.metadata!.harbor!.runId), gateId: gate!.id };
}

/** The approval cycle's spans of `runId`, once all four arrived. */
async function cycleOf(receiver: OtlpReceiver, runId: string) {
  const ofRun = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.attributes["harbor.run.id"] === runId);
  await receiver.until((spans) => {
    const mine = ofRun(spans);
    return mine.filter((s) => s.name === "invoke_agent concierge").length === 2 && mine.some((s) => s.name === "harbor.pause approval");
  });
  const mine = ofRun(receiver.spans);
  const first = mine.find((s) => s.name === "invoke_agent concierge" && s.attributes["harbor.run.resumed"] === false)!;
  const second = mine.find((s) => s.name === "invoke_agent concierge" && s.attributes["harbor.run.resumed"] === true)!;
  const pause = mine.find((s) => s.name === "harbor.pause approval")!;
  const tool = await receiver
    .until((spans) => spans.some((s) => s.name === "execute_tool send_email" && s.parentSpanId === second.spanId))
    .then((spans) => spans.find((s) => s.name === "execute_tool send_email" && s.parentSpanId === second.spanId)!);
  return { first, second, pause, tool };
}

function expectCycle({ first, second, pause, tool }: Awaited<ReturnType<typeof cycleOf>>) {
  expect(first.attributes).toMatchObject({
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.id": "concierge",
    "harbor.run.outcome": "parked",
  });
  expect(typeof first.attributes["gen_ai.conversation.id"]).toBe("string");
  for (const span of [second, pause, tool]) expect(span.traceId).toBe(first.traceId);
  expect(pause.parentSpanId).toBe(first.spanId);
  expect(pause.attributes).toMatchObject({
    "harbor.pause.kind": "approval",
    "harbor.pause.reason": "hitl",
    "harbor.pause.decision": "approved",
    "harbor.pause.decided_by.role": "owner",
  });
  expect(pause.startMs).toBeGreaterThanOrEqual(first.startMs);
  expect(pause.endMs).toBeLessThanOrEqual(second.startMs + 5);
  expect(second.parentSpanId).toBe(first.spanId);
  expect(second.links).toContainEqual({ traceId: pause.traceId, spanId: pause.spanId });
  expect(second.attributes["harbor.run.outcome"]).toBe("ended");
  expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email" });
}

describe.each(OWN_ENGINES)("traces on $name", ({ name }) => {
  let receiver: OtlpReceiver;
  let model: ModelServer;
  let server: OwnServer;
  let alice: Auth;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    model = await startModelServer(() => ({ text: "Hello from the model.", usage: { prompt: 21, completion: 4 } }));
    server = await startOwnServer(name, "traces", {
      ...tracingEnv(receiver),
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
    });
    alice = { cookie: await signIn(server.url, "alice@acme.test") };
  });

  afterAll(async () => {
    await server?.dispose();
    await model?.close();
    await receiver?.close();
  });

  it("makes an approval cycle one trace: the stretch that parked, the pause, the stretch after it linking the pause, the tool", async () => {
    const { runId, gateId } = await parkApproval(server.url, alice);
    await trpcMutation(server.url, alice, "interactions.approve", { interactionId: gateId });
    expectCycle(await cycleOf(receiver, runId));
    // What alice typed is in no span, and neither is the address it names.
    for (const body of receiver.raw) expect(body).not.toContain("traced@example.com");
  }, 60_000);

  it("records a model's request as a chat span with the tokens it reported, inside the run's stretch", async () => {
    await readSse(await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello model")]), "assistant"));
    // The chat span and the stretch around it may reach the receiver in different batches.
    const chatWithParent = (all: readonly ReceivedSpan[]) =>
      all.find((c) => c.name === "chat scripted" && all.some((p) => p.spanId === c.parentSpanId));
    const spans = await receiver.until((all) => chatWithParent(all) !== undefined);
    const chat = chatWithParent(spans)!;
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "scripted",
      "gen_ai.usage.input_tokens": 21,
      "gen_ai.usage.output_tokens": 4,
    });
    const stretch = spans.find((s) => s.spanId === chat.parentSpanId);
    expect(stretch?.name).toBe("invoke_agent assistant");
    // Content is recorded only when the operator opts in.
    expect(chat.attributes["gen_ai.output.messages"]).toBeUndefined();
    for (const body of receiver.raw) expect(body).not.toContain("Hello from the model");
  }, 60_000);
});

describe.skipIf(!hasPostgres)("traces across two instances", () => {
  let receiver: OtlpReceiver;
  let cluster: Cluster;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cluster = await startCluster(2, { ...tracingEnv(receiver), HARBOR_DURABLE_WAITS: "approvals" });
  }, 120_000);

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  });

  it("continues the run's trace on the instance that took the parked run over", async () => {
    const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const onA = { cookie: await signIn(a.url, "alice@acme.test") };
    const { runId, gateId } = await parkApproval(a.url, onA);
    // A's stretch reached the receiver before A dies; B takes the durable wait over.
    await receiver.until((spans) => spans.some((s) => s.attributes["harbor.run.id"] === runId && s.name === "invoke_agent concierge"));
    await a.kill();
    await new Promise((r) => setTimeout(r, TTL_MS + 1_000));
    const onB = { cookie: await signIn(b.url, "alice@acme.test") };
    const decided = await trpcMutation(b.url, onB, "interactions.approve", { interactionId: gateId });
    expect(decided.error).toBeUndefined();
    const cycle = await cycleOf(receiver, runId);
    expectCycle(cycle);
    expect(cycle.first.instance).not.toBe(cycle.second.instance);
    expect(cycle.pause.instance).toBe(cycle.second.instance);
  }, 120_000);
});
