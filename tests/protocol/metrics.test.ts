/**
 * Prometheus metrics at /api/metrics: only for the bearer of HARBOR_METRICS_TOKEN; after an
 * approval cycle and a model's turn they show the runs by agent and status, the open pauses, the
 * pause's wait and the decision's latency, the model's tokens by tenant, statement latency and
 * this instance's load — in Prometheus's text format.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { interruptsOf, postRun, runInput, userMessage } from "../helpers/agui";
import { readSse, signIn, trpcMutation, type Auth } from "../helpers/http";
import { startModelServer, type ModelServer } from "../helpers/model-server";
import { OWN_ENGINES, startOwnServer, type OwnServer } from "../helpers/own-server";

const TOKEN = "metrics-token-for-the-tests";

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split("\n")
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)) : false,
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe.each(OWN_ENGINES)("Prometheus metrics on $name", ({ name }) => {
  let server: OwnServer;
  let model: ModelServer;
  let alice: Auth;

  beforeAll(async () => {
    model = await startModelServer(() => ({ text: "Hello from the model.", usage: { prompt: 12, completion: 5 } }));
    server = await startOwnServer(name, "metrics", {
      HARBOR_METRICS_TOKEN: TOKEN,
      HARBOR_MODEL_BASE_URL: model.baseUrl,
      HARBOR_MODEL: "scripted",
    });
    alice = { cookie: await signIn(server.url, "alice@acme.test") };
  });

  afterAll(async () => {
    await server?.dispose();
    await model?.close();
  });

  const scrape = (authorization?: string) => fetch(`${server.url}/api/metrics`, { headers: authorization ? { authorization } : {} });

  it("answers 401 without the token, or with another (a session is not enough)", async () => {
    for (const res of [await scrape(), await scrape("Bearer not-the-token"), await scrape(`Basic ${TOKEN}`)]) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
    }
    const withCookie = await fetch(`${server.url}/api/metrics`, { headers: { cookie: (alice as { cookie: string }).cookie } });
    expect(withCookie.status).toBe(401);
  });

  it("shows an approval cycle, a model's tokens by tenant, statements and the instance's load", async () => {
    const parked = await readSse(
      await postRun(server.url, alice, runInput(randomUUID(), [userMessage("send an email to metrics@example.com saying hi")])),
    );
    const [gate] = interruptsOf(parked.map((f) => JSON.parse(f.data)));
    const waiting = await (await scrape(`Bearer ${TOKEN}`)).text();
    expect(sample(waiting, "harbor_open_pauses", { kind: "approval" })).toBeGreaterThanOrEqual(1);

    await trpcMutation(server.url, alice, "interactions.approve", { interactionId: gate!.id });
    await readSse(await postRun(server.url, alice, runInput(randomUUID(), [userMessage("hello")]), "assistant"));

    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(sample(text, "harbor_runs", { agent: "concierge", status: "completed" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "harbor_runs", { agent: "assistant", status: "completed" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "harbor_open_pauses", { kind: "approval" }) ?? 0).toBe(0);
    expect(sample(text, "harbor_pause_wait_seconds_count", { kind: "approval", decision: "approved" })).toBe(1);
    expect(sample(text, "harbor_decision_latency_seconds_count", { kind: "approval" })).toBe(1);
    expect(sample(text, "harbor_model_tokens_total", { direction: "input" })).toBe(12);
    expect(sample(text, "harbor_model_tokens_total", { direction: "output" })).toBe(5);
    expect(text).toMatch(/harbor_model_tokens_total\{tenant="[^"]+",direction="output"\} 5/);
    expect(sample(text, "harbor_db_statement_seconds_count", { engine: name })).toBeGreaterThan(0);
    expect(sample(text, "harbor_active_runs")).toBe(0);
    expect(sample(text, "harbor_queued_runs")).toBe(0);
    expect(sample(text, "harbor_shedding")).toBe(0);
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    // What people typed never becomes a label or a value.
    expect(text).not.toContain("metrics@example.com");
  }, 60_000);
});
