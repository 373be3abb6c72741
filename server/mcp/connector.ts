/**
 * Harbor's MCP client, with the official SDK: lists a server's tools and calls them, each on a
 * session of its own (so one call's questions and cancellation touch no other call).
 *
 * The SDK is loaded the first time a server is reached, not when Harbor starts: a deployment
 * that connects no MCP server never carries it (measured: loading it at start-up added some
 * 30–60 MB to the peak of reading a 50,000-event run, `tests/protocol/memory.test.ts`).
 */
import type { McpListedTool } from "@/server/domain";
import type { McpCallRequest, McpConnector, McpListing, McpServerAddress } from "@/server/runtime";
import type * as LiveCallModule from "./live-call";
import type { CallLimits } from "./live-call";
import type * as SessionModule from "./session";

/** The SDK-backed parts, loaded once, on first use. */
let client: Promise<[typeof SessionModule, typeof LiveCallModule]> | undefined;
const sdk = () => (client ??= Promise.all([import("./session"), import("./live-call")]));

export interface McpClientSettings {
  /** HARBOR_MCP_ALLOW_LOCAL: loopback and private addresses may be reached. */
  allowLocal: boolean;
  /** HARBOR_MCP_TIMEOUT_MS: how long a server may stay silent before a call fails with MCP_TIMEOUT. */
  timeoutMs: number;
  /** How long a form may wait for its owner while its session is held open (the a2a TTL). */
  holdMs: number;
}

/** The most tools one server may list (pages are read until then), and what is kept of each. */
const MAX_TOOLS = 200;
const MAX_NAME = 128;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 2_000;
/** A tool whose input schema is longer than this (as JSON) is left out. */
const MAX_SCHEMA_CHARS = 32_000;

export function mcpConnector(settings: McpClientSettings): McpConnector {
  const limits: CallLimits = settings;
  return {
    async list(server): Promise<McpListing> {
      const [{ openSession, unreachable, wantedBy }] = await sdk();
      const session = await openSession(server, { allowLocal: settings.allowLocal, timeoutMs: settings.timeoutMs });
      const challenge = session.challenge();
      if (session.closed() && challenge) return { type: "unauthorized", ...(await wantedBy(server, challenge, settings.allowLocal)) };
      try {
        const tools: McpListedTool[] = [];
        let cursor: string | undefined;
        do {
          const page = await session.client.listTools(cursor ? { cursor } : {}, { timeout: settings.timeoutMs });
          for (const tool of page.tools) {
            // What is stored per tenant is bounded: a server cannot fill the database with its catalog.
            if (tool.name.length > MAX_NAME || JSON.stringify(tool.inputSchema).length > MAX_SCHEMA_CHARS) continue;
            tools.push({
              name: tool.name,
              ...(tool.title ? { title: tool.title.slice(0, MAX_TITLE) } : {}),
              ...(tool.description ? { description: tool.description.slice(0, MAX_DESCRIPTION) } : {}),
              inputSchema: tool.inputSchema,
              annotations: tool.annotations ?? {},
            });
          }
          cursor = page.nextCursor;
        } while (cursor && tools.length < MAX_TOOLS);
        return { type: "tools", tools: tools.slice(0, MAX_TOOLS) };
      } catch (error) {
        throw unreachable(server, error);
      } finally {
        await session.close();
      }
    },

    tool(server: McpServerAddress, tool: string) {
      return {
        async call(request: McpCallRequest) {
          const [{ openSession, wantedBy }, { LiveToolCall }] = await sdk();
          const call = new LiveToolCall(server, tool, request, limits);
          const session = await openSession(server, {
            allowLocal: settings.allowLocal,
            timeoutMs: settings.timeoutMs,
            ...(request.bearer ? { bearer: request.bearer } : {}),
            onElicit: (params) => call.elicited(params),
          });
          const challenge = session.challenge();
          if (session.closed() && challenge) return { type: "unauthorized", ...(await wantedBy(server, challenge, settings.allowLocal)) };
          return call.start(session);
        },
      };
    },
  };
}
