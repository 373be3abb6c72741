/**
 * Auth.js v5 with JWT sessions: email and password against the users table (password.ts, unless
 * HARBOR_PASSWORD_SIGNIN=0), and single sign-on with an OpenID Connect provider (sso/) when one is
 * configured or the demo's runs. The session carries only the user and a server-side session id;
 * roles and tenant are read fresh by `identity.ts`.
 */
import NextAuth from "next-auth";
import { settings } from "@/server/config";
import { database } from "@/server/db";
import { createSession, revokeSession } from "@/server/db/queries/sessions";
import { passwordProvider } from "./password";
import { authSecret } from "./secret";
import { ssoSession, ssoSignIn } from "./sso/callbacks";
import { SSO_PROVIDER_ID } from "./sso/policy";
import { authJsProvider, ssoProvider } from "./sso/provider";

export const { handlers, signIn, signOut } = NextAuth(async () => {
  // Asked per request: the demo's provider is known once Harbor has started it.
  const sso = await ssoProvider();
  return {
    trustHost: true,
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: 7 * 24 * 60 * 60 },
    // Auth.js's errors (a refused or failed single sign-on among them) come back to the sign-in page, which says them.
    pages: { signIn: "/signin", error: "/signin" },
    events: {
      async signOut(message) {
        const sessionId = "token" in message ? message.token?.sid : undefined;
        if (typeof sessionId === "string") await revokeSession(await database(), sessionId);
      },
    },
    providers: [...(settings().passwordSignIn ? [passwordProvider()] : []), ...(sso ? [authJsProvider(sso)] : [])],
    callbacks: {
      async signIn({ account, profile }) {
        if (account?.provider !== SSO_PROVIDER_ID) return true;
        return sso ? ssoSignIn(await database(), sso, account, profile) : false;
      },
      async jwt({ token, user, account }) {
        // Signing in opens a session on the server; the cookie names it (see identity.ts).
        if (account?.provider === SSO_PROVIDER_ID) {
          const opened = sso ? await ssoSession(await database(), sso, authSecret(), account) : null;
          // The signIn callback linked the subject just before: not finding it is a fault, and refuses.
          if (!opened) throw new Error("single sign-on: the subject is not linked to a user");
          token.uid = opened.uid;
          token.sid = opened.sid;
        } else if (user?.id) {
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
  };
});
