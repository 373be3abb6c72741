/**
 * How Harbor's MCP client reaches a server: fetch that refuses, at connect time, any name that
 * resolves to an address a tenant may not point Harbor at (the check webhooks use), and remembers
 * what the last 401 asked for (its protected-resource metadata and scope).
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import { Agent } from "undici";
import { guardedLookup } from "@/server/runtime";

/** What a server's 401 said it wants. */
export interface Challenge {
  resourceMetadataUrl?: URL;
  scope?: string;
}

const dispatchers = new Map<boolean, Agent>();

/** One connection pool per policy: connections are checked once, when they are made. */
function dispatcher(allowLocal: boolean): Agent {
  let agent = dispatchers.get(allowLocal);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowLocal) } });
    dispatchers.set(allowLocal, agent);
  }
  return agent;
}

export function guardedFetch(allowLocal: boolean, onChallenge: (challenge: Challenge) => void): FetchLike {
  const through = dispatcher(allowLocal);
  return async (url, init) => {
    // Node's fetch is undici's: it takes a dispatcher of the same major version.
    const response = await fetch(url, { ...init, dispatcher: through } as RequestInit);
    if (response.status === 401) onChallenge(extractWWWAuthenticateParams(response));
    return response;
  };
}
