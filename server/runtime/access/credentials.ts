/**
 * The runtime's view of OAuth credentials: a port, so the run loop knows nothing of HTTP or token
 * storage (`server/oauth` implements it). Tokens are the owner's, found by (tenant, user, provider).
 */
export interface CredentialOwner {
  tenantId: string;
  userId: string;
}

export interface CredentialBroker {
  /**
   * A usable access token of the owner for `provider` granting `scopes` — refreshed first when it
   * expired, or when `refresh` says the resource refused it — or null when the owner must connect
   * (again).
   */
  accessToken(owner: CredentialOwner, provider: string, scopes: readonly string[], options?: { refresh?: boolean }): Promise<string | null>;
  /** Where the owner consents for the OAuth interaction `interactionId`, and the provider's name for people. */
  consent(provider: string, interactionId: string): { authorizationUrl: string; providerName: string };
  /** The configured provider whose issuer is one of `issuers` (an MCP server's authorization servers), if any. */
  providerForIssuer(issuers: readonly string[]): string | undefined;
}
