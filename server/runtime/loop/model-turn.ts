/**
 * A streaming model's turn in the run loop: its text is written to the run's log as it arrives —
 * whatever came while the previous write was in flight goes in the next one, as one delta, so a
 * fast model costs few writes and events and a slow one shows each word at once — and its tool
 * calls are collected for the loop.
 */
import { telemetry } from "@/server/telemetry";
import type { TokenCount } from "@/server/domain";
import { HarborError } from "../errors";
import type { RunEvent } from "../log";
import type { ModelPart } from "../agent";
import type { RunLoopDeps } from "./run-loop-types";
import type { RunState, TranscriptMessage } from "../agent";

export interface ModelTurn {
  state: RunState;
  /** The calls the model asked for, each with the model's own id. */
  calls: { id: string; name: string; args: unknown }[];
  /** The stream stopped because the run was cancelled (the loop's next safe point ends it). */
  aborted: boolean;
  /** The model said something (text). */
  said: boolean;
}

export async function streamModelTurn(
  state: RunState,
  parts: AsyncIterable<ModelPart>,
  deps: Pick<RunLoopDeps, "append" | "newId">,
  signal: AbortSignal,
): Promise<ModelTurn> {
  const calls: ModelTurn["calls"] = [];
  let message: TranscriptMessage | undefined;
  // Counted only from what the model reports: a model that reports nothing leaves no zeros behind.
  let usage = state.usage;
  const writer = new BatchedWriter(deps);
  let failure: unknown;
  try {
    for await (const part of parts) {
      switch (part.type) {
        case "text":
          if (part.delta.length === 0) continue;
          if (!message) {
            message = { id: deps.newId(), role: "assistant", content: "" };
            writer.push({ type: "text.started", messageId: message.id });
          }
          message.content += part.delta;
          writer.push({ type: "text.delta", messageId: message.id, delta: part.delta });
          break;
        case "tool_call":
          calls.push({ id: part.id, name: part.name, args: part.args });
          break;
        case "retrying":
          // Written at once, before the wait: whoever follows the run sees why nothing comes yet.
          writer.push({
            type: "model.retrying",
            attempt: part.attempt,
            maxAttempts: part.maxAttempts,
            delayMs: part.delayMs,
            reason: part.reason,
          });
          break;
        case "usage":
          telemetry.modelTokens(state.tenantId, part.inputTokens, part.outputTokens);
          usage = {
            inputTokens: (usage?.inputTokens ?? 0) + part.inputTokens,
            outputTokens: (usage?.outputTokens ?? 0) + part.outputTokens,
          };
          break;
      }
    }
  } catch (error) {
    failure = error;
  }
  // Whatever happened, a text message that started ends, with what was said so far.
  const closing: RunEvent[] = message ? [{ type: "text.ended", messageId: message.id }] : [];
  await writer.finish(closing, message);
  const next: RunState = {
    ...state,
    ...(usage ? { usage } : {}),
    transcript: message ? [...state.transcript, { ...message }] : state.transcript,
  };
  if (failure !== undefined) {
    if (signal.aborted) return { state: next, calls: [], aborted: true, said: message !== undefined };
    throw failure instanceof HarborError
      ? failure
      : Object.assign(new HarborError("MODEL_UNAVAILABLE", "The model failed while answering."), { cause: failure });
  }
  return { state: next, calls: signal.aborted ? [] : calls, aborted: signal.aborted, said: message !== undefined };
}

/**
 * What a stretch of a run spent on models: the tokens counted since `start` (the run's count when
 * it started or went on), or undefined when it asked no model — no zeros where there is no data.
 */
export function usageSince(start: TokenCount | undefined, now: TokenCount | undefined): TokenCount | undefined {
  if (!now || (start && now.inputTokens === start.inputTokens && now.outputTokens === start.outputTokens)) return undefined;
  return { inputTokens: now.inputTokens - (start?.inputTokens ?? 0), outputTokens: now.outputTokens - (start?.outputTokens ?? 0) };
}

/** Appends events one write at a time; events pushed meanwhile wait and go together in the next. */
class BatchedWriter {
  private pending: RunEvent[] = [];
  private writing: Promise<void> | undefined;
  private failed: unknown;

  constructor(private readonly deps: Pick<RunLoopDeps, "append">) {}

  push(event: RunEvent): void {
    this.pending.push(event);
    this.writing ??= this.drain().finally(() => (this.writing = undefined));
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.deps.append(coalesce(this.pending.splice(0)));
    } catch (error) {
      this.failed = error;
    }
  }

  /** Waits for the writes in flight, then writes the rest with `closing` (and the message they end). */
  async finish(closing: readonly RunEvent[], message: TranscriptMessage | undefined): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed !== undefined) throw this.failed;
    const rest = [...coalesce(this.pending.splice(0)), ...closing];
    if (rest.length > 0) await this.deps.append(rest, message ? { message: { ...message } } : undefined);
  }
}

/**
 * Text that arrived while a write was in flight goes out as one delta per message: the same words,
 * in fewer events, rows and frames (a fast model no longer costs an event per token).
 */
function coalesce(events: readonly RunEvent[]): RunEvent[] {
  const out: RunEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if (event.type === "text.delta" && last?.type === "text.delta" && last.messageId === event.messageId) {
      out[out.length - 1] = { ...last, delta: last.delta + event.delta };
    } else out.push(event);
  }
  return out;
}
