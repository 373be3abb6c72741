/**
 * Executing a server tool in the run loop: with the owner's access token when it declares `auth`
 * (parking for consent when there is none), and parking when the tool pauses itself.
 */
import { createHash } from "node:crypto";
import type { PendingCall } from "@/server/domain";
import type { OutboxInsert } from "@/server/db/queries/run-writes";
import type { CredentialBroker } from "../access";
import { HarborError } from "../errors";
import {
  assertPlainJson,
  CredentialRejectedSignal,
  HandleRegistry,
  PauseSignal,
  type Resolution,
  type RunState,
  type ServerToolDefinition,
  type ToolContext,
} from "../agent";
import { pauseFor, type CallOutcome } from "./call-outcome";
import type { RunLoopDeps } from "./run-loop-types";

/**
 * Runs a server tool: with the owner's access token when it declares `auth` (parking for consent
 * when there is none), and parking when the tool pauses itself.
 */
export async function executeServerTool(
  state: RunState,
  definition: ServerToolDefinition,
  call: PendingCall,
  answer: Resolution | undefined,
  held: ReadonlyMap<string, HandleRegistry> | undefined,
  deps: RunLoopDeps,
): Promise<CallOutcome> {
  const owner = { tenantId: state.tenantId, userId: state.ownerId };
  const auth = definition.auth;
  const broker = deps.credentials;
  if (auth && !broker)
    throw new HarborError("OAUTH_FAILED", `The tool ${call.name} needs an OAuth credential, and this runtime has no OAuth providers.`);
  const toolState = structuredClone(call.paused?.state ?? {});
  const handles = call.paused ? await HandleRegistry.reattach(call.paused.handleKeys, held?.get(call.toolCallId)) : new HandleRegistry();
  // A call that paused itself before keeps its state and handles through the consent, too.
  const consent = () => consentPause(call, auth!, broker!, deps, toolState, handles);
  let accessToken = auth ? await broker!.accessToken(owner, auth.provider, auth.scopes) : undefined;
  if (accessToken === null) return consent();

  for (let refreshed = false; ; refreshed = true) {
    const outbox: OutboxInsert[] = [];
    const ctx = toolContext(state, call, deps, { answer, toolState, handles, accessToken, outbox });
    try {
      return { type: "done", output: await definition.execute(call.args, ctx), outbox };
    } catch (thrown) {
      if (CredentialRejectedSignal.is(thrown) && auth) {
        // Refused once: a refresh may fix it (the token was revoked early). Refused again, or no
        // refresh possible: the grant is gone, and only the owner can give a new one.
        accessToken = refreshed ? null : await broker!.accessToken(owner, auth.provider, auth.scopes, { refresh: true });
        if (accessToken === null) return consent();
        continue;
      }
      if (!PauseSignal.is(thrown)) throw asToolFailure(call.name, thrown);
      // Fail loud at pause time: state that cannot be checkpointed would be lost on resume.
      assertPlainJson(toolState, "ctx.state");
      return pauseFor(
        call,
        { id: deps.newId(), kind: "approval", policy: thrown.request.policy ?? "owner", message: thrown.request.message },
        toolState,
        handles,
      );
    }
  }
}

/** Parks the call until the owner connects their account at the tool's OAuth provider. */
function consentPause(
  call: PendingCall,
  auth: NonNullable<ServerToolDefinition["auth"]>,
  broker: CredentialBroker,
  deps: RunLoopDeps,
  toolState: Record<string, unknown>,
  handles: HandleRegistry,
): CallOutcome {
  const id = deps.newId();
  const { authorizationUrl, providerName } = broker.consent(auth.provider, id);
  return pauseFor(
    call,
    {
      id,
      kind: "oauth",
      policy: "owner",
      message: `Connect your ${providerName} account to continue.`,
      detail: { provider: auth.provider, scopes: [...auth.scopes], authorizationUrl },
    },
    toolState,
    handles,
  );
}

/** What one execution of a server tool sees of its run, its approval and its earlier pauses. */
function toolContext(
  state: RunState,
  call: PendingCall,
  deps: RunLoopDeps,
  execution: {
    answer: Resolution | undefined;
    toolState: Record<string, unknown>;
    handles: HandleRegistry;
    accessToken: string | null | undefined;
    /** Where `recordInOutbox` puts its entry, written with the call's result. */
    outbox: OutboxInsert[];
  },
): ToolContext {
  const decision = call.gate?.decision;
  return {
    runId: state.runId,
    threadId: state.threadId,
    tenantId: state.tenantId,
    userId: state.ownerId,
    toolCallId: call.toolCallId,
    idempotencyKey: idempotencyKeyOf(state, call),
    approval:
      decision && call.gate
        ? decision.grantId
          ? { grantId: decision.grantId, approvedBy: decision.by }
          : { interactionId: call.gate.id, approvedBy: decision.by }
        : undefined,
    resumedWith: execution.answer,
    state: execution.toolState,
    handles: execution.handles,
    accessToken: execution.accessToken ?? undefined,
    pause: (request) => {
      throw new PauseSignal(request);
    },
    credentialRejected: () => {
      throw new CredentialRejectedSignal();
    },
    recordInOutbox: ({ kind, details }) => {
      // The outbox keeps one record per tool call (its unique key).
      if (execution.outbox.length > 0) throw new Error(`${call.name} recorded more than one outbox entry for one call`);
      const id = deps.newId();
      execution.outbox.push({
        id,
        tenantId: state.tenantId,
        userId: state.ownerId,
        toolCallId: call.toolCallId,
        kind,
        details,
        approvedBy: decision?.by ?? null,
      });
      return id;
    },
  };
}

/** A call's idempotency key: the same for every execution of it, and telling nothing of the tenant, thread or call. */
function idempotencyKeyOf(state: RunState, call: PendingCall): string {
  const digest = createHash("sha256").update([state.tenantId, state.threadId, call.toolCallId].join("\u0000")).digest("base64url");
  return `harbor-${digest.slice(0, 32)}`;
}

/** A tool's own error text may hold anything (SQL, secrets): it goes to the log as the cause, not to clients. */
function asToolFailure(name: string, thrown: unknown): HarborError {
  if (HarborError.is(thrown)) return thrown;
  return Object.assign(new HarborError("TOOL_FAILED", `The tool ${name} failed.`), { cause: thrown });
}
