import type { Metadata } from "next";
import { DecisionLinkPage, InvalidLink } from "@/components/decisions/DecisionLinkPage";
import { requireIdentity } from "@/server/auth/session";

export const dynamic = "force-dynamic";

const MAX_TOKEN_CHARS = 4096;

export const metadata: Metadata = {
  title: "Decide a request · Harbor",
  // The token is in the path: never send it to other sites, never index the page.
  referrer: "no-referrer",
  robots: { index: false, follow: false },
};

/**
 * A signed one-time decision link (`/decide/<token>`). Signed out, the visitor signs in and comes
 * back here; the page itself decides nothing (only its button does, with a POST).
 */
export default async function DecidePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const identity = await requireIdentity(`/decide/${encodeURIComponent(token)}`);
  // A token is a compact JWT: anything else is not a link (and is not sent on to the API).
  if (token.length > MAX_TOKEN_CHARS || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) return <InvalidLink />;
  return <DecisionLinkPage token={token} viewerId={identity.userId} />;
}
