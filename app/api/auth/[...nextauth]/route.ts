import type { NextRequest } from "next/server";
import { handlers } from "@/server/auth/config";
import { withSignInRefusals } from "@/server/auth/sign-in-guard";

export const dynamic = "force-dynamic";
export const { GET } = handlers;
/** A sign-in refused by the throttle (or the password-hashing gate) answers 429 with Retry-After, not Auth.js's redirect. */
export const POST = (request: NextRequest) => withSignInRefusals(request, handlers.POST);
