"use server";

import { AuthError } from "next-auth";
import { signIn, signOut } from "@/server/auth/config";
import { safeReturnPath } from "@/server/auth/return-path";
import { SignInRefused } from "@/server/auth/sign-in-guard";

export interface SignInState {
  error?: string;
  /** Echoed back so a failed attempt keeps what was typed (never the password). */
  email?: string;
}

export async function signInAction(_previous: SignInState, form: FormData): Promise<SignInState> {
  try {
    await signIn("credentials", {
      email: form.get("email"),
      password: form.get("password"),
      redirectTo: safeReturnPath(form.get("callbackUrl")),
    });
    return {};
  } catch (error) {
    // A successful sign-in "throws" Next's redirect; only Auth.js errors are failures.
    if (error instanceof AuthError) {
      const email = form.get("email");
      // Throttled (too many failures) or the password checks are full: say so, not "wrong password".
      const said = error instanceof SignInRefused ? error.sentence : "Wrong email or password.";
      return { error: said, email: typeof email === "string" ? email : undefined };
    }
    throw error;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/signin" });
}
