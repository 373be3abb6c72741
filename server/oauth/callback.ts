/**
 * The two browser legs of a consent — the one way an `oauth` pause is resolved:
 * - `beginConsent`: the owner, signed in, opens Harbor's consent URL; a nonce goes into their
 *   browser's cookie and they are sent to the provider with a state bound to it;
 * - `completeConsent`: the provider sends them back. Everything that can refuse the callback is
 *   checked before the code is exchanged, so a refused callback changes nothing: the state's
 *   signature, the browser (its nonce), the signed-in user against the state's, the interaction
 *   (open, not expired, this provider's, not being completed by another callback). Then the tokens
 *   are stored sealed and the interaction resolved once.
 */
import { ForbiddenError, HarborError, NotFoundError, type Runtime, type VerifiedIdentity } from "@/server/runtime";
import type { OAuthBroker } from "./broker";

export interface ConsentDeps {
  runtime: Pick<Runtime, "consent">;
  broker: OAuthBroker;
}

export interface ConsentOutcome {
  interactionId: string;
  threadId: string;
  outcome: "connected" | "declined";
}

/** The cookie keeping one consent's browser nonce until the provider sends the browser back. */
export function nonceCookieName(interactionId: string): string {
  return `harbor_oauth_${interactionId}`;
}

/** Where the owner's browser goes next, and the nonce it must keep (until `expiresAt`). */
export async function beginConsent(deps: ConsentDeps, identity: VerifiedIdentity, interactionId: string) {
  const consent = await deps.runtime.consent.open(identity, interactionId);
  const { providerUrl, nonce } = await deps.broker.begin({ tenantId: identity.tenantId, userId: identity.userId }, consent);
  return { providerUrl, nonce, expiresAt: consent.expiresAt };
}

export async function completeConsent(
  deps: ConsentDeps,
  identity: VerifiedIdentity,
  provider: string,
  callbackUrl: URL,
  /** The nonce cookie the callback request carried for the state's interaction. */
  nonceOf: (interactionId: string) => string | undefined,
): Promise<ConsentOutcome> {
  const stateParam = callbackUrl.searchParams.get("state");
  if (!stateParam) throw new HarborError("INVALID_INPUT", "state: the provider's answer carries no state", { field: "state" });
  const state = await deps.broker.verifyState(stateParam);
  if (state.provider !== provider)
    throw new HarborError("INVALID_INPUT", "state: this consent was started for another provider", { field: "state" });
  if (state.tenantId !== identity.tenantId) throw new NotFoundError("Consent request");
  if (state.userId !== identity.userId) {
    throw new ForbiddenError("This connection was started by another user. Sign in as that user, or ask again from your own chat.");
  }
  if (!deps.broker.sameBrowser(state, nonceOf(state.interactionId))) {
    throw new ForbiddenError("This sign-in was not started from this browser. Press Connect in your conversation to start it here.");
  }
  const error = callbackUrl.searchParams.get("error");
  if (error !== null && error !== "access_denied") {
    // The provider failed (not the user's choice): the pause stays open, Connect can be tried again.
    throw new HarborError(
      "OAUTH_FAILED",
      `The provider could not complete the sign-in (${error.slice(0, 60)}). Press Connect to try again.`,
      { provider },
    );
  }
  const { threadId } = await deps.runtime.consent.hold(identity, state.interactionId, provider);
  if (error === "access_denied") {
    // The user declined at the provider: the tool gets a refusal, as if the pause were cancelled.
    await deps.runtime.consent.complete(identity, state.interactionId, "declined");
    return { interactionId: state.interactionId, threadId, outcome: "declined" };
  }
  try {
    await deps.broker.connect(
      { tenantId: identity.tenantId, userId: identity.userId },
      provider,
      callbackUrl,
      stateParam,
      state.interactionId,
    );
  } catch (thrown) {
    await deps.runtime.consent.release(state.interactionId);
    throw thrown;
  }
  await deps.runtime.consent.complete(identity, state.interactionId, "connected");
  return { interactionId: state.interactionId, threadId, outcome: "connected" };
}
