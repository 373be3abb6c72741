/**
 * Auth.js builds the addresses it sends a provider (single sign-on's `redirect_uri`) from the
 * request's URL in its route, but from the Host header (or X-Forwarded-Host) in a server action —
 * and Next.js rewrites 127.0.0.1 to localhost in every NextRequest's URL. The two legs of one
 * sign-in must name the same callback, or the provider refuses the code; so the route hands Auth.js
 * the URL at the origin the browser used, derived exactly as Auth.js's server actions derive it.
 */
import { NextRequest } from "next/server";
import { settings } from "@/server/config";

/** A NextRequest whose `url` (what Auth.js reads) keeps the browser's origin; `nextUrl` stays Next's. */
class AtBrowserOrigin extends NextRequest {
  readonly #url: string;

  constructor(request: NextRequest, url: string) {
    super(request);
    this.#url = url;
  }

  override get url(): string {
    return this.#url;
  }
}

/**
 * Where users reach Harbor: `HARBOR_PUBLIC_URL` when it is set (then no header can move the
 * callback elsewhere), else the origin the request names, over http or https only.
 */
function browserOrigin(request: NextRequest): string | undefined {
  const configured = settings().publicUrl;
  if (configured) return new URL(configured).origin;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const protocol = (request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || request.nextUrl.protocol).replace(/:$/, "");
  if (!host || (protocol !== "http" && protocol !== "https")) return undefined;
  try {
    return new URL(`${protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}

export function withBrowserOrigin(request: NextRequest): NextRequest {
  const origin = browserOrigin(request);
  if (!origin || origin === "null") return request;
  const seen = new URL(request.url);
  if (seen.origin === origin) return request;
  return new AtBrowserOrigin(request, `${origin}${seen.pathname}${seen.search}`);
}
