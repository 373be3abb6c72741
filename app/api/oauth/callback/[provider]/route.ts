import { completeConsent, nonceCookieName } from "@/server/oauth/callback";
import { consentDonePage } from "@/server/oauth/callback-page";
import { consentPage } from "@/server/oauth/consent-route";

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
  return consentPage(
    request,
    async (h, identity, url) => {
      const { provider } = await params;
      const cookies = request.headers.get("cookie");
      const done = await completeConsent({ runtime: h.runtime, broker: h.oauth }, identity, provider, url, (id) =>
        cookieValue(cookies, nonceCookieName(id)),
      );
      const page = consentDonePage(done.outcome, done.threadId, h.oauth.providerName(provider));
      // The browser's nonce has done its work.
      page.headers.append(
        "set-cookie",
        `${nonceCookieName(done.interactionId)}=; Path=/api/oauth/callback; Max-Age=0; HttpOnly; SameSite=Lax`,
      );
      return page;
    },
    "OAuth callback failed",
  );
}
