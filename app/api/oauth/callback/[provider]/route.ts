import { httpStatusOf } from "@/server/api/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { completeConsent, nonceCookieName } from "@/server/oauth/callback";
import { consentDonePage, consentRefusedPage, CONSENT_TITLES, signInFirstPage } from "@/server/oauth/callback-page";
import { asHarborError, HarborError } from "@/server/runtime";

export const dynamic = "force-dynamic";

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

/**
 * `GET /api/oauth/callback/{provider}`: where the provider returns after consent. Answers a page
 * for a person: connected, or refused with the reason (a forged or replayed state, another user or
 * browser, an expired request) — in which case nothing changed.
 */
export async function GET(request: Request, { params }: { params: Promise<{ provider: string }> }) {
  const requestId = requestIdFrom(request.headers);
  const url = new URL(request.url);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) return signInFirstPage(`${url.pathname}${url.search}`);
    const { provider } = await params;
    const cookies = request.headers.get("cookie");
    const done = await completeConsent({ runtime: h.runtime, broker: h.oauth }, identity, provider, url, (id) => cookieValue(cookies, nonceCookieName(id)));
    const page = consentDonePage(done.outcome, done.threadId, h.oauthProviderName(provider));
    // The browser's nonce has done its work.
    page.headers.append("set-cookie", `${nonceCookieName(done.interactionId)}=; Path=/api/oauth/callback; Max-Age=0; HttpOnly; SameSite=Lax`);
    return page;
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, "OAuth callback failed");
    const error = asHarborError(thrown);
    return consentRefusedPage(httpStatusOf(error.code), CONSENT_TITLES[error.code] ?? "Something went wrong", error.message);
  }
}
