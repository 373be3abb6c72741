/**
 * Signing in with email and password (Auth.js's Credentials provider), unless the deployment turned
 * it off (HARBOR_PASSWORD_SIGNIN=0): then the provider is not offered, the sign-in page shows only
 * single sign-on, and a password posted to Auth.js's route anyway is refused (`passwordSignInOff`).
 */
import { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { settings } from "@/server/config";
import { hashPassword, verifyPassword } from "@/server/crypto/password";
import { database, type Executor } from "@/server/db";
import { findUserWithPasswordByEmail, type UserRow } from "@/server/db/queries/users";
import { log } from "@/server/log";
import { guardedSignIn } from "./sign-in-guard";

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword("not a password anyone has"));

const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  password: z.string().min(1).max(1024),
});

/**
 * The user an email and password sign in as, or undefined. Every answer costs one hash — for an
 * unknown email, and for a user who has no password (single sign-on only) — so the time taken does
 * not tell which accounts exist or how they sign in.
 */
export async function checkPassword(db: Executor, email: string, password: string): Promise<UserRow | undefined> {
  const user = await findUserWithPasswordByEmail(db, email);
  const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !user.passwordHash || !ok) {
    // The submitted email is not logged: it may be someone's password typed in the wrong box.
    log.info(user ? { userId: user.id, ...(user.passwordHash ? {} : { reason: "no password" }) } : {}, "sign-in refused");
    return undefined;
  }
  return user;
}

/** Auth.js's Credentials check: throttled per email and client (sign-in-guard.ts), then `checkPassword`. */
export async function authorizePassword(raw: unknown, request: Request): Promise<{ id: string; email: string; name: string }> {
  if (!settings().passwordSignIn) throw new CredentialsSignin();
  const parsed = credentialsSchema.safeParse(raw);
  if (!parsed.success) throw new CredentialsSignin();
  const { email, password } = parsed.data;
  return guardedSignIn(email, request.headers, async () => {
    const user = await checkPassword(await database(), email, password);
    if (!user) return undefined;
    log.info({ userId: user.id }, "signed in");
    return { id: user.id, email: user.email, name: user.name };
  });
}

export function passwordProvider() {
  return Credentials({
    credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
    authorize: authorizePassword,
  });
}

/**
 * A password posted to Auth.js's route while password sign-in is off: refused here with a clear 403
 * (Auth.js alone would only redirect, as it does for a provider it does not know).
 */
export function passwordSignInOff(request: Request): Response | undefined {
  if (settings().passwordSignIn || !new URL(request.url).pathname.endsWith("/callback/credentials")) return undefined;
  return Response.json(
    { error: { code: "FORBIDDEN", message: "Password sign-in is turned off here: sign in with single sign-on." } },
    { status: 403, headers: { "cache-control": "no-store" } },
  );
}
