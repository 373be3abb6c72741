/**
 * MCP tools over the wire: admins connect a real MCP server (the demo calendar, over Streamable
 * HTTP) with tRPC; the assistant's scripted model calls its tools over AG-UI with both client
 * generations (every event validated by the clients), and the server's questions arrive as
 * interrupts `input_required` that the stock clients answer with their own resume[].
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpPeer, type RunningMcpPeer } from "@/server/peers/mcp-server";
import { AGUI_CLIENTS, customEvents, interruptsOf, runTurn, streamedText, userMessage, type AguiClient } from "../helpers/agui";
import { signInCast, trpcMutation, trpcQuery, type Auth } from "../helpers/http";
import { startModelServer, type ChatRequest, type ModelServer } from "../helpers/model-server";
import { startServer, type RunningServer } from "../helpers/server";

/** A model that calls `name` with `args`, and once it has the result, says it back. */
const callsThenSays = (name: string, args: unknown) => (request: ChatRequest) => {
  const last = request.messages.at(-1);
  return last?.role === "tool" ? { text: `Tool said: ${last.content}` } : { toolCalls: [{ name, args }] };
};

describe("MCP tools over tRPC and AG-UI", () => {
  let model: ModelServer;
  let peer: RunningMcpPeer;
  let server: RunningServer;
  let alice: Auth;
  let carol: Auth;
  let mallory: Auth;
  let serverId = "";
  const HEADER_SECRET = `hdr-canary-${randomUUID()}`;

  beforeAll(async () => {
    model = await startModelServer();
    peer = await startMcpPeer({ stepMs: 20 });
    server = await startServer({ HARBOR_MODEL_BASE_URL: model.baseUrl, HARBOR_MODEL: "scripted", HARBOR_STREAM_CHUNK_MS: "0" }, "agui-mcp");
    ({ alice, carol, mallory } = await signInCast(server.url));
    const created = await trpcMutation<{ id: string; tools: number }>(server.url, carol, "mcp.servers.create", {
      name: "team",
      url: peer.url,
      headers: { "x-api-key": HEADER_SECRET },
    });
    expect(created.data).toMatchObject({ tools: 4 });
    serverId = created.data!.id;
    // Each case here is about the server's own questions: the calls' gates are opened.
    for (const tool of ["book_room", "share_calendar"]) {
      expect((await trpcMutation(server.url, carol, "mcp.servers.setGate", { id: serverId, tool, gate: "none" })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
    await model?.close();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it("lets admins manage servers, shows members names only, and keeps other tenants and header values out", async () => {
    const asAdmin = await trpcQuery<{ name: string; headerNames?: string[] }[]>(server.url, carol, "mcp.servers.list");
    expect(asAdmin.data).toContainEqual(expect.objectContaining({ name: "team", headerNames: ["x-api-key"] }));
    expect(JSON.stringify(asAdmin.data)).not.toContain(HEADER_SECRET);
    const asMember = await trpcQuery<Record<string, unknown>[]>(server.url, alice, "mcp.servers.list");
    expect(asMember.data).toContainEqual({ name: "team" });
    expect((await trpcMutation(server.url, alice, "mcp.servers.create", { name: "mine", url: peer.url })).error?.data.code).toBe(
      "FORBIDDEN",
    );
    expect((await trpcQuery(server.url, mallory, "mcp.servers.tools", { id: serverId })).error?.data.code).toBe("NOT_FOUND");
    expect((await trpcMutation(server.url, mallory, "mcp.servers.delete", { id: serverId })).error?.data.code).toBe("NOT_FOUND");
    const ssrf = await trpcMutation(server.url, carol, "mcp.servers.create", { name: "inside", url: "http://10.0.0.7/mcp" });
    expect(ssrf.status).toBe(400);
    expect(ssrf.error?.message).toMatch(/^url: /);
    expect(fs.readFileSync(server.logFile, "utf8")).not.toContain(HEADER_SECRET);
  });

  describe.each(AGUI_CLIENTS)("with @ag-ui/client $version", (client: AguiClient) => {
    const start = (text: string) => {
      const threadId = randomUUID();
      return runTurn(client, { baseUrl: server.url, auth: alice, threadId, messages: [userMessage(text)], agentId: "assistant" }).then(
        (turn) => ({ ...turn, threadId }),
      );
    };

    it("a read-only tool runs at once; its progress-free result reaches the model", async () => {
      model.script(callsThenSays("team__list_events", {}));
      const turn = await start("what is on today?");
      expect(turn.events.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "team__list_events" });
      expect(streamedText(turn.events)).toContain("Team standup");
    });

    it("a form question is an interrupt input_required with the server's schema; the stock client's resume answers it", async () => {
      model.script(callsThenSays("team__book_room", { event: "Review" }));
      const asked = await start("book a room for the review");
      const [question] = interruptsOf(asked.events);
      expect(question).toMatchObject({
        reason: "input_required",
        message: 'Which room should "Review" have, and for how long?',
        responseSchema: { type: "object", properties: { room: { enum: ["Harbor", "Lighthouse", "Dock"] } }, required: ["room", "minutes"] },
        metadata: {
          harnest: { privateInput: true },
          harbor: { pauseReason: "a2a", kind: "mcp_input", mcp: { server: "team", tool: "book_room" } },
        },
      });
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: client.resumeArray(asked.agent.pendingInterrupts, {
          [question!.id]: { status: "resolved", payload: { room: "Dock", minutes: 30 } },
        }),
      });
      expect(done.events.find((e) => e.type === "TOOL_CALL_RESULT")).toMatchObject({ content: expect.stringContaining("Booked Dock") });
    });

    it("declining the form tells the server no; the model hears what the server made of it", async () => {
      model.script(callsThenSays("team__book_room", { event: "Offsite" }));
      const asked = await start("book a room for the offsite");
      const [question] = interruptsOf(asked.events);
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: [{ interruptId: question!.id, status: "resolved", payload: { action: "decline" } }],
      });
      expect(streamedText(done.events)).toContain("the user declined");
    });

    it("a page to open is an interrupt with metadata.harbor.url; done there, the call is tried again", async () => {
      model.script(callsThenSays("team__share_calendar", { with: `bob-${client.version}` }));
      const asked = await start("share my calendar with bob");
      const [page] = interruptsOf(asked.events);
      expect(page).toMatchObject({
        reason: "input_required",
        metadata: { harbor: { kind: "mcp_input", url: expect.stringContaining(peer.url.replace("/mcp", "/share/")) } },
      });
      expect(page!.metadata?.harnest).toBeUndefined();
      await fetch(page!.metadata!.harbor!.url!, { method: "POST" });
      const done = await runTurn(client, {
        baseUrl: server.url,
        auth: alice,
        threadId: asked.threadId,
        messages: [],
        resume: [{ interruptId: page!.id, status: "resolved", payload: { done: true } }],
      });
      expect(streamedText(done.events)).toContain(`Shared Guest's calendar with bob-${client.version}.`);
    });

    it("a destructive tool's progress arrives as CUSTOM tool.progress once another approver let it run", async () => {
      expect(
        (await trpcMutation(server.url, carol, "mcp.servers.setGate", { id: serverId, tool: "cancel_event", gate: "none" })).status,
      ).toBe(200);
      try {
        model.script(callsThenSays("team__cancel_event", { title: `Lunch ${client.version}` }));
        const turn = await start("cancel lunch");
        expect(customEvents(turn.events, "tool.progress")).toEqual([
          expect.objectContaining({ progress: 1, total: 2, message: "Finding the event" }),
          expect.objectContaining({ progress: 2, total: 2, message: "Telling the attendees" }),
        ]);
      } finally {
        await trpcMutation(server.url, carol, "mcp.servers.setGate", { id: serverId, tool: "cancel_event", gate: "default" });
      }
    });
  });
});
