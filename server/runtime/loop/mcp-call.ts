/**
 * A call of an MCP server's tool. What the server asks for mid-call goes on the one pause:
 * - a form (elicitation, form mode) parks the run with the server's schema; the call's session
 *   stays open as a live handle, and the owner's answer goes back over it;
 * - a page to open (URL mode, or `UrlElicitationRequiredError`) parks the run with the URL; once
 *   the owner is done there the call is tried again — from the checkpoint, on any instance;
 * - a demand for authorization (401) parks on the OAuth pause of the provider that issues the
 *   server's tokens; with the owner's token the call is tried again.
 */
import { z } from "zod";
import type { InteractionDetail, PendingCall } from "@/server/domain";
import type { CredentialBroker, CredentialOwner } from "../access";
import { HarborError } from "../errors";
import {
  formSchema,
  HandleRegistry,
  type McpCallOutcome,
  type McpElicitAnswer,
  type McpLiveCall,
  type McpProgress,
  type McpToolDefinition,
  type PauseRequest,
  type Resolution,
  type RunState,
} from "../agent";
import { pauseFor, type CallOutcome } from "./call-outcome";
import type { RunLoopDeps } from "./run-loop-types";

/** The key a form's live session is held under, in the call's handles. */
export const MCP_SESSION_HANDLE = "mcp-session";

/** What a server's 401 said it wants, by the tool's port (kept while its server's catalog is unchanged). */
const knownAuthorization = new WeakMap<McpToolDefinition["port"], { provider: string; scopes: string[] }>();

/** A call's progress is recorded at most this often (the last report of a burst waits for the next). */
const PROGRESS_EVERY_MS = 500;
const MAX_PROGRESS_MESSAGE = 200;

/**
 * Records a call's progress in the run's log, at most every PROGRESS_EVERY_MS and always the last
 * step: a server that reports thousands of times a second costs one write per half second. Progress
 * is advice: a write that fails loses only that report.
 */
function progressRecorder(call: PendingCall, deps: RunLoopDeps): (progress: McpProgress) => void {
  let last = 0;
  return (progress) => {
    const now = Date.now();
    const final = progress.total !== undefined && progress.progress >= progress.total;
    if (!final && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    const message = progress.message?.slice(0, MAX_PROGRESS_MESSAGE);
    const event = {
      type: "tool.progress" as const,
      toolCallId: call.toolCallId,
      progress: progress.progress,
      ...(progress.total !== undefined ? { total: progress.total } : {}),
      ...(message ? { message } : {}),
    };
    deps.append([event]).catch(() => undefined);
  };
}

/** How many pages (URL steps) one call may send its owner to before it is given up. */
const MAX_URL_STEPS = 3;

/** What a paused MCP call keeps in its checkpoint: what it waits on. */
const McpCallState = z.discriminatedUnion("waiting", [
  z.object({ waiting: z.literal("form"), urlSteps: z.number().int().default(0) }),
  z.object({ waiting: z.literal("url"), elicitationId: z.string(), urlSteps: z.number().int() }),
  z.object({ waiting: z.literal("auth"), provider: z.string(), scopes: z.array(z.string()), urlSteps: z.number().int().default(0) }),
]);
type McpCallState = z.infer<typeof McpCallState>;

/**
 * Calls the tool — or, resumed, hands the owner's answer to the call's live session, or tries the
 * call again after a page or a consent — and parks again while the server asks for more.
 */
export async function callMcpTool(
  state: RunState,
  definition: McpToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  held: ReadonlyMap<string, HandleRegistry> | undefined,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const paused = call.paused ? McpCallState.parse(call.paused.state) : undefined;
  const owner = { tenantId: state.tenantId, userId: state.ownerId };
  const urlSteps = paused?.urlSteps ?? 0;
  if (paused?.waiting === "form") {
    // The session that asked is the only one that can take the answer: lost with its process.
    const handles = await HandleRegistry.reattach(call.paused!.handleKeys, held?.get(call.toolCallId));
    const live = handles.get<McpLiveCall>(MCP_SESSION_HANDLE);
    return settle(definition, call, await live.answer(formAnswerOf(answer)), urlSteps, deps);
  }
  const bearer = paused?.waiting === "auth" ? await tokenAfterConsent(deps.credentials, owner, paused) : undefined;
  return callWithCredential(definition, call, owner, bearer, urlSteps, deps);
}

/** The call, with the owner's token when the server is known to need one; a refused token is refreshed once. */
async function callWithCredential(
  definition: McpToolDefinition,
  call: PendingCall,
  owner: CredentialOwner,
  bearer: string | undefined,
  urlSteps: number,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const onProgress = progressRecorder(call, deps);
  const send = (token: string | undefined) =>
    definition.port.call({
      args: call.args,
      ...(token ? { bearer: token } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
      onProgress,
    });
  // A server known to want a token gets the owner's at once, when they have one: no refused call first.
  const known = knownAuthorization.get(definition.port);
  const first = bearer ?? (known ? ((await deps.credentials?.accessToken(owner, known.provider, known.scopes)) ?? undefined) : undefined);
  let outcome = await send(first);
  if (outcome.type !== "unauthorized") return settle(definition, call, outcome, urlSteps, deps);
  const provider = providerOf(definition, outcome, deps.credentials);
  knownAuthorization.set(definition.port, { provider, scopes: outcome.scopes });
  const broker = deps.credentials!;
  // Refused without a token, or with one: the owner's stored token, then a refreshed one, then consent.
  for (const refresh of first ? [true] : [false, true]) {
    const token = await broker.accessToken(owner, provider, outcome.scopes, { refresh });
    if (!token) break;
    outcome = await send(token);
    if (outcome.type !== "unauthorized") return settle(definition, call, outcome, urlSteps, deps);
  }
  return consentPause(definition, call, broker, provider, outcome.scopes, urlSteps, deps);
}

/** The configured OAuth provider that issues the server's tokens, or MCP_FAILED naming who does. */
function providerOf(
  definition: McpToolDefinition,
  outcome: Extract<McpCallOutcome, { type: "unauthorized" }>,
  broker: CredentialBroker | undefined,
): string {
  const provider = broker?.providerForIssuer(outcome.authorizationServers);
  if (provider) return provider;
  throw new HarborError(
    "MCP_FAILED",
    `The MCP server ${definition.mcp.server} asks for authorization by ${outcome.authorizationServers.join(", ") || "an unnamed authorization server"}, which is not one of this server's OAuth providers.`,
    { server: definition.mcp.server },
  );
}

/** After the owner consented: their token (a consent that left none fails the call loudly). */
async function tokenAfterConsent(
  broker: CredentialBroker | undefined,
  owner: CredentialOwner,
  paused: Extract<McpCallState, { waiting: "auth" }>,
): Promise<string> {
  const token = await broker?.accessToken(owner, paused.provider, paused.scopes);
  if (!token) throw new HarborError("OAUTH_FAILED", "The consent gave no usable credential; connect again.", { provider: paused.provider });
  return token;
}

/** What a step of the call comes to: the tool's result, or a pause for what the server asks. */
function settle(
  definition: McpToolDefinition,
  call: PendingCall,
  outcome: McpCallOutcome,
  urlSteps: number,
  deps: RunLoopDeps,
): CallOutcome {
  // The server's question, to the run's owner (a pause of reason a2a: a remote service demands input).
  const askOwner = (message: string, detail: InteractionDetail, more: Pick<PauseRequest, "answer" | "responseSchema"> = {}) => ({
    id: deps.newId(),
    kind: "mcp_input" as const,
    policy: "owner" as const,
    message,
    detail: { mcp: { server: definition.mcp.server, tool: definition.mcp.tool }, ...detail },
    ...more,
  });
  switch (outcome.type) {
    case "result":
      return { type: "done", output: outcome.result };
    case "form": {
      const handles = new HandleRegistry();
      handles.register(MCP_SESSION_HANDLE, outcome.live, { alive: (live) => live.alive(), dispose: (live) => live.close() });
      const request = askOwner(outcome.message, { mode: "form" }, { answer: formSchema(outcome.schema), responseSchema: outcome.schema });
      return pauseFor(call, request, { waiting: "form", urlSteps } satisfies McpCallState, handles);
    }
    case "url": {
      if (urlSteps >= MAX_URL_STEPS) {
        throw new HarborError(
          "MCP_FAILED",
          `The MCP server ${definition.mcp.server} sent its user to ${MAX_URL_STEPS} pages for one call.`,
          {
            server: definition.mcp.server,
          },
        );
      }
      const state: McpCallState = { waiting: "url", elicitationId: outcome.elicitationId, urlSteps: urlSteps + 1 };
      return pauseFor(call, askOwner(outcome.message, { mode: "url", url: outcome.url }), state);
    }
    case "unauthorized":
      throw new HarborError("MCP_FAILED", `The MCP server ${definition.mcp.server} refused the owner's credential.`, {
        server: definition.mcp.server,
      });
  }
}

/** Parks the call until the owner connects at the provider that issues the server's tokens. */
function consentPause(
  definition: McpToolDefinition,
  call: PendingCall,
  broker: CredentialBroker,
  provider: string,
  scopes: string[],
  urlSteps: number,
  deps: RunLoopDeps,
): CallOutcome {
  const id = deps.newId();
  const { authorizationUrl, providerName } = broker.consent(provider, id);
  return pauseFor(
    call,
    {
      id,
      kind: "oauth",
      policy: "owner",
      message: `Connect your ${providerName} account so ${definition.mcp.server} can run ${definition.mcp.tool}.`,
      detail: { provider, scopes, authorizationUrl, mcp: { server: definition.mcp.server, tool: definition.mcp.tool } },
    },
    { waiting: "auth", provider, scopes, urlSteps } satisfies McpCallState,
  );
}

/** The answer the form's session gets: what the owner filled in, a decline, or a cancel. */
function formAnswerOf(answer: Resolution | undefined): McpElicitAnswer {
  if (!answer) throw new HarborError("INTERNAL", "An MCP form was resumed without an answer.");
  if (answer.status !== "resolved") return { action: "cancel" };
  const content = answer.payload?.content;
  if (answer.payload?.action === "decline") return { action: "decline" };
  if (typeof content !== "object" || content === null || Array.isArray(content)) return { action: "accept", content: {} };
  return { action: "accept", content: content as Record<string, unknown> };
}
