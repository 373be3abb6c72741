/**
 * The ids a model's tool calls go by. A model names each call it makes and expects its result
 * under that same id in the next request: providers check it (some require their own format,
 * stateful APIs the very id they issued), and a model that never sees a result for its call asks
 * again. So the model's id is kept toward the model, always. In the thread, on the wire and in the
 * outbox's exactly-once key, a call needs an id no other call of the thread has: the model's id
 * serves unless it is unusable or already taken there (models that number their calls `call_0`
 * every turn), when the call gets an id of Harbor's own and remembers the model's.
 */
import { isStorableText, type StoredToolCall } from "@/server/domain";
import type { TranscriptMessage } from "./state";

/** As long as an id may be anywhere in Harbor's inputs (an interrupt's or a tool message's). */
const MAX_ID_LENGTH = 200;

export interface CallIds {
  /** The call's id in the thread, the event log and on the wire. */
  id: string;
  /** The model's own id, when the call goes by another one. */
  modelId?: string;
}

function usable(id: string | undefined): id is string {
  return id !== undefined && id.length > 0 && id.length <= MAX_ID_LENGTH && id.trim() === id && isStorableText(id);
}

/** Every tool call id the thread's conversation already uses. */
function idsInUse(transcript: readonly TranscriptMessage[]): Set<string> {
  const taken = new Set<string>();
  for (const m of transcript) {
    for (const call of m.toolCalls ?? []) taken.add(call.id);
    if (m.toolCallId) taken.add(m.toolCallId);
  }
  return taken;
}

/**
 * Ids for one step's calls, in order: each the model's own where it is free in the thread. A model
 * that repeats an id within one step cannot be answered under it twice (providers refuse a message
 * whose calls share an id), so the repeat goes by Harbor's id toward the model too.
 */
export function assignCallIds(
  transcript: readonly TranscriptMessage[],
  modelIds: readonly (string | undefined)[],
  newId: () => string,
): CallIds[] {
  const taken = idsInUse(transcript);
  const thisStep = new Set<string>();
  return modelIds.map((modelId) => {
    const repeated = modelId !== undefined && thisStep.has(modelId);
    if (modelId !== undefined) thisStep.add(modelId);
    const ids: CallIds =
      usable(modelId) && !taken.has(modelId) && !repeated
        ? { id: modelId }
        : { id: newId(), ...(modelId && !repeated && isStorableText(modelId) ? { modelId } : {}) };
    taken.add(ids.id);
    return ids;
  });
}

/** The id the model gave a stored call (its own id, unless the call was renamed). */
export function modelIdOf(call: StoredToolCall): string {
  return call.modelId ?? call.id;
}
