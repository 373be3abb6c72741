/** The demo seed's accounts (server/db/seed.ts) as the sign-in page offers them. Shared by the page and the form. */

/** One of the demo seed's accounts, as the sign-in page lists it. */
export interface DemoAccount {
  email: string;
  /** What the account is for, e.g. "approver". */
  role: string;
}

/** Every seeded demo account shares this password (see the README's demo section). */
export const DEMO_PASSWORD = "harbor";

/** The demo seed's accounts (server/db/seed), and where their password works. */
export function demoAccounts(withIdentityProvider: boolean): { accounts: DemoAccount[]; footnote: string } {
  const accounts: DemoAccount[] = [
    { email: "alice@acme.test", role: "member" },
    { email: "bob@acme.test", role: "approver" },
    { email: "carol@acme.test", role: "admin" },
    { email: "mallory@globex.test", role: "admin of another tenant" },
  ];
  if (!withIdentityProvider) return { accounts, footnote: `Password ${DEMO_PASSWORD} for all of them.` };
  return {
    accounts,
    footnote: `Password ${DEMO_PASSWORD} for all of them, here and at the demo identity provider. There, dave@acme.test also exists: signing in with it creates him.`,
  };
}
