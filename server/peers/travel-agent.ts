/**
 * The demo's remote agent: a real A2A server (JSON-RPC over HTTP, @a2a-js/sdk on express 5) that
 * books trips and lists them. Deterministic — no model, no network beyond its own loopback port —
 * so it can stand in for a third-party agent in the demo and in tests.
 *
 * - "Book a trip" → input-required "Which city?"; the answer completes the task with a booking.
 * - "Show my bookings" → auth-required until a message carries `Authorization: Bearer <memberToken>`.
 * - anything else → completed with a one-line help text.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback } from "./listen";
import { z } from "zod";
import { AGENT_CARD_PATH, Role, TaskState, taskStateToJSON, type AgentCard, type Message, type Part, type Task } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  ServerCallContext,
  STATE_HEADERS_KEY,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

export interface TravelAgentOptions {
  /** 0 or absent = a port the system picks. Always binds 127.0.0.1. */
  port?: number;
  /** The member token `show my bookings` requires as `Authorization: Bearer <token>`. */
  memberToken: string;
  /** Whether the agent card advertises streaming (default true); false makes clients use blocking `SendMessage`. */
  streaming?: boolean;
  /** The endpoint its agent card advertises (default: its own URL); tests point it elsewhere. */
  cardUrl?: string;
}

export interface RunningTravelAgent {
  /** Base URL, e.g. http://127.0.0.1:41234 — the agent card is discoverable from it. */
  url: string;
  /** The state of a task as the agent's task store holds it ("input-required", "completed", "canceled", ...), or undefined. */
  taskState(taskId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

const WHICH_CITY = "Which city?";
const SIGN_IN = "Sign in to the travel agent: enter your member token.";
const HELP = 'I can book a trip ("Book a trip") or list your trips ("Show my bookings").';
const DAY_MS = 24 * 60 * 60 * 1000;

type Intent = "book" | "bookings" | "help";
/** Where a task keeps what it was asked to do, so a follow-up message continues the same errand. */
const INTENT_KEY = "travelAgent.intent";

interface Booking {
  city: string;
  date: string;
  confirmation: string;
}

/** As much of an express app as is used here: given the SDK's routers, then handed to `http.createServer`. */
interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse): void;
  use(path: string, handler: unknown): void;
}

/**
 * Express ships no type declarations and @types/express is not a dependency, so a static import
 * would be an implicit `any` under strict mode. Widening the specifier to `string` stops
 * TypeScript from resolving the module, while Node and bundlers still see `import("express")`.
 */
async function loadExpress(): Promise<() => ExpressApp> {
  const loaded: { default: () => ExpressApp } = await import("express" as string);
  return loaded.default;
}

/**
 * Every caller is anonymous to the SDK: the bearer is checked by the executor, not by a
 * UserBuilder. That is deliberate — the SDK's task store and event buses are scoped by user name,
 * so a task started without a token would be invisible to the follow-up that brings one. A bare
 * context resolves to that same single scope, which is what `taskState` and `cancelTask` read.
 */
const ANONYMOUS = new ServerCallContext();

export async function startTravelAgent(options: TravelAgentOptions): Promise<RunningTravelAgent> {
  const express = await loadExpress();
  const server = createServer();
  const url = await listenOnLoopback(server, options.port);

  const taskStore = new InMemoryTaskStore();
  const executor = travelExecutor(options.memberToken, taskStore);
  const requestHandler = new DefaultRequestHandler(
    agentCard(options.cardUrl ?? url, options.streaming ?? true),
    taskStore,
    executor,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    // The SDK keeps an auth-required task's event bus (and so its SSE stream) open, expecting the
    // credential to arrive out of band while the executor waits. Here the credential comes with a
    // follow-up message, so only input-required keeps the bus; an auth-required stream ends.
    { keepBusAliveStates: [TaskState.TASK_STATE_INPUT_REQUIRED] },
  );

  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  // The card names the URL, so the app is built once the port is known; nothing above awaited since
  // listening began, so no request can be handled before the app is attached.
  server.on("request", app);

  let closing: Promise<void> | undefined;
  return {
    url,
    async taskState(taskId) {
      const task = await taskStore.load(taskId, ANONYMOUS);
      return task?.status ? stateName(task.status.state) : undefined;
    },
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Open SSE streams and keep-alive sockets would otherwise hold `close` until they end.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** "TASK_STATE_INPUT_REQUIRED" → "input-required". */
function stateName(state: TaskState): string {
  return taskStateToJSON(state)
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-");
}

function agentCard(url: string, streaming: boolean): AgentCard {
  return {
    name: "Travel agent",
    description: "Books trips and lists the trips you have booked.",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "book-trip",
        name: "book a trip",
        description: "Books a trip to a city (asks which one) and lists your bookings (members only).",
        tags: ["travel", "booking"],
        examples: ["Book a trip", "Show my bookings"],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

function travelExecutor(memberToken: string, taskStore: InMemoryTaskStore): AgentExecutor {
  const trips: Booking[] = [];

  return {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const reply = replier(context.taskId, context.contextId, bus);
      const text = textOf(context.userMessage.parts);
      const intent = context.task ? intentOf(context.task) : intentFromText(text);

      // The SDK requires a task (or message) as every call's first event. A follow-up republishes
      // its task as working: echoing the stored interrupted state would look like a fresh question.
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: {
            state: context.task ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED,
            message: undefined,
            timestamp: now(),
          },
          artifacts: [],
          history: context.task?.history ?? [context.userMessage],
          metadata: { [INTENT_KEY]: intent },
        }),
      );

      switch (intent) {
        case "book": {
          const city = context.task ? cityFrom(text) : "";
          if (!city) return reply(TaskState.TASK_STATE_INPUT_REQUIRED, WHICH_CITY);
          const booking = book(city, context.taskId);
          trips.push(booking);
          const line = `Booked a trip to ${booking.city} on ${booking.date}, confirmation ${booking.confirmation}.`;
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId: context.taskId,
              contextId: context.contextId,
              artifact: {
                artifactId: "booking",
                name: "Booking",
                description: "",
                parts: [textPart(line)],
                metadata: { ...booking },
                extensions: [],
              },
              append: false,
              lastChunk: true,
              metadata: undefined,
            }),
          );
          return reply(TaskState.TASK_STATE_COMPLETED, line);
        }
        case "bookings": {
          if (!carriesToken(context.context, memberToken)) return reply(TaskState.TASK_STATE_AUTH_REQUIRED, SIGN_IN);
          const list = trips.length
            ? `Your trips: ${trips.map((t) => `${t.city} on ${t.date} (${t.confirmation})`).join("; ")}.`
            : "You have no upcoming trips.";
          return reply(TaskState.TASK_STATE_COMPLETED, list);
        }
        case "help":
          return reply(TaskState.TASK_STATE_COMPLETED, HELP);
      }
    },

    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      // Nothing runs between turns, so cancelling is only the final status.
      const task = await taskStore.load(taskId, ANONYMOUS);
      replier(taskId, task?.contextId ?? "", bus)(TaskState.TASK_STATE_CANCELED, "The trip request was cancelled.");
    },
  };
}

/** Publishes a status with an agent message — the form every question and answer takes here. */
function replier(taskId: string, contextId: string, bus: ExecutionEventBus) {
  return (state: TaskState, text: string): void => {
    const message: Message = {
      messageId: randomUUID(),
      contextId,
      taskId,
      role: Role.ROLE_AGENT,
      parts: [textPart(text)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined }));
  };
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: undefined };
}

function textOf(parts: Part[]): string {
  return parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .join(" ")
    .trim();
}

function intentFromText(text: string): Intent {
  if (/\bbookings\b/i.test(text)) return "bookings";
  if (/\bbook(ing)?\b/i.test(text)) return "book";
  return "help";
}

function intentOf(task: Task): Intent {
  const parsed = z.enum(["book", "bookings", "help"]).safeParse(task.metadata?.[INTENT_KEY]);
  return parsed.success ? parsed.data : "help";
}

/** "  new   york " → "New York"; blank → "". */
function cityFrom(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(" ")
    .slice(0, 80);
}

/** Deterministic for a task: the confirmation derives from its id; the trip is five days out. */
function book(city: string, taskId: string): Booking {
  const confirmation = `TRV-${createHash("sha256").update(taskId).digest("hex").slice(0, 6).toUpperCase()}`;
  const date = new Date(Date.now() + 5 * DAY_MS).toISOString().slice(0, 10);
  return { city, date, confirmation };
}

const RequestHeaders = z.object({ authorization: z.string().optional() });

/** Whether this HTTP request carried `Authorization: Bearer <memberToken>` (the SDK keeps raw headers in the call context). */
function carriesToken(context: ServerCallContext, memberToken: string): boolean {
  const headers = RequestHeaders.safeParse(context.state.get(STATE_HEADERS_KEY));
  const presented = headers.success ? /^Bearer\s+(\S+)\s*$/i.exec(headers.data.authorization ?? "")?.[1] : undefined;
  if (!presented) return false;
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(presented), digest(memberToken));
}

function now(): string {
  return new Date().toISOString();
}
