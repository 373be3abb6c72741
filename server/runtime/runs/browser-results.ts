/** How a browser tool's output arrives: as a tool message in a run request. */
import { browserRequestsFor } from "@/server/db/queries/interactions";
import { findThread } from "@/server/db/queries/threads";
import { assertThreadAccess, type VerifiedIdentity } from "../access";
import { HarborError } from "../errors";
import type { ResolutionInput } from "../pause";
import type { RefusedRun, StartRunRequest } from "./run-requests";
import type { RunsDeps } from "./runs-context";

/** Tool message content is a string; a JSON string is decoded before it is checked. */
function decodeToolContent(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch (error) {
    if (error instanceof SyntaxError) return content;
    throw error;
  }
}

/**
 * Browser tools answer with a standard tool message: a request whose tool messages answer open
 * browser-tool requests of the thread is a resume with those outputs (JSON strings decoded), the
 * same as `resume[]` with the request ids. Redelivering an answered one is refused. It reads
 * before anything is written, so it takes a verified caller.
 */
export async function browserResults(
  deps: Pick<RunsDeps, "db">,
  identity: VerifiedIdentity,
  request: StartRunRequest,
): Promise<{ resume: ResolutionInput[] } | RefusedRun | undefined> {
  const replies = request.messages.filter((m) => m.role === "tool" && m.toolCallId);
  if (replies.length === 0) return undefined;
  const requests = await browserRequestsFor(
    deps.db,
    request.threadId,
    replies.map((m) => m.toolCallId!),
  );
  if (requests.length === 0) return undefined;
  const thread = await findThread(deps.db, request.threadId);
  if (thread) assertThreadAccess(thread, identity);
  const open = requests.filter((r) => r.status === "pending");
  if (open.length > 0) {
    return {
      resume: open.map((r) => ({
        interactionId: r.id,
        status: "resolved" as const,
        payload: decodeToolContent(replies.findLast((m) => m.toolCallId === r.toolCallId)!.content),
      })),
    };
  }
  // Only a request that ends with the answer is a delivery; history that merely repeats it is not.
  const last = request.messages.at(-1);
  const repeated = last?.role === "tool" ? requests.find((r) => r.toolCallId === last.toolCallId) : undefined;
  if (!repeated) return undefined;
  return {
    refused: new HarborError("ALREADY_RESOLVED", "This browser tool's result was already delivered; it is not taken twice.", {
      interactionId: repeated.id,
    }),
  };
}
