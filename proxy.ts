/**
 * Every page request: a fresh script nonce and the page's Content-Security-Policy with it (on the
 * request, where Next.js finds the nonce for the scripts it renders, and on the response), and the
 * path that was requested (layouts are not told their URL), so a signed-out visitor is sent to sign
 * in and then back to the page they opened. Both headers are always set here, never taken from the
 * client; the path is still validated where it is read.
 */
import { NextResponse, type NextRequest } from "next/server";
import { REQUESTED_PATH_HEADER, requestedPath } from "@/server/auth/return-path";
import { newNonce, pagePolicy } from "@/server/transport/page-policy";

export function proxy(request: NextRequest) {
  const policy = pagePolicy(newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, requestedPath(request.nextUrl));
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Pages only: API routes, Next's assets and files never redirect to sign in, and render no page.
  matcher: ["/((?!api/|_next/|favicon\\.ico$|oauth-done\\.js$).*)"],
};
