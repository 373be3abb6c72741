/**
 * Harbor's A2A client against the demo's travel agent: a real server and a real client on
 * loopback, no mocks. Both transports the client picks between are covered — streaming
 * (SendStreamingMessage over SSE) and blocking (SendMessage) when the card says no streaming.
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgent, type RemoteOutcome } from "@/server/a2a/remote-agent";
import { startTravelAgent, type RunningTravelAgent } from "@/server/peers/travel-agent";
import { closedPortUrl } from "../../helpers/server";

const MEMBER_TOKEN = "member-token-7f3a9c";

function expectPrompt(outcome: RemoteOutcome, state: "input_required" | "auth_required", prompt: string) {
  expect(outcome).toMatchObject({ state, prompt });
  return outcome as Extract<RemoteOutcome, { state: "input_required" | "auth_required" }>;
}

describe.each([{ streaming: true }, { streaming: false }])("travel agent over A2A (streaming: $streaming)", ({ streaming }) => {
  let agent: RunningTravelAgent;

  beforeAll(async () => {
    agent = await startTravelAgent({ memberToken: MEMBER_TOKEN, streaming });
  });
  afterAll(() => agent.close());

  it("names itself from its agent card", async () => {
    expect(await remoteAgent(agent.url).name()).toBe("Travel agent");
  });

  it("asks which city, then books the trip on the same task", async () => {
    const remote = remoteAgent(agent.url);
    const asked = expectPrompt(await remote.send({ text: "Book a trip" }), "input_required", "Which city?");
    expect(await agent.taskState(asked.taskId)).toBe("input-required");

    const done = await remote.send({ text: "lisbon", taskId: asked.taskId, contextId: asked.contextId });
    const date = new Date(Date.now() + 5 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
    expect(done).toMatchObject({ state: "completed", taskId: asked.taskId, contextId: asked.contextId });
    expect(done.state === "completed" && done.text).toMatch(
      new RegExp(`^Booked a trip to Lisbon on ${date}, confirmation TRV-[0-9A-F]{6}\\.$`),
    );
    expect(await agent.taskState(asked.taskId)).toBe("completed");
  });

  it("asks again when the answer is blank", async () => {
    const remote = remoteAgent(agent.url);
    const asked = expectPrompt(await remote.send({ text: "Book a trip" }), "input_required", "Which city?");
    const again = await remote.send({ text: "   ", taskId: asked.taskId, contextId: asked.contextId });
    expectPrompt(again, "input_required", "Which city?");
    expect(again.taskId).toBe(asked.taskId);
    expect(await agent.taskState(asked.taskId)).toBe("input-required");

    const done = await remote.send({ text: "new  york", taskId: asked.taskId, contextId: asked.contextId });
    expect(done.state === "completed" && done.text).toContain("Booked a trip to New York");
  });

  it("lists bookings only to a caller with the member token", async () => {
    const own = await startTravelAgent({ memberToken: MEMBER_TOKEN, streaming });
    try {
      const remote = remoteAgent(own.url);
      const SIGN_IN = "Sign in to the travel agent: enter your member token.";
      const asked = expectPrompt(await remote.send({ text: "Show my bookings" }), "auth_required", SIGN_IN);
      expect(await own.taskState(asked.taskId)).toBe("auth-required");

      const wrong = await remote.send({ text: "Signed in.", taskId: asked.taskId, contextId: asked.contextId, bearer: "not-the-token" });
      expectPrompt(wrong, "auth_required", SIGN_IN);
      expect(wrong.taskId).toBe(asked.taskId);

      const none = await remote.send({ text: "Signed in.", taskId: asked.taskId, contextId: asked.contextId, bearer: MEMBER_TOKEN });
      expect(none).toMatchObject({ state: "completed", taskId: asked.taskId, text: "You have no upcoming trips." });

      // A trip booked since shows up, and a caller already holding the token is never asked.
      const city = expectPrompt(await remote.send({ text: "Book a trip" }), "input_required", "Which city?");
      await remote.send({ text: "porto", taskId: city.taskId, contextId: city.contextId });
      const listed = await remote.send({ text: "Show my bookings", bearer: MEMBER_TOKEN });
      expect(listed.state).toBe("completed");
      expect(listed.state === "completed" && listed.text).toMatch(/^Your trips: Porto on \d{4}-\d{2}-\d{2} \(TRV-[0-9A-F]{6}\)\.$/);
    } finally {
      await own.close();
    }
  });

  it("cancels a task that waits for input", async () => {
    const remote = remoteAgent(agent.url);
    const asked = expectPrompt(await remote.send({ text: "Book a trip" }), "input_required", "Which city?");
    await remote.cancel(asked.taskId);
    expect(await agent.taskState(asked.taskId)).toBe("canceled");
  });

  it("answers anything else with a line of help", async () => {
    const outcome = await remoteAgent(agent.url).send({ text: "hello" });
    expect(outcome.state).toBe("completed");
    expect(outcome.state === "completed" && outcome.text).toMatch(/Book a trip.*Show my bookings/);
  });
});

describe("remote agent failures", () => {
  it("reports an agent nobody listens for as unavailable, and retries discovery next time", async () => {
    const url = await closedPortUrl();
    const remote = remoteAgent(url);
    const error = await remote.send({ text: "Book a trip", bearer: MEMBER_TOKEN }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "REMOTE_AGENT_UNAVAILABLE", message: "The remote agent cannot be reached." });
    expect(JSON.stringify(error) + String(error)).not.toContain(MEMBER_TOKEN);

    // The failed discovery was not cached: once an agent listens there, the same client finds it.
    const agent = await startTravelAgent({ memberToken: MEMBER_TOKEN, port: Number(new URL(url).port) });
    try {
      expect(await remote.name()).toBe("Travel agent");
    } finally {
      await agent.close();
    }
  });

  it("gives up on an agent that accepts the connection but never answers", async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const started = Date.now();
      await expect(remoteAgent(url, { timeoutMs: 300 }).send({ text: "Book a trip" })).rejects.toMatchObject({
        code: "REMOTE_AGENT_TIMEOUT",
        message: "The remote agent did not answer within 300 ms.",
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("closes promptly with connections still open, and is then unreachable", async () => {
    const agent = await startTravelAgent({ memberToken: MEMBER_TOKEN });
    const { port } = new URL(agent.url);
    const idle = connect(Number(port), "127.0.0.1");
    await new Promise((resolve) => idle.once("connect", resolve));
    const closed = new Promise((resolve) => idle.once("close", resolve));

    const started = Date.now();
    await agent.close();
    await closed;
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(remoteAgent(agent.url).name()).rejects.toMatchObject({ code: "REMOTE_AGENT_UNAVAILABLE" });
  });

  it("rethrows the caller's own abort reason as it is", async () => {
    const agent = await startTravelAgent({ memberToken: MEMBER_TOKEN });
    try {
      const reason = new Error("the run was cancelled");
      const controller = new AbortController();
      controller.abort(reason);
      await expect(remoteAgent(agent.url).send({ text: "Book a trip", signal: controller.signal })).rejects.toBe(reason);
    } finally {
      await agent.close();
    }
  });

  it("reports a protocol refusal as failed, in a plain sentence (its words and URL go to the log)", async () => {
    const agent = await startTravelAgent({ memberToken: MEMBER_TOKEN });
    try {
      const error = await remoteAgent(agent.url)
        .send({ text: "lisbon", taskId: "no-such-task", bearer: MEMBER_TOKEN })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "REMOTE_AGENT_FAILED",
        message: "The remote agent refused the request.",
      });
      expect(JSON.stringify(error) + String(error)).not.toContain(MEMBER_TOKEN);
    } finally {
      await agent.close();
    }
  });
});
