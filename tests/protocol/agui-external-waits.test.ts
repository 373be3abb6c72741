import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AGUI_CLIENTS, customEvents, runTurn, userMessage, type AguiClient } from "../helpers/agui";
import { authHeaders, signIn, signInCast, trpcQuery, type Auth } from "../helpers/http";
import { startServer, type RunningServer } from "../helpers/server";

interface ResponseBody {
  id: string;
  status: "in_progress" | "completed" | "failed" | "cancelled";
  progress?: { step: number; total: number; label: string };
  output?: { topic: string; report: string; sources: string[] };
  error?: { code: string; message: string };
}

async function poll(baseUrl: string, auth: Auth, responseId: string, timeoutMs = 20_000): Promise<{ seen: string[]; last: ResponseBody }> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${baseUrl}/api/responses/${responseId}`, { headers: authHeaders(auth) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ResponseBody;
    seen.push(body.status);
    if (body.status !== "in_progress" || Date.now() > deadline) return { seen, last: body };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startResearch(baseUrl: string, auth: Auth, client: AguiClient, topic: string) {
  const threadId = randomUUID();
  const turn = await runTurn(client, { baseUrl, auth, threadId, messages: [userMessage(`research ${topic}`)] });
  const [wait] = customEvents(turn.events, "harnest.external_wait") as { responseId: string; toolCallId: string }[];
  if (!wait) throw new Error("expected a harnest.external_wait event");
  return { threadId, turn, wait };
}

const thread = (baseUrl: string, auth: Auth, threadId: string) =>
  trpcQuery<{ messages: { role: string; content: string; toolCallId: string | null }[] }>(baseUrl, auth, "threads.get", { threadId });

describe.each(inject("servers"))("external waits on the $name server", (server) => {
  let alice: Auth;
  let bob: Auth;
  let mallory: Auth;

  beforeAll(async () => {
    ({ alice, bob, mallory } = await signInCast(server.url));
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client) => {
    it("detaches with in_progress, then the response completes and its report is appended to the thread once", async () => {
      const { threadId, turn, wait } = await startResearch(server.url, alice, client, "tide pools");
      expect(turn.events.at(-1)).toMatchObject({
        type: "RUN_FINISHED",
        outcome: { type: "success" },
        result: { status: "in_progress", responseId: wait.responseId },
      });
      expect(turn.events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({
        toolCallName: "deep_research",
        toolCallId: wait.toolCallId,
      });

      const { seen, last } = await poll(server.url, alice, wait.responseId);
      expect(seen[0]).toBe("in_progress");
      expect(last).toMatchObject({ id: wait.responseId, status: "completed", output: { topic: "tide pools" } });
      const viaTrpc = await trpcQuery<ResponseBody>(server.url, alice, "responses.get", { responseId: wait.responseId });
      expect(viaTrpc.data).toMatchObject({ status: "completed", output: last.output });
      const messages = (await thread(server.url, alice, threadId)).data?.messages ?? [];
      expect(messages.filter((m) => m.role === "tool" && m.toolCallId === wait.toolCallId)).toHaveLength(1);
      expect(messages.filter((m) => m.content.startsWith("Research on tide pools is done."))).toHaveLength(1);
    });
  });

  const client = AGUI_CLIENTS[0]!;

  it("reports a failing job as failed, with its error, and says so in the thread", async () => {
    const { threadId, wait } = await startResearch(server.url, alice, client, "nothing");
    const { last } = await poll(server.url, alice, wait.responseId);
    expect(last).toMatchObject({ status: "failed", error: { code: "TOOL_FAILED", message: "No sources found for “nothing”." } });
    const messages = (await thread(server.url, alice, threadId)).data?.messages ?? [];
    expect(messages.at(-1)?.content).toContain("did not finish: No sources found");
  });

  it("answers only its owner: another user and another tenant get 404", async () => {
    const { wait } = await startResearch(server.url, alice, client, "owls");
    for (const other of [bob, mallory]) {
      expect((await fetch(`${server.url}/api/responses/${wait.responseId}`, { headers: authHeaders(other) })).status).toBe(404);
      expect((await trpcQuery(server.url, other, "responses.get", { responseId: wait.responseId })).error?.data.code).toBe("NOT_FOUND");
    }
    expect((await fetch(`${server.url}/api/responses/${wait.responseId}`)).status).toBe(401);
    // Asked from another thread (session), even its owner gets nothing.
    expect(
      (await fetch(`${server.url}/api/responses/${wait.responseId}?threadId=${randomUUID()}`, { headers: authHeaders(alice) })).status,
    ).toBe(404);
    // The thread stays open for conversation while the work goes on.
    await poll(server.url, alice, wait.responseId);
  });
});

describe("an external wait across a crash", () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const s of servers) {
      await s.stop();
      fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
  });

  it("still completes after the server is killed mid-job and restarted, and appends its result exactly once", async () => {
    const env = { HARBOR_RESEARCH_MS: "3000", HARBOR_JOB_LEASE_MS: "1500" };
    const first = await startServer(env, "jobs-crash");
    servers.push(first);
    const cookie = await signIn(first.url, "alice@acme.test");
    const { threadId, wait } = await startResearch(first.url, { cookie }, AGUI_CLIENTS[0]!, "volcanoes");
    // Mid-job: some progress made, not done.
    for (let i = 0; i < 50; i++) {
      const body = (await (await fetch(`${first.url}/api/responses/${wait.responseId}`, { headers: { cookie } })).json()) as ResponseBody;
      if ((body.progress?.step ?? 0) >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await first.kill();

    const second = await startServer({ ...env, HARBOR_DATA_DIR: first.dataDir }, "jobs-crash-restarted");
    servers.push(second);
    const { last } = await poll(second.url, { cookie }, wait.responseId, 30_000);
    expect(last).toMatchObject({ status: "completed", output: { topic: "volcanoes" } });
    const messages = (await thread(second.url, { cookie }, threadId)).data?.messages ?? [];
    expect(messages.filter((m) => m.content.startsWith("Research on volcanoes is done."))).toHaveLength(1);
    expect(messages.filter((m) => m.role === "tool")).toHaveLength(1);
  }, 90_000);
});
