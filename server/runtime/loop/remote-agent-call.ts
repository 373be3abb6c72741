/**
 * A call of a remote agent (A2A): the call's message goes to the remote agent, and the run parks
 * while the remote task needs input or a credential; the owner's answer goes to the same task.
 */
import type { PendingCall } from "@/server/domain";
import { HarborError } from "../errors";
import {
  RemoteAuthAnswer,
  RemoteInputAnswer,
  type RemoteAgentResult,
  type RemoteAgentToolDefinition,
  type RemoteOutcome,
  type Resolution,
} from "../agent";
import { pauseFor, type CallOutcome } from "./call-outcome";
import { RemoteTaskState } from "./remote-tasks";
import type { RunLoopDeps } from "./run-loop-types";

/** How a remote task that ended without an answer is told in the run's failure. */
const ENDED_WITHOUT_ANSWER = {
  failed: "could not finish",
  rejected: "refused",
  canceled: "cancelled",
} as const satisfies Record<Extract<RemoteOutcome, { state: "failed" | "rejected" | "canceled" }>["state"], string>;

/**
 * Sends the call's message to the remote agent — or, resumed, the owner's answer to the same
 * remote task — and parks again while the remote task needs input or a credential.
 */
export async function askRemoteAgent(
  definition: RemoteAgentToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const remote = definition.agent;
  const outcome = await sendToRemoteTask(definition, call, answer);
  const name = await remote.name();
  switch (outcome.state) {
    case "completed":
      return { type: "done", output: { agent: name, status: "completed", text: outcome.text } satisfies RemoteAgentResult };
    case "input_required":
    case "auth_required":
      return pauseFor(
        call,
        {
          id: deps.newId(),
          kind: "a2a",
          policy: "owner",
          message: outcome.prompt,
          detail: { prompt: outcome.state, agent: name },
          answer: outcome.state === "auth_required" ? RemoteAuthAnswer : RemoteInputAnswer,
        },
        { taskId: outcome.taskId, contextId: outcome.contextId, prompt: outcome.state },
      );
    case "failed":
    case "rejected":
    case "canceled":
      throw new HarborError(
        "REMOTE_AGENT_FAILED",
        `${name} ${ENDED_WITHOUT_ANSWER[outcome.state]} the task${outcome.text ? `: ${outcome.text.slice(0, 300)}` : "."}`,
        {
          agent: remote.url,
          state: outcome.state,
        },
      );
  }
}

/** The call's first message to a new remote task, or the owner's answer to the task it paused on. */
async function sendToRemoteTask(
  definition: RemoteAgentToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
): Promise<RemoteOutcome> {
  const remote = definition.agent;
  if (!call.paused) return remote.send({ text: definition.message(call.args) });
  const task = RemoteTaskState.parse(call.paused.state);
  if (!answer) throw new HarborError("INTERNAL", `Remote agent call ${call.toolCallId} resumed without an answer.`);
  if (task.prompt === "auth_required") {
    const { credential } = RemoteAuthAnswer.parse(answer.payload);
    return withoutSecret(
      await remote.send({ text: "Signed in.", taskId: task.taskId, contextId: task.contextId, bearer: credential }),
      credential,
    );
  }
  return remote.send({ text: RemoteInputAnswer.parse(answer.payload).text, taskId: task.taskId, contextId: task.contextId });
}

/** A remote agent that echoes the credential it was given does not get it into Harbor's record. */
function withoutSecret(outcome: RemoteOutcome, secret: string): RemoteOutcome {
  const scrub = (text: string) => text.replaceAll(secret, "[credential]");
  return "prompt" in outcome ? { ...outcome, prompt: scrub(outcome.prompt) } : { ...outcome, text: scrub(outcome.text) };
}
