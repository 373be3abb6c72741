"use server";

import { cookies, headers } from "next/headers";
import { AuthError } from "next-auth";
import { signIn, signOut } from "@/server/auth/config";
import { SSO_PROVIDER_ID } from "@/server/auth/sso/policy";
import { signInErrorSentence, PASSWORD_SIGN_IN_OFF } from "@/server/auth/sso/refusals";
import { settings } from "@/server/config";
import { safeReturnPath } from "@/server/auth/return-path";
import {
  isSecureRequest,
  KNOWN_DEVICE_COOKIE,
  KNOWN_DEVICE_MAX_AGE_S,
  noteSignIn,
  rememberedDeviceValue,
  SignInRefused,
  type SignInOutcome,
} from "@/server/auth/sign-in-guard";

export interface SignInState {
  error?: string;
  /** Echoed back so a failed attempt keeps what was typed (never the password). */
  email?: string;
}

/** Remembers this browser for the account it signed in to (see known-device.ts), as the route does. */
async function rememberDevice(email: string): Promise<void> {
  const requestHeaders = await headers();
  (await cookies()).set(KNOWN_DEVICE_COOKIE, rememberedDeviceValue(email, requestHeaders), {
    path: "/",
    maxAge: KNOWN_DEVICE_MAX_AGE_S,
    httpOnly: true,
    sameSite: "lax",
    secure: isSecureRequest(requestHeaders),
  });
}

export async function signInAction(_previous: SignInState, form: FormData): Promise<SignInState> {
  // The page shows no password form then; a form posted anyway is refused here too.
  if (!settings().passwordSignIn) return { error: signInErrorSentence(PASSWORD_SIGN_IN_OFF, "single sign-on") };
  const outcome: SignInOutcome = {};
  try {
    await noteSignIn(outcome, () =>
      signIn("credentials", {
        email: form.get("email"),
        password: form.get("password"),
        redirectTo: safeReturnPath(form.get("callbackUrl")),
      }),
    );
    return {};
  } catch (error) {
    // A successful sign-in "throws" Next's redirect; only Auth.js errors are failures.
    if (outcome.signedIn) await rememberDevice(outcome.signedIn);
    if (error instanceof AuthError) {
      const email = form.get("email");
      // Throttled (too many failures) or the password checks are full: say so, not "wrong password".
      const said = SignInRefused.is(error) ? error.sentence : "Wrong email or password.";
      return { error: said, email: typeof email === "string" ? email : undefined };
    }
    throw error;
  }
}

/** Single sign-on: Auth.js redirects the browser to the provider (state, nonce and PKCE in its cookies). */
export async function ssoSignInAction(form: FormData): Promise<void> {
  await signIn(SSO_PROVIDER_ID, { redirectTo: safeReturnPath(form.get("callbackUrl")) });
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/signin" });
}
