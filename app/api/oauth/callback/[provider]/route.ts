import { httpStatusOf } from "@/server/api/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { completeConsent } from "@/server/oauth/callback";
import { consentDonePage, consentRefusedPage, signInFirstPage } from "@/server/oauth/callback-page";
import { asHarborError, HarborError, type ErrorCode } from "@/server/runtime";

export const dynamic = "force-dynamic";

const TITLES: Partial<Record<ErrorCode, string>> = {
  INVALID_INPUT: "This link is not valid",
  FORBIDDEN: "This connection is not yours",
  NOT_FOUND: "Nothing is waiting for this connection",
  EXPIRED: "This request expired",
  ALREADY_RESOLVED: "This link was already used",
  INTERACTION_LOST: "This request can no longer be answered",
  OAUTH_FAILED: "The provider did not accept the sign-in",
};

/**
 * `GET /api/oauth/callback/{provider}`: where the provider returns after consent. Answers a page
 * for a person: connected, or refused with the reason (a forged or replayed state, another user,
 * an expired request) — in which case nothing changed.
 */
export async function GET(request: Request, { params }: { params: Promise<{ provider: string }> }) {
  const requestId = requestIdFrom(request.headers);
  const url = new URL(request.url);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) return signInFirstPage(`${url.pathname}${url.search}`);
    const { provider } = await params;
    const done = await completeConsent({ runtime: h.runtime, broker: h.oauth }, identity, provider, url);
    return consentDonePage(done.outcome, done.threadId, h.oauthProviderName(provider));
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, "OAuth callback failed");
    const error = asHarborError(thrown);
    return consentRefusedPage(httpStatusOf(error.code), TITLES[error.code] ?? "Something went wrong", error.message);
  }
}
