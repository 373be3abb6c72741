/**
 * Identity for pages and server actions: the same derivation as every route, read from
 * the current request's headers.
 */
import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { harbor } from "@/server/harbor";
import type { Identity } from "@/server/runtime";
import { identityFrom } from "./identity";
import { REQUESTED_PATH_HEADER, safeReturnPath } from "./return-path";

export async function currentIdentity(): Promise<Identity | null> {
  // Headers first: while `next build` prerenders, reading them ends the attempt (the page is
  // dynamic) before Harbor would be started for nothing.
  const requestHeaders = await headers();
  const h = await harbor();
  return identityFrom(h.db, requestHeaders);
}

/**
 * The signed-in identity, or a redirect to the sign-in page that comes back to `returnTo` — by
 * default the page that was requested (see `proxy.ts`), so a layout keeps a deep link too.
 */
export async function requireIdentity(returnTo?: string): Promise<Identity> {
  const identity = await currentIdentity();
  if (identity) return identity;
  const back = safeReturnPath(returnTo ?? (await headers()).get(REQUESTED_PATH_HEADER));
  redirect(`/signin?callbackUrl=${encodeURIComponent(back)}`);
}
