import type { NextRequest } from "next/server";
import { withBrowserOrigin } from "@/server/auth/browser-origin";
import { handlers } from "@/server/auth/config";
import { passwordSignInOff } from "@/server/auth/password";
import { withSignInRefusals } from "@/server/auth/sign-in-guard";

export const dynamic = "force-dynamic";
export const GET = (request: NextRequest) => handlers.GET(withBrowserOrigin(request));
/**
 * A password while password sign-in is off answers 403; a sign-in refused by the throttle (or the
 * password-hashing gate) answers 429 with Retry-After, not Auth.js's redirect.
 */
export const POST = (request: NextRequest) => passwordSignInOff(request) ?? withSignInRefusals(withBrowserOrigin(request), handlers.POST);
