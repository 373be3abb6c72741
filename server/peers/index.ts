/**
 * The demo's peers — a real OIDC identity provider with a protected calendar, and a real A2A travel
 * agent — started inside the Harbor process on loopback ports, so `next start` alone serves the
 * whole demo and several instances can run side by side.
 */
import { createHmac } from "node:crypto";
import { DEMO_PASSWORD, DEMO_USERS } from "@/server/db/seed";
import { startIdentityProvider, type RunningIdentityProvider } from "./identity-provider";
import { startMcpPeer, type RunningMcpPeer } from "./mcp-server";
import { startTravelAgent, type RunningTravelAgent } from "./travel-agent";

/** The member token the demo travel agent asks for before it shows bookings (see README). */
export const DEMO_MEMBER_TOKEN = "harbor-member";
export const DEMO_CLIENT_ID = "harbor";

export interface DemoPeers {
  identityProvider: RunningIdentityProvider;
  travelAgent: RunningTravelAgent;
  /** The team calendar as an MCP server, protected by the identity provider (admins connect it). */
  calendarMcp: RunningMcpPeer;
  /** Harbor's client at the identity provider. */
  client: { clientId: string; clientSecret: string };
  close(): Promise<void>;
}

/** Harbor's client secret at the embedded provider: derived, so both ends agree without a setting. */
export function demoClientSecret(serverSecret: string): string {
  return createHmac("sha256", serverSecret).update("harbor.demo-idp.client-secret").digest("base64url");
}

export async function startDemoPeers(options: {
  serverSecret: string;
  redirectUri: string;
  idpPort: number;
  travelAgentPort: number;
  mcpPort?: number;
  accessTokenTtlSeconds: number;
}): Promise<DemoPeers> {
  const client = { clientId: DEMO_CLIENT_ID, clientSecret: demoClientSecret(options.serverSecret) };
  const identityProvider = await startIdentityProvider({
    port: options.idpPort,
    client: { ...client, redirectUris: [options.redirectUri] },
    accounts: DEMO_USERS.map((u) => ({ id: u.id, email: u.email, name: u.name, password: DEMO_PASSWORD })),
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
    close: async () => {
      await Promise.all([identityProvider.close(), travelAgent.close(), calendarMcp.close()]);
    },
  };
}
