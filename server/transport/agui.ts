/**
 * Runtime events → AG-UI events. Pure mapping; the wire rules (no nulls, integer timestamps,
 * snapshots right before RUN_FINISHED) are kept here.
 */
import {
  EventType,
  type BaseEvent,
  type CustomEvent,
  type Interrupt,
  type Message,
  type MessagesSnapshotEvent,
  type RunErrorEvent,
  type RunFinishedEvent,
  type RunStartedEvent,
  type StateSnapshotEvent,
  type TextMessageContentEvent,
  type TextMessageEndEvent,
  type TextMessageStartEvent,
  type ToolCallArgsEvent,
  type ToolCallEndEvent,
  type ToolCallResultEvent,
  type ToolCallStartEvent,
  type TokenUsage,
} from "@ag-ui/core";
import { HARBOR_METADATA_KEY, kindRules, SEED_METADATA_KEY, WIRE_EVENTS, type TokenCount } from "@/server/domain";
import { APPROVAL_RESPONSE_SCHEMA, type InterruptView, type LoggedEvent, type TranscriptMessage } from "@/server/runtime";
import { HARBOR_AGUI_VERSION, type AguiPeer } from "./agui-version";

/** The transport run these events are sent to: AG-UI names runs by the client's `runId`. */
export interface TransportRun {
  threadId: string;
  runId: string;
  /** The client's protocol generation: what its `RUN_FINISHED` may say (see agui-version.ts). */
  peer: AguiPeer;
}

/** A stretch of a run's model usage in AG-UI 1.0's shape: one entry (Harbor's agents ask one model). */
function tokenUsage(usage: TokenCount): TokenUsage[] {
  return [{ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.inputTokens + usage.outputTokens }];
}

/** What only a 1.x peer is told when a transport run finishes: this stretch's model usage. */
function finishedExtras(peer: AguiPeer, usage: TokenCount | undefined): Pick<RunFinishedEvent, "usage"> {
  return peer === "1.x" && usage ? { usage: tokenUsage(usage) } : {};
}

/** Transcript messages as AG-UI messages; tool-call arguments travel as JSON strings. */
export function toAguiMessage(m: TranscriptMessage): Message {
  switch (m.role) {
    case "assistant":
      return m.toolCalls && m.toolCalls.length > 0
        ? {
            id: m.id,
            role: "assistant",
            ...(m.content ? { content: m.content } : {}),
            toolCalls: m.toolCalls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          }
        : { id: m.id, role: "assistant", content: m.content };
    case "tool":
      return { id: m.id, role: "tool", content: m.content, toolCallId: m.toolCallId ?? "" };
    case "user":
    case "system":
    case "developer":
      return { id: m.id, role: m.role, content: m.content };
  }
}

/** An open interaction as an AG-UI interrupt (the wire contract: README, "Approvals", and docs/protocol.md). */
export function toInterrupt(view: InterruptView): Interrupt {
  // A credential a remote agent asks for is private input: sent only in resume[].payload, kept nowhere.
  const rules = kindRules(view.kind);
  const privateInput = rules.privateAnswer(view.detail);
  // Nobody answers these with a payload: an admin resumes an operator's pause, the provider's callback a consent.
  const unanswerable = !rules.takesPayload;
  return {
    id: view.id,
    reason: rules.wireReason(view),
    message: view.message,
    ...(view.toolCallId ? { toolCallId: view.toolCallId } : {}),
    ...(unanswerable ? {} : { responseSchema: view.responseSchema ?? APPROVAL_RESPONSE_SCHEMA }),
    expiresAt: new Date(view.expiresAt).toISOString(),
    metadata: {
      // The spec's own marker: render a private form, send its value only in resume[].payload.
      ...(privateInput ? { [SEED_METADATA_KEY]: { privateInput: true } } : {}),
      [HARBOR_METADATA_KEY]: {
        pauseId: view.id,
        pauseReason: view.reason,
        runId: view.runId,
        kind: view.kind,
        policy: view.policy,
        resumeToken: view.resumeToken,
        ...(view.tool ? { tool: view.tool } : {}),
        ...(view.detail?.authorizationUrl ? { authorizationUrl: view.detail.authorizationUrl, provider: view.detail.provider } : {}),
        ...(view.detail?.agent ? { agent: view.detail.agent } : {}),
        // An MCP server's question: who asks, and the page to open when it is a URL step.
        ...(view.detail?.mcp ? { mcp: view.detail.mcp } : {}),
        ...(view.detail?.url ? { url: view.detail.url } : {}),
        ...(view.quorum ? { quorum: view.quorum } : {}),
        ...(view.deadline ? { deadline: view.deadline } : {}),
        // What the approval may also allow from now on (the tool version it binds stays on the server).
        ...(view.detail?.grant
          ? {
              grant: {
                bounds: view.detail.grant.bounds,
                summary: view.detail.grant.summary,
                ...(view.detail.grant.caps ? { caps: view.detail.grant.caps } : {}),
              },
            }
          : {}),
      },
    },
  };
}

/** Harbor's own events on the wire: `CUSTOM` with a stable name. */
function custom(name: string, timestamp: number, value: Record<string, unknown>): CustomEvent {
  return { type: EventType.CUSTOM, name, value, timestamp };
}

/** `RUN_STARTED` for a transport run: Harbor declares its own protocol version to every peer. */
export function runStarted(transport: TransportRun, timestamp: number): RunStartedEvent {
  return {
    type: EventType.RUN_STARTED,
    threadId: transport.threadId,
    runId: transport.runId,
    protocolVersion: HARBOR_AGUI_VERSION,
    timestamp,
  };
}

/**
 * `RUN_FINISHED` of a run stopped on purpose (CANCEL, `multitask: interrupt`, an abandoned
 * interrupt): 1.x has an outcome for it; a peer from before versions knows only success, so it
 * reads the status from `result`.
 */
export function runCancelled(transport: TransportRun, timestamp: number, usage?: TokenCount): RunFinishedEvent {
  const { threadId, runId, peer } = transport;
  return peer === "1.x"
    ? { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "cancelled" }, ...finishedExtras(peer, usage), timestamp }
    : { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "success" }, result: { status: "cancelled" }, timestamp };
}

/** A parked run's `RUN_FINISHED`: its interrupts, or success (1.x: naming the browser tools it waits for). */
function runPaused(e: Extract<LoggedEvent["event"], { type: "run.paused" }>, transport: TransportRun, timestamp: number): RunFinishedEvent {
  const { threadId, runId, peer } = transport;
  // Only pauses are interrupts; a run waiting for a browser tool finishes its transport run plainly.
  const interrupts = e.interrupts.filter((i) => i.reason !== null).map(toInterrupt);
  // Work in the background: the client detaches and polls the response id.
  const background = e.interrupts.find((i) => i.kind === "external_wait");
  const browserCalls = e.interrupts.flatMap((i) => (i.kind === "client_tool" && i.toolCallId ? [i.toolCallId] : []));
  const outcome: RunFinishedEvent["outcome"] =
    interrupts.length > 0
      ? { type: "interrupt", interrupts }
      : { type: "success", ...(peer === "1.x" && browserCalls.length > 0 ? { pendingToolCallIds: browserCalls } : {}) };
  return {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    outcome,
    ...(background && interrupts.length === 0 ? { result: { status: "in_progress", responseId: background.id } } : {}),
    ...finishedExtras(peer, e.usage),
    timestamp,
  };
}

export function toAguiEvents(logged: LoggedEvent, transport: TransportRun): BaseEvent[] {
  const timestamp = logged.at;
  const e = logged.event;
  const { threadId, runId } = transport;
  switch (e.type) {
    case "run.started":
      return [runStarted(transport, timestamp)];
    case "text.started":
      return [{ type: EventType.TEXT_MESSAGE_START, messageId: e.messageId, role: "assistant", timestamp } satisfies TextMessageStartEvent];
    case "text.delta":
      return [
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId: e.messageId, delta: e.delta, timestamp } satisfies TextMessageContentEvent,
      ];
    case "text.ended":
      return [{ type: EventType.TEXT_MESSAGE_END, messageId: e.messageId, timestamp } satisfies TextMessageEndEvent];
    case "tool.call":
      return [
        {
          type: EventType.TOOL_CALL_START,
          toolCallId: e.toolCallId,
          toolCallName: e.name,
          parentMessageId: e.messageId,
          timestamp,
        } satisfies ToolCallStartEvent,
        { type: EventType.TOOL_CALL_ARGS, toolCallId: e.toolCallId, delta: JSON.stringify(e.args), timestamp } satisfies ToolCallArgsEvent,
        { type: EventType.TOOL_CALL_END, toolCallId: e.toolCallId, timestamp } satisfies ToolCallEndEvent,
      ];
    case "tool.result":
      return [
        {
          type: EventType.TOOL_CALL_RESULT,
          messageId: e.messageId,
          toolCallId: e.toolCallId,
          content: e.content,
          role: "tool",
          timestamp,
        } satisfies ToolCallResultEvent,
      ];
    case "tool.progress":
      return [
        custom(WIRE_EVENTS.toolProgress, timestamp, {
          toolCallId: e.toolCallId,
          progress: e.progress,
          ...(e.total !== undefined ? { total: e.total } : {}),
          ...(e.message ? { message: e.message } : {}),
        }),
      ];
    case "pause.requested":
      return [
        custom(WIRE_EVENTS.pauseRequested, timestamp, {
          pauseId: e.id,
          runId: e.runId,
          reason: e.reason,
          kind: e.kind,
          resumeToken: e.resumeToken,
          expiresAt: new Date(e.expiresAt).toISOString(),
        }),
      ];
    case "client_tool.requested":
      return [custom(WIRE_EVENTS.clientTool, timestamp, { requestId: e.requestId, toolCallId: e.toolCallId, toolName: e.toolName })];
    case "external_wait.started":
      return [custom(WIRE_EVENTS.externalWait, timestamp, { responseId: e.responseId, toolCallId: e.toolCallId })];
    case "children.started":
      return [custom("children.started", timestamp, { runIds: e.runIds })];
    case "steer.applied":
      return [custom("steer.applied", timestamp, { instruction: e.instruction, ...(e.detail ? { detail: e.detail } : {}) })];
    case "pause.reminder":
    case "pause.escalated":
      // Written while the run is parked, between its transport runs: AG-UI has no place for an
      // event there. The console's timeline, the audit and webhooks carry them.
      return [];
    case "grant.used":
      return [custom(WIRE_EVENTS.grantUsed, timestamp, { grantId: e.grantId, toolCallId: e.toolCallId, toolName: e.toolName })];
    case "model.retrying":
      return [
        custom(WIRE_EVENTS.modelRetrying, timestamp, {
          runId: logged.runId,
          attempt: e.attempt,
          maxAttempts: e.maxAttempts,
          delayMs: e.delayMs,
          reason: e.reason,
        }),
      ];
    case "budget.warning":
      return [custom(WIRE_EVENTS.budgetWarning, timestamp, { scope: e.scope, period: e.period, used: e.used, limit: e.limit })];
    case "pause.resumed":
      return [custom(WIRE_EVENTS.pauseResumed, timestamp, { pauseId: e.pauseId, runId: e.runId, decision: e.decision })];
    case "snapshot":
      return [
        { type: EventType.STATE_SNAPSHOT, snapshot: e.state, timestamp } satisfies StateSnapshotEvent,
        { type: EventType.MESSAGES_SNAPSHOT, messages: e.messages.map(toAguiMessage), timestamp } satisfies MessagesSnapshotEvent,
      ];
    case "run.paused":
      return [runPaused(e, transport, timestamp)];
    case "run.queued":
      return [custom(WIRE_EVENTS.runQueued, timestamp, { runId: logged.runId, position: e.position })];
    case "run.handed_off":
      return [custom(WIRE_EVENTS.runHandedOff, timestamp, { runId: logged.runId })];
    case "run.cancelled":
      return [custom(WIRE_EVENTS.runCancelled, timestamp, { runId: logged.runId, by: { role: e.by } })];
    case "run.completed":
      if (e.status === "cancelled") return [runCancelled(transport, timestamp, e.usage)];
      return [
        {
          type: EventType.RUN_FINISHED,
          threadId,
          runId,
          outcome: { type: "success" },
          // A run that ended on a rejected gate says so: the action did not happen, yet nothing failed.
          ...(e.status ? { result: { status: e.status } } : {}),
          ...finishedExtras(transport.peer, e.usage),
          timestamp,
        } satisfies RunFinishedEvent,
      ];
    // RUN_ERROR carries the runtime's code itself: the documented, closed set clients switch on.
    case "run.failed":
      return [{ type: EventType.RUN_ERROR, message: e.message, code: e.code, timestamp } satisfies RunErrorEvent];
  }
}
