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

export async function currentIdentity(): Promise<Identity | null> {
  const h = await harbor();
  return identityFrom(h.db, await headers());
}

/** The signed-in identity, or a redirect to the sign-in page that comes back to `returnTo`. */
export async function requireIdentity(returnTo: string): Promise<Identity> {
  const identity = await currentIdentity();
  if (!identity) redirect(`/signin?callbackUrl=${encodeURIComponent(returnTo)}`);
  return identity;
}
