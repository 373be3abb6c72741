/**
 * Drives Harbor's AG-UI endpoint with the real `@ag-ui/client` — 1.0.0 and the 0.0.59 that
 * CopilotKit pins — and checks every event against `@ag-ui/core/schemas` and `verifyEvents`.
 */
import { randomUUID } from "node:crypto";
import { HttpAgent as HttpAgent100, verifyEvents as verifyEvents100, type BaseEvent, type Message } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent as HttpAgent059, verifyEvents as verifyEvents059 } from "agui-client-059";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import { expect } from "vitest";
import { authHeaders, type Auth } from "./http";

interface ClientLike {
  messages: readonly unknown[];
  runAgent(params: { runId: string }, subscriber: { onEvent(p: { event: BaseEvent }): void }): Promise<unknown>;
}

export interface AguiClient {
  version: "1.0.0" | "0.0.59";
  create(config: { url: string; headers: Record<string, string>; threadId: string; initialMessages: Message[] }): ClientLike;
  verify(events: BaseEvent[]): Promise<BaseEvent[]>;
}

type Verify = (events: Observable<BaseEvent>) => Observable<BaseEvent>;

export const AGUI_CLIENTS: AguiClient[] = [
  {
    version: "1.0.0",
    create: (config) => new HttpAgent100(config) as unknown as ClientLike,
    verify: (events) => lastValueFrom(from(events).pipe(verifyEvents100() as Verify, toArray())),
  },
  {
    version: "0.0.59",
    create: (config) => new HttpAgent059(config as never) as unknown as ClientLike,
    verify: (events) =>
      lastValueFrom(from(events).pipe((verifyEvents059 as unknown as (debug: boolean) => Verify)(false), toArray())),
  },
];

export interface AgentTurn {
  events: BaseEvent[];
  messages: readonly { id: string; role: string; content?: unknown }[];
}

/** One run through the client; asserts the stream is schema-valid, verified and ends with RUN_FINISHED. */
export async function runTurn(
  client: AguiClient,
  options: { baseUrl: string; auth: Auth; threadId: string; messages: Message[]; agentId?: string },
): Promise<AgentTurn> {
  const agent = client.create({
    url: `${options.baseUrl}/api/agents/${options.agentId ?? "concierge"}/runs`,
    headers: authHeaders(options.auth),
    threadId: options.threadId,
    initialMessages: options.messages,
  });
  const events: BaseEvent[] = [];
  await agent.runAgent({ runId: randomUUID() }, { onEvent: ({ event }) => void events.push(event) });
  assertValidStream(events);
  await client.verify(events);
  return { events, messages: agent.messages as AgentTurn["messages"] };
}

export function assertValidStream(events: readonly BaseEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${event.type} does not match the AG-UI schema: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
  expect(events.at(-1)?.type).toBe("RUN_FINISHED");
}

export function userMessage(content: string): Message {
  return { id: randomUUID(), role: "user", content };
}

/** The text of every TEXT_MESSAGE_CONTENT, concatenated. */
export function streamedText(events: readonly BaseEvent[]): string {
  return events
    .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
    .map((e) => (e as BaseEvent & { delta: string }).delta)
    .join("");
}

/** Posts a raw RunAgentInput and returns the response, for status-code and wire-format checks. */
export function postRun(baseUrl: string, auth: Auth | null, body: unknown, agentId = "concierge"): Promise<Response> {
  return fetch(`${baseUrl}/api/agents/${agentId}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? authHeaders(auth) : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function runInput(threadId: string, messages: Message[], extra: Record<string, unknown> = {}) {
  return { threadId, runId: randomUUID(), messages, tools: [], context: [], state: {}, forwardedProps: {}, ...extra };
}
