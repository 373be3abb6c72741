/**
 * Drives Harbor's AG-UI endpoint with the real `@ag-ui/client` — 1.0.0 and the 0.0.59 that
 * CopilotKit pins — and checks every event against each client's own `@ag-ui/core` schemas and
 * `verifyEvents`. The 1.0.0 client says `protocolVersion: "1.0"`; 0.0.59 says none.
 */
import { randomUUID } from "node:crypto";
import {
  buildResumeArray as buildResumeArray100,
  HttpAgent as HttpAgent100,
  verifyEvents as verifyEvents100,
  type BaseEvent,
  type Message,
} from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventSchemas as EventSchemas059 } from "agui-core-059";
import { buildResumeArray as buildResumeArray059, HttpAgent as HttpAgent059, verifyEvents as verifyEvents059 } from "agui-client-059";
import { from, lastValueFrom, toArray, type Observable } from "rxjs";
import { expect } from "vitest";
import { authHeaders, type Auth } from "./http";

export interface ResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
}

export interface ClientLike {
  messages: readonly unknown[];
  /** The interrupts the last run ended with, as the client keeps them. */
  pendingInterrupts: readonly { id: string }[];
  addMessage(message: Message): void;
  runAgent(params: { runId: string; resume?: ResumeEntry[] }, subscriber: { onEvent(p: { event: BaseEvent }): void }): Promise<unknown>;
}

export interface AguiClient {
  version: "1.0.0" | "0.0.59";
  /** Whether Harbor serves it as a 1.x peer (it sends `protocolVersion`). */
  versioned: boolean;
  /** Parses one event with the client's own schema: its issues, or undefined when it is valid. */
  parse(event: unknown): string | undefined;
  create(config: {
    url: string;
    headers: Record<string, string>;
    threadId: string;
    initialMessages: Message[];
    /** The fetch the client sends its request with (both versions take one). */
    fetch?: (url: string, init: RequestInit) => Promise<Response>;
  }): ClientLike;
  verify(events: BaseEvent[]): Promise<BaseEvent[]>;
  /** The client's own `buildResumeArray`: what a stock client sends to answer its open interrupts. */
  resumeArray(
    interrupts: readonly { id: string }[],
    responses: Record<string, { status: "resolved"; payload?: unknown } | { status: "cancelled" }>,
  ): ResumeEntry[];
}

type Verify = (events: Observable<BaseEvent>) => Observable<BaseEvent>;

function issuesOf(result: { success: boolean; error?: { issues: unknown } }): string | undefined {
  return result.success ? undefined : JSON.stringify(result.error?.issues);
}

export const AGUI_CLIENTS: AguiClient[] = [
  {
    version: "1.0.0",
    versioned: true,
    parse: (event) => issuesOf(EventSchemas.safeParse(event)),
    create: (config) => new HttpAgent100(config) as unknown as ClientLike,
    verify: (events) => lastValueFrom(from(events).pipe(verifyEvents100() as Verify, toArray())),
    resumeArray: (interrupts, responses) => buildResumeArray100(interrupts as never, responses),
  },
  {
    version: "0.0.59",
    versioned: false,
    parse: (event) => issuesOf(EventSchemas059.safeParse(event)),
    create: (config) => new HttpAgent059(config as never) as unknown as ClientLike,
    verify: (events) => lastValueFrom(from(events).pipe((verifyEvents059 as unknown as (debug: boolean) => Verify)(false), toArray())),
    resumeArray: (interrupts, responses) => buildResumeArray059(interrupts as never, responses),
  },
];

export interface AgentTurn {
  events: BaseEvent[];
  messages: readonly { id: string; role: string; content?: unknown; toolCallId?: string }[];
  /** The client, to continue the conversation with (it keeps messages and pending interrupts). */
  agent: ClientLike;
}

/**
 * One run through the client; asserts the stream is schema-valid, verified and ends as expected
 * (RUN_FINISHED unless told RUN_ERROR). Pass `agent` to continue with the same client (`messages`
 * are then added to its history).
 */
export async function runTurn(
  client: AguiClient,
  options: {
    baseUrl: string;
    auth: Auth;
    threadId: string;
    messages: Message[];
    agentId?: string;
    agent?: ClientLike;
    resume?: ResumeEntry[];
    ends?: "RUN_FINISHED" | "RUN_ERROR";
    fetch?: (url: string, init: RequestInit) => Promise<Response>;
  },
): Promise<AgentTurn> {
  const agent =
    options.agent ??
    client.create({
      url: `${options.baseUrl}/api/agents/${options.agentId ?? "concierge"}/runs`,
      headers: authHeaders(options.auth),
      threadId: options.threadId,
      initialMessages: options.messages,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  if (options.agent) for (const message of options.messages) agent.addMessage(message);
  const events: BaseEvent[] = [];
  await agent.runAgent(
    { runId: randomUUID(), ...(options.resume ? { resume: options.resume } : {}) },
    { onEvent: ({ event }) => void events.push(event) },
  );
  assertValidStream(events, options.ends, client);
  await client.verify(events);
  return { events, messages: agent.messages as AgentTurn["messages"], agent };
}

/** Every event valid by the client's own schema (by 1.0's when no client is named), ending as expected. */
export function assertValidStream(
  events: readonly BaseEvent[],
  ends: "RUN_FINISHED" | "RUN_ERROR" = "RUN_FINISHED",
  client: AguiClient = AGUI_CLIENTS[0]!,
): void {
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) {
    const issues = client.parse(event);
    expect(issues, `${event.type} does not match @ag-ui/core ${client.version}'s schema: ${issues}`).toBeUndefined();
  }
  expect(events.at(-1)?.type, JSON.stringify(events.at(-1))).toBe(ends);
}

export interface WireInterrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: Record<string, unknown>;
  expiresAt?: string;
  metadata?: {
    harbor?: {
      pauseId: string;
      pauseReason: string;
      resumeToken: string;
      runId: string;
      policy: string;
      tool?: { name: string; args: Record<string, unknown> };
      /** An OAuth pause's consent page and provider. */
      authorizationUrl?: string;
      provider?: string;
      /** A remote agent's name. */
      agent?: string;
      kind?: string;
      /** An MCP server's question: who asks, and the page to open for a URL step. */
      mcp?: { server: string; tool: string };
      url?: string;
    };
    harnest?: { privateInput?: boolean };
  };
}

/**
 * How a run stopped on purpose (CANCEL, an abandoned interrupt) ends for `client`: 1.x's cancelled
 * outcome, or — for a peer from before versions, which knows no such outcome — success that says
 * so in `result`.
 */
export function cancelledEnding(client: AguiClient): Record<string, unknown> {
  return client.versioned
    ? { type: "RUN_FINISHED", outcome: { type: "cancelled" } }
    : { type: "RUN_FINISHED", outcome: { type: "success" }, result: { status: "cancelled" } };
}

/** The interrupts a stream ended with (none when it did not end on an interrupt). */
export function interruptsOf(events: readonly BaseEvent[]): WireInterrupt[] {
  const last = events.at(-1) as (BaseEvent & { outcome?: { type: string; interrupts?: WireInterrupt[] } }) | undefined;
  return last?.outcome?.type === "interrupt" ? (last.outcome.interrupts ?? []) : [];
}

/** The RUN_ERROR a stream ended with. */
export function runError(events: readonly BaseEvent[]): { code?: string; message: string } | undefined {
  const last = events.at(-1) as BaseEvent & { code?: string; message: string };
  return last?.type === "RUN_ERROR" ? last : undefined;
}

export function customEvents(events: readonly BaseEvent[], name: string): Record<string, unknown>[] {
  return events
    .filter((e) => e.type === "CUSTOM" && (e as BaseEvent & { name: string }).name === name)
    .map((e) => (e as BaseEvent & { value: Record<string, unknown> }).value);
}

export const approve = (interruptId: string, approved = true, reason?: string): ResumeEntry => ({
  interruptId,
  status: "resolved",
  payload: reason ? { approved, reason } : { approved },
});

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
