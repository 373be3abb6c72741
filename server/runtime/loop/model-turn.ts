/**
 * A streaming model's turn in the run loop: its text goes to readers as it arrives and is stored
 * soon after (`RunJournal.stream`) — what arrived in one turn of the event loop goes out as one
 * delta, so a fast model costs few events and a slow one shows each word at once — and its tool
 * calls are collected for the loop.
 */
import { telemetry } from "@/server/telemetry";
import { toStorableText, type TokenCount } from "@/server/domain";
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
  deps: Pick<RunLoopDeps, "append" | "stream" | "newId" | "textFrameMs">,
  signal: AbortSignal,
): Promise<ModelTurn> {
  const calls: ModelTurn["calls"] = [];
  let message: TranscriptMessage | undefined;
  // Counted only from what the model reports: a model that reports nothing leaves no zeros behind.
  let usage = state.usage;
  const writer = new TextStream(deps, deps.textFrameMs ?? TEXT_FRAME_MS);
  const storable = storableDeltas();
  let failure: unknown;
  try {
    for await (const part of parts) {
      switch (part.type) {
        case "text": {
          // Published before it is stored: what the database cannot store never goes out.
          const delta = storable(part.delta);
          if (delta.length === 0) continue;
          if (!message) {
            message = { id: deps.newId(), role: "assistant", content: "" };
            writer.push({ type: "text.started", messageId: message.id });
          }
          message.content += delta;
          writer.push({ type: "text.delta", messageId: message.id, delta });
          // Far ahead of its writes (a slow database): the model waits, memory stays bounded.
          if (writer.behind) await writer.behind;
          break;
        }
        case "tool_call":
          calls.push({ id: part.id, name: part.name, args: part.args });
          break;
        case "retrying":
          // Stored and published at once, before the wait: whoever follows the run sees why nothing comes yet.
          await writer.write({
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
 * The model's deltas as text the database can store (`toStorableText`). A delta that ends in the
 * first half of a surrogate pair keeps it for the next one, which may bring the second half; one
 * that never comes is dropped with the end of the stream.
 */
function storableDeltas(): (delta: string) => string {
  let held = "";
  return (delta) => {
    const joined = held + delta;
    const last = joined.charCodeAt(joined.length - 1);
    const keep = last >= 0xd800 && last <= 0xdbff ? 1 : 0;
    held = joined.slice(joined.length - keep);
    return toStorableText(joined.slice(0, joined.length - keep));
  };
}

/**
 * What a stretch of a run spent on models: the tokens counted since `start` (the run's count when
 * it started or went on), or undefined when it asked no model — no zeros where there is no data.
 */
export function usageSince(start: TokenCount | undefined, now: TokenCount | undefined): TokenCount | undefined {
  if (!now || (start && now.inputTokens === start.inputTokens && now.outputTokens === start.outputTokens)) return undefined;
  return { inputTokens: now.inputTokens - (start?.inputTokens ?? 0), outputTokens: now.outputTokens - (start?.outputTokens ?? 0) };
}

/**
 * How often a run's streamed text goes out at most, in ms: the first words at once, then what came
 * meanwhile as one delta per frame of a 60 Hz screen — no later than the eye could tell, where a
 * model that sends in bursts would cost an event, a row and a frame per token. `HARBOR_TEXT_FRAME_MS`
 * sets it (0: every turn of the event loop).
 */
export const TEXT_FRAME_MS = 16;

/**
 * The model's text on its way out: published at most every `TEXT_FRAME_MS` (what arrived meanwhile
 * as one delta) and stored soon after; anything else is stored before it is published, after the
 * text before it.
 */
class TextStream {
  private pending: RunEvent[] = [];
  private scheduled = false;
  private releasedAt = -Infinity;
  private failed: unknown;
  /** Set while the run is too far ahead of its writes: the model's stream waits for it. */
  behind: Promise<void> | undefined;

  constructor(
    private readonly deps: Pick<RunLoopDeps, "append" | "stream">,
    private readonly frameMs: number,
  ) {}

  push(event: RunEvent): void {
    this.pending.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.releasedAt + this.frameMs - performance.now();
    // What arrives in the same turn of the event loop goes together, even the first words.
    if (wait <= 0) setImmediate(() => this.release());
    else setTimeout(() => this.release(), wait);
  }

  /** Hands the text pending to the journal (published now, stored soon). */
  private release(): void {
    this.scheduled = false;
    this.releasedAt = performance.now();
    const events = coalesce(this.pending.splice(0));
    if (events.length === 0 || this.failed !== undefined) return;
    try {
      const wait = this.deps.stream(events);
      if (wait) {
        this.behind = wait.then(
          () => (this.behind = undefined),
          (error: unknown) => void (this.failed = error),
        );
      }
    } catch (error) {
      this.failed = error;
    }
  }

  /** Stores then publishes `event`, after the text before it. */
  async write(event: RunEvent): Promise<void> {
    this.release();
    if (this.failed !== undefined) throw this.failed;
    await this.deps.append([event]);
  }

  /** Sends the rest of the text, then stores `closing` with the message it ends (and the text before). */
  async finish(closing: readonly RunEvent[], message: TranscriptMessage | undefined): Promise<void> {
    this.release();
    if (this.behind) await this.behind;
    if (this.failed !== undefined) throw this.failed;
    if (closing.length > 0) await this.deps.append(closing, message ? { message: { ...message } } : undefined);
  }
}

/**
 * Text that arrived in one turn of the event loop goes out as one delta per message: the same
 * words, in fewer events, rows and frames (a fast model does not cost an event per token).
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
