/**
 * Tells the pages which path was requested (layouts are not told their URL), so a signed-out
 * visitor is sent to sign in and then back to the page they opened. The header is always set
 * here, never taken from the client, and still validated where it is read.
 */
import { NextResponse, type NextRequest } from "next/server";
import { REQUESTED_PATH_HEADER, requestedPath } from "@/server/auth/return-path";

export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(REQUESTED_PATH_HEADER, requestedPath(request.nextUrl));
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: API routes, Next's assets and files never redirect to sign in.
  matcher: ["/((?!api/|_next/|favicon\\.ico$).*)"],
};
