/**
 * Why a sign-in did not happen, as a code in the sign-in page's `?error=` and a sentence the page
 * shows. Only these fixed sentences are shown: the query string never puts its own words on the page.
 */

/** Single sign-on's own refusals (the signIn callback redirects to `/signin?error=<code>`). */
export const SSO_REFUSALS = {
  SsoUnverified: "Your identity provider has not verified your email address, so Harbor cannot sign you in with it.",
  SsoDomain: "Your email's domain is not set up for Harbor. Ask your administrator to add it.",
  SsoTenant: "Your Harbor account belongs to another organization than your email's domain. Ask your administrator.",
  SsoLinked: "Your email is already linked to another account at your identity provider, so Harbor did not sign you in.",
  SsoExisting: "An account with your email already exists here. Sign in with its password, or ask your administrator to link it.",
  SsoClaims: "Your identity provider did not tell Harbor your email address. Ask your administrator.",
} as const;
export type SsoRefusal = keyof typeof SSO_REFUSALS;

/** Set by the Auth.js route when a password reaches it while password sign-in is off. */
export const PASSWORD_SIGN_IN_OFF = "PasswordSignInOff";

/**
 * The sentence for an error code on the sign-in page: single sign-on's refusals and Auth.js's own
 * error types (its `pages.error` is the sign-in page). Undefined when there is no code.
 */
export function signInErrorSentence(code: string | undefined, providerName: string): string | undefined {
  if (!code) return undefined;
  if (Object.hasOwn(SSO_REFUSALS, code)) return SSO_REFUSALS[code as SsoRefusal];
  switch (code) {
    case PASSWORD_SIGN_IN_OFF:
      return `Password sign-in is turned off here. Sign in with ${providerName}.`;
    case "OAuthCallbackError":
      return `${providerName} did not sign you in (it may have been cancelled). Try again.`;
    case "OAuthSignInError":
    case "OAuthSignin":
      return `Harbor could not reach ${providerName}. Try again in a moment.`;
    case "CredentialsSignin":
      return "Wrong email or password.";
    case "MissingCSRF":
      return "The sign-in form had expired. Try again.";
    default:
      // AccessDenied, CallbackRouteError, InvalidCheck, Configuration, …: the details are in the log.
      return `Signing in with ${providerName} did not work. Try again in a moment.`;
  }
}
