/**
 * The callback leg of a consent: the one way an `oauth` pause is resolved. Everything that can
 * refuse it is checked before the code is exchanged, so a refused callback changes nothing:
 * the state's signature, the signed-in user against the state's, the interaction (open, not
 * expired, this provider's). Then the tokens are stored sealed and the interaction resolved once.
 */
import { HarborError, type Identity, type Runtime } from "@/server/runtime";
import type { OAuthBroker } from "./broker";

export interface ConsentOutcome {
  threadId: string;
  outcome: "connected" | "declined";
}

export async function completeConsent(
  deps: { runtime: Pick<Runtime, "consent">; broker: OAuthBroker },
  identity: Identity,
  provider: string,
  callbackUrl: URL,
): Promise<ConsentOutcome> {
  const stateParam = callbackUrl.searchParams.get("state");
  if (!stateParam) throw new HarborError("INVALID_INPUT", "state: the provider's answer carries no state", { field: "state" });
  const state = await deps.broker.verifyState(stateParam);
  if (state.provider !== provider) throw new HarborError("INVALID_INPUT", "state: this consent was started for another provider", { field: "state" });
  if (state.tenantId !== identity.tenantId || state.userId !== identity.userId) {
    throw new HarborError("FORBIDDEN", "This connection was started by another user. Sign in as that user, or ask again from your own chat.");
  }
  const { threadId } = await deps.runtime.consent.check(identity, state.interactionId, provider);
  const owner = { tenantId: identity.tenantId, userId: identity.userId };
  if (callbackUrl.searchParams.has("error")) {
    // The user declined at the provider: the tool gets a refusal, as if the pause were cancelled.
    await deps.runtime.consent.complete(identity, state.interactionId, "declined");
    return { threadId, outcome: "declined" };
  }
  await deps.broker.connect(owner, provider, callbackUrl, stateParam, state.interactionId);
  await deps.runtime.consent.complete(identity, state.interactionId, "connected");
  return { threadId, outcome: "connected" };
}
