/**
 * The demo's peers — a real OIDC identity provider with a protected calendar, and a real A2A travel
 * agent — started inside the Harbor process on loopback ports, so `next start` alone serves the
 * whole demo and several instances can run side by side.
 */
import { createHmac } from "node:crypto";
import { DEMO_PASSWORD, DEMO_USERS } from "@/server/db/seed";
import type { Role } from "@/server/domain";
import { startIdentityProvider, type IdpAccount, type RunningIdentityProvider } from "./identity-provider";
import { startMcpPeer, type RunningMcpPeer } from "./mcp-server";
import { startTravelAgent, type RunningTravelAgent } from "./travel-agent";

/** The member token the demo travel agent asks for before it shows bookings (see README). */
export const DEMO_MEMBER_TOKEN = "harbor-member";
export const DEMO_CLIENT_ID = "harbor";
/** Harbor's sign-in client at the embedded provider (single sign-on), beside the calendar's. */
export const DEMO_SIGN_IN_CLIENT_ID = "harbor-sign-in";
/** The provider's groups the demo maps to Harbor roles (HARBOR_SSO_ROLES' demo default). */
const DEMO_GROUPS: Record<Role, string[]> = { member: [], approver: ["harbor-approvers"], admin: ["harbor-admins"] };
/** Accounts the provider knows that Harbor does not yet: signing in with single sign-on creates them. */
const PROVIDER_ONLY_ACCOUNTS: readonly IdpAccount[] = [
  { id: "idp-dave", email: "dave@acme.test", name: "Dave", password: DEMO_PASSWORD, groups: [] },
];

export interface DemoPeers {
  identityProvider: RunningIdentityProvider;
  travelAgent: RunningTravelAgent;
  /** The team calendar as an MCP server, protected by the identity provider (admins connect it). */
  calendarMcp: RunningMcpPeer;
  /** Harbor's client at the identity provider. */
  client: { clientId: string; clientSecret: string };
  /** Harbor's sign-in client there (single sign-on when no other provider is configured). */
  signInClient: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/** Harbor's client secret at the embedded provider: derived, so both ends agree without a setting. */
export function demoClientSecret(serverSecret: string): string {
  return createHmac("sha256", serverSecret).update("harbor.demo-idp.client-secret").digest("base64url");
}

/**
 * A redirect URI on this machine under both of its usual names: Auth.js names its callback after the
 * address the browser used, and people open the demo as localhost as often as 127.0.0.1.
 */
function loopbackAliases(uri: string): string[] {
  const url = new URL(uri);
  const other = { "127.0.0.1": "localhost", localhost: "127.0.0.1" }[url.hostname];
  if (!other) return [uri];
  const alias = new URL(uri);
  alias.hostname = other;
  return [uri, alias.href];
}

/** The sign-in client's secret, derived the same way under its own label. */
function demoSignInClientSecret(serverSecret: string): string {
  return createHmac("sha256", serverSecret).update("harbor.demo-idp.sign-in-client-secret").digest("base64url");
}

export async function startDemoPeers(options: {
  serverSecret: string;
  redirectUri: string;
  /** Where the provider sends people back after signing in to Harbor (Auth.js's callback). */
  signInRedirectUri: string;
  idpPort: number;
  travelAgentPort: number;
  mcpPort?: number;
  accessTokenTtlSeconds: number;
}): Promise<DemoPeers> {
  const client = { clientId: DEMO_CLIENT_ID, clientSecret: demoClientSecret(options.serverSecret) };
  const signInClient = { clientId: DEMO_SIGN_IN_CLIENT_ID, clientSecret: demoSignInClientSecret(options.serverSecret) };
  const identityProvider = await startIdentityProvider({
    port: options.idpPort,
    client: { ...client, redirectUris: [options.redirectUri] },
    signInClient: { ...signInClient, redirectUris: loopbackAliases(options.signInRedirectUri) },
    accounts: [
      ...DEMO_USERS.map((u) => ({ id: u.id, email: u.email, name: u.name, password: DEMO_PASSWORD, groups: DEMO_GROUPS[u.role] })),
      ...PROVIDER_ONLY_ACCOUNTS,
    ],
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
  });
  let travelAgent: RunningTravelAgent;
  let calendarMcp: RunningMcpPeer;
  try {
    travelAgent = await startTravelAgent({ port: options.travelAgentPort, memberToken: DEMO_MEMBER_TOKEN });
  } catch (error) {
    await identityProvider.close();
    throw error;
  }
  try {
    calendarMcp = await startMcpPeer({ port: options.mcpPort ?? 0, identityProvider });
  } catch (error) {
    await Promise.all([identityProvider.close(), travelAgent.close()]);
    throw error;
  }
  return {
    identityProvider,
    travelAgent,
    calendarMcp,
    client,
    signInClient,
    close: async () => {
      await Promise.all([identityProvider.close(), travelAgent.close(), calendarMcp.close()]);
    },
  };
}
