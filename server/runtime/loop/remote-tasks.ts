/**
 * The remote tasks (A2A) a run waits on. A paused remote agent call keeps its task's ids as plain
 * JSON in the checkpoint; when the Harbor side of the wait ends unanswered — cancelled, expired, or
 * the owner cancelled the question — the remote task is cancelled too, so it does not wait forever.
 */
import { z } from "zod";
import type { AgentDefinition } from "../agent";
import type { PendingCall } from "@/server/domain";
import type { LogLines } from "@/server/log";

/** What a paused remote agent call keeps in its checkpoint: the remote task it waits on. */
export const RemoteTaskState = z.object({ taskId: z.string(), contextId: z.string(), prompt: z.enum(["input_required", "auth_required"]) });

/**
 * Cancels the remote task of each paused remote agent call among `calls`. The Harbor side is over
 * whatever the remote agent says: a failure is logged, not thrown.
 */
export async function cancelRemoteTasks(agent: AgentDefinition | undefined, calls: readonly PendingCall[], log: LogLines): Promise<void> {
  for (const call of calls) {
    const definition = agent?.tools.get(call.name);
    const task = RemoteTaskState.safeParse(call.paused?.state);
    if (definition?.kind !== "remote_agent" || !task.success) continue;
    try {
      await definition.agent.cancel(task.data.taskId);
    } catch (error) {
      log.warn({ err: error, agent: definition.agent.url, toolCallId: call.toolCallId }, "a remote task could not be cancelled");
    }
  }
}
