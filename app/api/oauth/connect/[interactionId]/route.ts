import { httpStatusOf } from "@/server/api/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { beginConsent, nonceCookieName } from "@/server/oauth/callback";
import { consentRefusedPage, CONSENT_TITLES, signInFirstPage } from "@/server/oauth/callback-page";
import { asHarborError, HarborError } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * `GET /api/oauth/connect/{interactionId}`: the consent URL an `oauth` pause carries. For its owner,
 * signed in: keeps a nonce in this browser (so only it can complete the consent) and sends it on to
 * the provider. Anyone else gets a page saying why not.
 */
export async function GET(request: Request, { params }: { params: Promise<{ interactionId: string }> }) {
  const requestId = requestIdFrom(request.headers);
  const url = new URL(request.url);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) return signInFirstPage(`${url.pathname}${url.search}`);
    const { interactionId } = await params;
    const { providerUrl, nonce, expiresAt } = await beginConsent({ runtime: h.runtime, broker: h.oauth }, identity, interactionId);
    const maxAge = Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
    const cookie = `${nonceCookieName(interactionId)}=${nonce}; Path=/api/oauth/callback; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${url.protocol === "https:" ? "; Secure" : ""}`;
    return new Response(null, { status: 302, headers: { location: providerUrl, "set-cookie": cookie, "cache-control": "no-store", "referrer-policy": "no-referrer" } });
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, "starting an OAuth consent failed");
    const error = asHarborError(thrown);
    return consentRefusedPage(httpStatusOf(error.code), CONSENT_TITLES[error.code] ?? "Something went wrong", error.message);
  }
}
