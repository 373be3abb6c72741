/**
 * The face of runtime/access: who is acting, and what they may see. The bottom room; every other
 * room asks it. See README.md.
 */
export {
  assertAdmin,
  credentialToCheck,
  hasRole,
  type Identity,
  isRemembered,
  type RememberedIdentity,
  rolesOf,
  type VerifiedIdentity,
  verifiedOnly,
} from "./identity";
export { accountService, hashToken, MAX_TOKEN_DAYS, TOKEN_PREFIX } from "./api-tokens";
export { authorizeConversationRead } from "./conversation-reads";
export {
  assertThreadAccess,
  findTenantThread,
  ForeignThreadError,
  MAX_THREAD_TITLE,
  ownsThread,
  storedThreadIds,
  tenantThreadId,
  threadService,
  threadView,
  titleFrom,
} from "./threads";
export { type CredentialBroker, type CredentialOwner } from "./credentials";
export { runAccess } from "./run-access";
export { outboxService } from "./outbox";
export { secretKeeper, type SecretKeeper, type SecretOwner } from "./secrets";
