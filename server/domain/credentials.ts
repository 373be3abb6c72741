/**
 * An identity remembered from an earlier request, and the credential it came from: it is not
 * looked up again, so the first statement that writes on its behalf checks that the credential is
 * still live and the user still holds the role (see `credentialHoldsFor`). Revoking a token, ending a
 * session or changing a role is therefore seen at once, by every instance.
 */
import type { Role } from "./vocabulary";

export type CredentialRef = { kind: "token"; tokenHash: string } | { kind: "session"; userId: string; sessionId: string };

export interface CredentialCheck {
  credential: CredentialRef;
  /** The role the remembered identity holds; a change of role fails the check too. */
  role: Role;
}
