/**
 * Auth.js v5: email + password against the users table, JWT sessions.
 * The session carries only the user id; roles and tenant are read fresh by `identity.ts`.
 */
import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { z } from "zod";
import { database } from "@/server/db";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import { findUserWithPasswordByEmail } from "@/server/db/queries/users";
import { log } from "@/server/log";
import { authSecret } from "./secret";
import { hashPassword, verifyPassword } from "@/server/crypto/password";
import { guardedSignIn } from "./sign-in-guard";

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword("not a password anyone has"));

const credentialsSchema = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  password: z.string().min(1).max(1024),
});

export const { handlers, signIn, signOut } = NextAuth(() => ({
  trustHost: true,
  secret: authSecret(),
  session: { strategy: "jwt", maxAge: 7 * 24 * 60 * 60 },
  pages: { signIn: "/signin" },
  events: {
    async signOut(message) {
      const sessionId = "token" in message ? message.token?.sid : undefined;
      if (typeof sessionId === "string") await revokeSession(await database(), sessionId);
    },
  },
  providers: [
    Credentials({
      credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
      async authorize(raw, request) {
        const parsed = credentialsSchema.safeParse(raw);
        if (!parsed.success) throw new CredentialsSignin();
        const { email, password } = parsed.data;
        // Throttled per email and client, counted before the password is checked (sign-in-guard.ts).
        return guardedSignIn(email, request.headers, async () => {
          const user = await findUserWithPasswordByEmail(await database(), email);
          // Unknown emails cost a hash too, so the answer's timing does not tell which accounts exist.
          const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash()));
          if (!user || !ok) {
            // The submitted email is not logged: it may be someone's password typed in the wrong box.
            log.info(user ? { userId: user.id } : {}, "sign-in refused");
            return undefined;
          }
          log.info({ userId: user.id }, "signed in");
          return { id: user.id, email: user.email, name: user.name };
        });
      },
    }),
  ],
  callbacks: {
    async jwt({ token, user }) {
      // Signing in opens a session on the server; the cookie names it (see identity.ts).
      if (user?.id) {
        token.uid = user.id;
        token.sid = await createSession(await database(), user.id);
      }
      return token;
    },
    session({ session, token }) {
      if (typeof token.uid === "string") session.user.id = token.uid;
      return session;
    },
  },
}));
