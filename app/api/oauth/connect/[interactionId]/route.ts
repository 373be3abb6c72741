import { beginConsent, nonceCookieName } from "@/server/oauth/callback";
import { consentPage } from "@/server/oauth/consent-route";

export const dynamic = "force-dynamic";

/**
 * `GET /api/oauth/connect/{interactionId}`: the consent URL an `oauth` pause carries. For its owner,
 * signed in: keeps a nonce in this browser (so only it can complete the consent) and sends it on to
 * the provider. Anyone else gets a page saying why not.
 */
export async function GET(request: Request, { params }: { params: Promise<{ interactionId: string }> }) {
  return consentPage(
    request,
    async (h, identity, url) => {
      const { interactionId } = await params;
      const { providerUrl, nonce, expiresAt } = await beginConsent({ runtime: h.runtime, broker: h.oauth }, identity, interactionId);
      const maxAge = Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
      const cookie = `${nonceCookieName(interactionId)}=${nonce}; Path=/api/oauth/callback; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${url.protocol === "https:" ? "; Secure" : ""}`;
      return new Response(null, {
        status: 302,
        headers: { location: providerUrl, "set-cookie": cookie, "cache-control": "no-store", "referrer-policy": "no-referrer" },
      });
    },
    "starting an OAuth consent failed",
  );
}
