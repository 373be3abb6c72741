/**
 * A remote A2A agent's round trip through a pause, over HTTP against a running server: the user
 * asks the travel agent to book a trip, the remote task asks "Which city?" (the run parks, reason
 * a2a), the owner answers with `resume[]`, the remote task completes and the run finishes. The
 * baseline, in the same run: the same two exchanges with the same travel agent, called directly
 * with Harbor's A2A client and no Harbor around it.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { remoteAgent } from "../server/a2a/remote-agent";
import { keepBusy, percentile } from "./stats";
import { body, events } from "./tools-and-waits";

export interface A2aRoundTrips {
  label: string;
  inFlight: number;
  roundTripsPerSecond: number;
  /** The whole round trip: ask → question → answer → completed. */
  p50: number;
  p99: number;
  /** The answer's leg alone: resume (or the answering message) → completed. */
  answerP50: number;
  answerP99: number;
  failures: number;
}

async function loop(
  inFlight: number,
  seconds: number,
  label: string,
  once: () => Promise<{ total: number; answer: number } | null>,
): Promise<A2aRoundTrips> {
  const { samples, failures, elapsedMs } = await keepBusy(inFlight, seconds, once);
  const totals = samples.total ?? [];
  const answers = samples.answer ?? [];
  return {
    label,
    inFlight,
    roundTripsPerSecond: totals.length / (elapsedMs / 1000),
    p50: percentile(totals, 50),
    p99: percentile(totals, 99),
    answerP50: percentile(answers, 50),
    answerP99: percentile(answers, 99),
    failures,
  };
}

export function measureHarborA2a(baseUrl: string, bearer: string, inFlight: number, seconds: number): Promise<A2aRoundTrips> {
  const url = `${baseUrl}/api/agents/concierge/runs`;
  const headers = { "content-type": "application/json", authorization: `Bearer ${bearer}` };
  return loop(inFlight, seconds, "through Harbor (AG-UI)", async () => {
    const threadId = randomUUID();
    const t0 = performance.now();
    const ask = { id: randomUUID(), role: "user", content: "ask the travel agent to book a trip" };
    const asked = await events(await fetch(url, { method: "POST", headers, body: body(threadId, [ask]) }));
    const finished = asked.at(-1) as { outcome?: { interrupts?: { id: string; reason: string }[] } } | undefined;
    const question = finished?.outcome?.interrupts?.[0];
    if (question?.reason !== "input_required") return null;
    const t1 = performance.now();
    const resume = [{ interruptId: question.id, status: "resolved", payload: { text: "Lisbon" } }];
    const answered = await events(await fetch(url, { method: "POST", headers, body: body(threadId, [], { resume }) }));
    const done = answered.at(-1) as { type?: string; outcome?: { type?: string } } | undefined;
    if (done?.type !== "RUN_FINISHED" || done.outcome?.type !== "success") return null;
    const t2 = performance.now();
    return { total: t2 - t0, answer: t2 - t1 };
  });
}

export function measureDirectA2a(agentUrl: string, inFlight: number, seconds: number): Promise<A2aRoundTrips> {
  const agent = remoteAgent(agentUrl);
  return loop(inFlight, seconds, "direct A2A (baseline)", async () => {
    const t0 = performance.now();
    const asked = await agent.send({ text: "Book a trip" });
    if (asked.state !== "input_required") return null;
    const t1 = performance.now();
    const done = await agent.send({ text: "Lisbon", taskId: asked.taskId, contextId: asked.contextId });
    if (done.state !== "completed") return null;
    const t2 = performance.now();
    return { total: t2 - t0, answer: t2 - t1 };
  });
}
