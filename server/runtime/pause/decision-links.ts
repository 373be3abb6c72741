/**
 * Signed one-time decision links: an approver decides a gate from an email or a chat message.
 *
 * A link is `<public URL>/decide/<token>`; the token is a JWT (HS256, a key derived from the server
 * secret for this purpose alone) naming the interaction, the tenant, the approver it was minted for,
 * the decision it offers (`approve` or `reject`) and an id (`jti`) shared by the approver's two
 * links of one gate; it expires with the gate. Links are minted, per eligible approver (the
 * tenant's approvers and admins but the requester), when a `pause.requested` message of an
 * approvers' gate is sent to a webhook, and are stored nowhere.
 *
 * A link proves nothing by itself: opening it needs the approver's own sign-in (another user is
 * refused, nothing changes), reading it (`inspect`) never decides, and the decision (`decide`, a
 * POST) goes through the coordinator (`via: "link"`) under every rule of any other answer. Its
 * `jti` is recorded once when it decides, so a link decides at most once.
 */
import { createHash, createHmac } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import type { Database } from "@/server/db";
import { appendAudit } from "@/server/db/queries/audit";
import { claimLinkUse, findLinkUse, gateWithApprovers, releaseLinkUse } from "@/server/db/queries/decision-links";
import type { ResolutionInput } from "./types";
import { ForbiddenError, HarborError } from "../errors";
import type { Identity, VerifiedIdentity } from "../access";
import type { InteractionView } from "./interactions";

export type LinkDecision = "approve" | "reject";

export interface DecisionLinkClaims {
  interactionId: string;
  tenantId: string;
  userId: string;
  decision: LinkDecision;
  /** One per approver and gate: the approve and reject links share it, so only one of them decides. */
  jti: string;
  expiresAt: Date;
}

/** What a `pause.requested` message carries per approver. */
export interface DecisionLink {
  userId: string;
  name: string;
  email: string;
  approve: string;
  reject: string;
}

const ISSUER = "harbor";
const AUDIENCE = "harbor:decision-link";
/** The path links open at (the page `app/(app)/decide/[token]`). */
export const DECISION_LINK_PATH = "/decide/";

/** A key of its own, derived from the server secret: a decision link verifies as nothing else, nor the reverse. */
export function decisionLinkKey(serverSecret: string): Uint8Array {
  return createHash("sha256").update(`harbor.decision-link\0${serverSecret}`).digest();
}

/** The id of an approver's links of one gate: the same whenever they are minted (retries, several webhooks). */
export function decisionLinkId(key: Uint8Array, interactionId: string, userId: string): string {
  return createHmac("sha256", key).update(`jti\0${interactionId}\0${userId}`).digest("base64url").slice(0, 32);
}

/** Signs a link's token. Without an issue time, the same claims always give the same token. */
export function signDecisionLink(key: Uint8Array, claims: DecisionLinkClaims): Promise<string> {
  return new SignJWT({ tid: claims.tenantId, uid: claims.userId, dec: claims.decision })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(claims.interactionId)
    .setJti(claims.jti)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime(Math.ceil(claims.expiresAt.getTime() / 1000))
    .sign(key);
}

const Claims = z.object({
  sub: z.string().min(1),
  jti: z.string().min(1),
  tid: z.string().min(1),
  uid: z.string().min(1),
  dec: z.enum(["approve", "reject"]),
  exp: z.number(),
});

export type VerifiedLink = { ok: true; claims: DecisionLinkClaims } | { ok: false; expired: DecisionLinkClaims | null };

const claimsOf = (payload: unknown): DecisionLinkClaims | null => {
  const parsed = Claims.safeParse(payload);
  if (!parsed.success) return null;
  const c = parsed.data;
  return { interactionId: c.sub, tenantId: c.tid, userId: c.uid, decision: c.dec, jti: c.jti, expiresAt: new Date(c.exp * 1000) };
};

/**
 * Checks a token: genuine and unexpired (`ok`), genuine but past its expiry (`expired` holds its
 * claims: jose checks the signature before the expiry), or not a link at all (`expired: null`).
 */
export async function verifyDecisionLink(key: Uint8Array, token: string): Promise<VerifiedLink> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ["HS256"] });
    const claims = claimsOf(payload);
    return claims ? { ok: true, claims } : { ok: false, expired: null };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, expired: claimsOf(error.payload) };
    return { ok: false, expired: null };
  }
}

/** What the decision page shows for a link, as seen by the signed-in user. */
export type LinkState =
  /** Not a decision link of this server (altered, cut short, another key). */
  | { state: "invalid" }
  /** Minted for another approver (or another tenant): nothing about the request is shown. */
  | { state: "not_yours" }
  /** The request no longer exists (its conversation was deleted). */
  | { state: "gone"; decision: LinkDecision }
  | {
      /**
       * `open`: the confirm button is offered; `used`: this link decided already; `decided`: the
       * request was decided (by whom is in `interaction`); `expired`: the request or the link ran
       * out; `voted`: the approver's vote on a quorum gate is in, it waits for the others.
       */
      state: "open" | "used" | "decided" | "expired" | "voted";
      decision: LinkDecision;
      interaction: InteractionView;
      usedAt: string | null;
    };

export interface DecisionLinkDeps {
  db: Database;
  serverSecret: string;
  /** Where users reach Harbor (absolute links); absent, no links are minted. */
  publicUrl?: string;
  /** The inbox's view of one interaction, as `identity` may see it (NOT_FOUND otherwise). */
  getInteraction(identity: Identity, interactionId: string): Promise<InteractionView>;
  /** The coordinator's resolution, as any tRPC decision, but `via: "link"`. */
  resolve(identity: Identity, entries: readonly ResolutionInput[], via: "link"): Promise<{ continued: string[] }>;
}

const LINK_MISMATCH = "This decision link was sent to another approver. Sign in as that approver, or decide from your approvals inbox.";

/** What every link operation needs: the service's deps, its key, and the base of the URLs it mints. */
interface LinkContext {
  deps: DecisionLinkDeps;
  key: Uint8Array;
  /** The public URL without its trailing slash; undefined when no links are minted. */
  base: string | undefined;
}

const urlOf = (link: LinkContext, token: string) => `${link.base}${DECISION_LINK_PATH}${token}`;

/** The links of every approver who may still decide `interactionId`; empty once it is closed. */
async function mintLinks(link: LinkContext, interactionId: string): Promise<DecisionLink[]> {
  const gate = await gateWithApprovers(link.deps.db, interactionId);
  if (!gate || gate.status !== "pending" || gate.kind !== "approval" || gate.policy !== "approvers") return [];
  if (gate.expiresAt.getTime() <= Date.now()) return [];
  return Promise.all(
    gate.approvers
      .filter((a) => !gate.votes.some((v) => v.by === a.id))
      .map(async (approver): Promise<DecisionLink> => {
        const claims = {
          interactionId: gate.id,
          tenantId: gate.tenantId,
          userId: approver.id,
          jti: decisionLinkId(link.key, gate.id, approver.id),
          expiresAt: gate.expiresAt,
        };
        const [approve, reject] = await Promise.all([
          signDecisionLink(link.key, { ...claims, decision: "approve" }),
          signDecisionLink(link.key, { ...claims, decision: "reject" }),
        ]);
        return {
          userId: approver.id,
          name: approver.name,
          email: approver.email,
          approve: urlOf(link, approve),
          reject: urlOf(link, reject),
        };
      }),
  );
}

/** The link's claims when it is genuine and `identity`'s; refuses (changing nothing) otherwise. */
async function claimsFor(link: LinkContext, identity: VerifiedIdentity, token: string): Promise<DecisionLinkClaims> {
  const verified = await verifyDecisionLink(link.key, token);
  if (!verified.ok && !verified.expired) throw new ForbiddenError("This is not a valid decision link.");
  const claims = verified.ok ? verified.claims : verified.expired!;
  if (claims.tenantId !== identity.tenantId || claims.userId !== identity.userId) throw new ForbiddenError(LINK_MISMATCH);
  if (!verified.ok) {
    throw new HarborError("EXPIRED", "This decision link expired with its request.", { interactionId: claims.interactionId });
  }
  return claims;
}

/**
 * A webhook message as it is sent: `pause.requested` of an approvers' gate gets
 * `data.decisionLinks` (an empty list once the gate is closed); any other message is unchanged.
 */
async function prepareMessage(link: LinkContext, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const data = payload.data as Record<string, unknown> | undefined;
  if (link.base === undefined || payload.type !== "pause.requested" || !data) return payload;
  if (data.kind !== "approval" || data.policy !== "approvers" || typeof data.interactionId !== "string") return payload;
  return { ...payload, data: { ...data, decisionLinks: await mintLinks(link, data.interactionId) } };
}

/** What the link is and where its request stands, for the signed-in `identity`. Reading never decides. */
async function inspectLink(link: LinkContext, identity: VerifiedIdentity, token: string): Promise<LinkState> {
  const verified = await verifyDecisionLink(link.key, token);
  const claims = verified.ok ? verified.claims : verified.expired;
  if (!claims) return { state: "invalid" };
  if (claims.tenantId !== identity.tenantId || claims.userId !== identity.userId) return { state: "not_yours" };
  let interaction: InteractionView;
  try {
    interaction = await link.deps.getInteraction(identity, claims.interactionId);
  } catch (error) {
    if (HarborError.is(error) && error.code === "NOT_FOUND") return { state: "gone", decision: claims.decision };
    throw error;
  }
  const use = await findLinkUse(link.deps.db, claims.jti, identity.tenantId);
  const seen = { decision: claims.decision, interaction, usedAt: use?.usedAt.toISOString() ?? null };
  if (use) return { state: "used", ...seen };
  if (interaction.status === "expired" || interaction.status === "lost") return { state: "expired", ...seen };
  if (interaction.status !== "pending") return { state: "decided", ...seen };
  if (!verified.ok || Date.parse(interaction.expiresAt) <= Date.now()) return { state: "expired", ...seen };
  if (interaction.votes.some((v) => v.by === identity.userId)) return { state: "voted", ...seen };
  return { state: "open", ...seen };
}

/**
 * Decides with the link, once: its use is recorded first (insert-once: a second use, even a
 * concurrent one, gets LINK_USED), then the coordinator decides as for any approver; a refused
 * or failed decision gives the use back, so nothing is left half done.
 */
async function decideWithLink(link: LinkContext, identity: VerifiedIdentity, token: string, reason?: string) {
  const { deps } = link;
  const { interactionId, decision, jti } = await claimsFor(link, identity, token);
  // The request as the approver may see it: a gate they may not see is not theirs to decide.
  const before = await deps.getInteraction(identity, interactionId);
  if (!(await claimLinkUse(deps.db, { jti, tenantId: identity.tenantId, interactionId, userId: identity.userId, decision }))) {
    throw new HarborError("LINK_USED", "This link was already used; a decision link decides once.", { interactionId });
  }
  const approved = decision === "approve";
  let continued: string[];
  try {
    ({ continued } = await deps.resolve(
      identity,
      [{ interactionId, status: "resolved", payload: { approved, ...(reason ? { reason } : {}) } }],
      "link",
    ));
  } catch (error) {
    await releaseLinkUse(deps.db, jti, identity.tenantId);
    throw error;
  }
  const outcome = !approved ? "rejected" : before.quorum > 1 && continued.length === 0 ? "voted" : "approved";
  await appendAudit(deps.db, {
    tenantId: identity.tenantId,
    actorId: identity.userId,
    action: "interaction.link_used",
    subjectType: "interaction",
    subjectId: interactionId,
    outcome,
    details: { runId: before.runId, decision, jti },
  });
  return { outcome, continued } as const;
}

export function decisionLinkService(deps: DecisionLinkDeps) {
  const link: LinkContext = { deps, key: decisionLinkKey(deps.serverSecret), base: deps.publicUrl?.replace(/\/+$/, "") };
  return {
    /** Whether links are minted (a public URL is known). */
    enabled: link.base !== undefined,
    mint: (interactionId: string) => mintLinks(link, interactionId),
    prepare: (payload: Record<string, unknown>) => prepareMessage(link, payload),
    inspect: (identity: VerifiedIdentity, token: string) => inspectLink(link, identity, token),
    decide: (identity: VerifiedIdentity, token: string, reason?: string) => decideWithLink(link, identity, token, reason),
  };
}

export type DecisionLinkService = ReturnType<typeof decisionLinkService>;
