import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Logger } from "pino";
import type { Database } from "@/server/db";
import type * as InteractionQueries from "@/server/db/queries/interactions";
import type { InteractionRow } from "@/server/db/queries/interactions";
import type { CredentialCheck } from "@/server/domain";
import type { Identity } from "@/server/runtime/access";
import type { EventBus } from "@/server/runtime/log";
import { createCoordinatorContext, type CoordinatorContext } from "@/server/runtime/pause/context";
import {
  answering,
  authorize,
  authorizeAnswers,
  checkExpiry,
  isBallot,
  overdueOf,
  readAnswers,
  routeToHolder,
  voteOf,
  voteOnQuorum,
} from "@/server/runtime/pause/resolve";
import { HeldElsewhere, type ResolutionInput, type ResolveOptions } from "@/server/runtime/pause/types";

// The steps that write or read do it through these named queries: stand-ins here, no database.
const queries = vi.hoisted(() => ({ closeInteractions: vi.fn(), castVote: vi.fn(), findInteractions: vi.fn() }));
vi.mock("@/server/db/queries/interactions", async (original) => ({
  ...(await original<typeof InteractionQueries>()),
  ...queries,
}));

const ALICE: Identity = { tenantId: "tenant-acme", userId: "user-alice", roles: ["member"] };
const CAROL: Identity = { tenantId: "tenant-acme", userId: "user-carol", roles: ["member"] };
const BOB: Identity = { tenantId: "tenant-acme", userId: "user-bob", roles: ["member", "approver"] };
const DANA: Identity = { tenantId: "tenant-acme", userId: "user-dana", roles: ["member", "approver", "admin"] };
const REMEMBERED_BOB: Identity = {
  ...BOB,
  unverified: { credential: { kind: "token", tokenHash: "h" }, role: "approver" } satisfies CredentialCheck,
};

function row(extra: Partial<InteractionRow> = {}): InteractionRow {
  return {
    id: "g1",
    tenantId: "tenant-acme",
    runId: "run-1",
    threadId: "thread-1",
    ownerId: "user-alice",
    kind: "approval",
    pauseReason: "hitl",
    policy: "approvers",
    toolCallId: null,
    toolName: "send_email",
    toolArgs: null,
    message: "",
    responseSchema: null,
    detail: null,
    status: "pending",
    instanceId: "instance-1",
    expiresAt: new Date(Date.now() + 60_000),
    decision: null,
    resolvedBy: null,
    resolvedAt: null,
    quorum: 1,
    votes: [],
    remindAt: null,
    remindedAt: null,
    escalateAt: null,
    escalateTo: null,
    escalatedAt: null,
    onExpiry: "reject",
    createdAt: new Date(),
    ...extra,
  };
}

let ctx: CoordinatorContext;
let published: ReturnType<typeof vi.fn>;
beforeEach(() => {
  vi.clearAllMocks();
  published = vi.fn();
  ctx = createCoordinatorContext({
    db: {} as Database,
    log: { info: vi.fn() } as unknown as Logger,
    instanceId: "instance-1",
    approvalTtlMs: 60_000,
    oauthTtlMs: 60_000,
    a2aTtlMs: 60_000,
    resumeTokenKey: new Uint8Array(32),
    bus: { publish: published } as unknown as EventBus,
    journalFor: () => Promise.reject(new Error("no journal in a unit test")),
  });
});

const approve = (interactionId = "g1", approved = true): ResolutionInput[] => [
  { interactionId, status: "resolved", payload: { approved } },
];
const request = (identity: Identity, entries = approve(), options: ResolveOptions = { via: "trpc" }) =>
  answering(identity, entries, options);
const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return "ok";
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
};

describe("answering", () => {
  it("refuses a request that answers one interrupt twice", () => {
    expect(codeOf(() => answering(BOB, [...approve(), ...approve()], { via: "trpc" }))).toBe("INVALID_INPUT");
  });
});

describe("authorize (rule 1)", () => {
  it("refuses a member answering an approvers gate, and the requester approving their own", () => {
    expect(codeOf(() => authorize(row(), CAROL, "trpc", "resolved"))).toBe("FORBIDDEN");
    expect(codeOf(() => authorize(row(), ALICE, "trpc", "resolved"))).toBe("FORBIDDEN");
    expect(codeOf(() => authorize(row(), BOB, "trpc", "resolved"))).toBe("ok");
  });

  it("lets the requester withdraw their own request, and an admin at the console decide another's", () => {
    expect(codeOf(() => authorize(row(), ALICE, "trpc", "cancelled"))).toBe("ok");
    expect(codeOf(() => authorize(row({ policy: "owner" }), DANA, "trpc", "resolved"))).toBe("FORBIDDEN");
    expect(codeOf(() => authorize(row({ policy: "owner" }), DANA, "console", "resolved"))).toBe("ok");
  });

  it("lets the group a gate escalated to decide it, never before", () => {
    const owned = row({ policy: "owner", escalateTo: "approvers" });
    expect(codeOf(() => authorize(owned, BOB, "trpc", "resolved"))).toBe("FORBIDDEN");
    expect(codeOf(() => authorize({ ...owned, escalatedAt: new Date() }, BOB, "trpc", "resolved"))).toBe("ok");
  });

  it("refuses background work, a private form with a transcript, and a closed gate", () => {
    const wait = row({ kind: "external_wait", policy: "owner" });
    expect(codeOf(() => authorizeAnswers(request(ALICE), [wait]))).toBe("FORBIDDEN");
    const form = row({ kind: "private_input", policy: "owner" });
    expect(codeOf(() => authorizeAnswers(request(ALICE, approve(), { via: "agui", withTranscript: true }), [form]))).toBe(
      "PRIVATE_RESUME_HAS_TRANSCRIPT",
    );
    expect(codeOf(() => authorizeAnswers(request(BOB), [row({ status: "resolved" })]))).toBe("ALREADY_RESOLVED");
  });

  it("tells a remembered identity any refusal only once it is looked up", () => {
    expect(codeOf(() => authorizeAnswers(request(REMEMBERED_BOB), [row({ status: "resolved" })]))).toBe("UNAUTHENTICATED");
  });
});

describe("checkExpiry (rule 2)", () => {
  const overdue = row({ expiresAt: new Date(Date.now() - 1) });

  it("passes a gate still in time", async () => {
    expect(overdueOf([row()])).toEqual([]);
    await expect(checkExpiry(ctx, BOB, [row()])).resolves.toBeUndefined();
  });

  it("refuses an overdue gate and closes it, its run ending by the gate's safe default", async () => {
    queries.closeInteractions.mockResolvedValue([
      { id: "g1", runId: "run-1", tenantId: "tenant-acme", ownerId: "user-alice", policy: "approvers", kind: "approval", finalEvents: [] },
    ]);
    await expect(checkExpiry(ctx, BOB, [overdue])).rejects.toMatchObject({ code: "EXPIRED" });
    expect(queries.closeInteractions).toHaveBeenCalledWith(
      ctx.deps.db,
      "expired",
      { ids: ["g1"] },
      expect.objectContaining({ failure: expect.anything() }),
    );
  });

  it("says ALREADY_RESOLVED when someone answered the overdue gate first", async () => {
    queries.closeInteractions.mockResolvedValue([]);
    await expect(checkExpiry(ctx, BOB, [overdue])).rejects.toMatchObject({ code: "ALREADY_RESOLVED" });
  });

  it("closes nothing for a remembered identity: it is looked up first", async () => {
    await expect(checkExpiry(ctx, REMEMBERED_BOB, [overdue])).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    expect(queries.closeInteractions).not.toHaveBeenCalled();
  });
});

describe("routeToHolder", () => {
  it("sends an answer to a process-held wait of another instance there", async () => {
    const there = row({ instanceId: "instance-2" });
    await expect(routeToHolder(ctx, request(BOB), [there])).rejects.toBeInstanceOf(HeldElsewhere);
  });

  it("finds a wait parked here", async () => {
    const held = { journal: {} as never, waitingOn: ["g1"], expiresAt: Date.now() + 60_000 };
    ctx.parked.set("run-1", held);
    const holderOf = await routeToHolder(ctx, request(BOB), [row()]);
    expect(holderOf("run-1")).toBe(held);
  });
});

describe("readAnswers (rules 4 and 5)", () => {
  it("refuses an AG-UI resume that leaves an open wait of the thread unanswered", () => {
    const other = row({ id: "g2" });
    expect(codeOf(() => readAnswers(ctx, request(BOB, approve(), { via: "agui", threadId: "thread-1" }), [row()], [row(), other]))).toBe(
      "INCOMPLETE_RESUME",
    );
  });

  it("reads an approval strictly: nothing but approve or reject, a reason and a grant", () => {
    const edited: ResolutionInput[] = [{ interactionId: "g1", status: "resolved", payload: { approved: true, args: {} } }];
    expect(codeOf(() => readAnswers(ctx, request(BOB, edited), [row()], [row()]))).toBe("INVALID_INPUT");
    const [claim] = readAnswers(ctx, request(BOB, approve("g1", false)), [row()], [row()]);
    expect(claim).toMatchObject({ id: "g1", status: "rejected", decision: { approved: false } });
  });

  it("takes a consent only from the provider's callback", () => {
    const consent = row({ kind: "oauth", policy: "owner" });
    const connected: ResolutionInput[] = [{ interactionId: "g1", status: "resolved" }];
    expect(codeOf(() => readAnswers(ctx, request(ALICE, connected), [consent], [consent]))).toBe("FORBIDDEN");
    const [claim] = readAnswers(ctx, request(ALICE, connected, { via: "oauth_callback" }), [consent], [consent]);
    expect(claim).toMatchObject({ status: "resolved", decision: { connected: true } });
  });
});

describe("voteOnQuorum", () => {
  const quorumGate = row({ quorum: 2 });
  const claimOf = (approved: boolean) => readAnswers(ctx, request(BOB, approve("g1", approved)), [quorumGate], [quorumGate]);

  it("counts only answers to gates that need several approvers, and no withdrawal", () => {
    expect(isBallot(request(BOB), [row()])).toBe(false);
    expect(isBallot(request(BOB), [quorumGate])).toBe(true);
    expect(isBallot(request(ALICE, [{ interactionId: "g1", status: "cancelled" }]), [quorumGate])).toBe(false);
  });

  it("casts an approver's vote with its reason", () => {
    const at = new Date(0);
    expect(voteOf(BOB, { id: "g1", status: "rejected", decision: { approved: false, reason: "no" } }, at)).toEqual({
      by: "user-bob",
      approved: false,
      reason: "no",
      at: at.toISOString(),
    });
  });

  it("keeps the gate open while the quorum is short, and tells inboxes", async () => {
    const seen = vi.fn();
    ctx.listeners.add(seen);
    queries.castVote.mockResolvedValue({ votes: [], approvals: 1, quorum: 2 });
    expect(await voteOnQuorum(ctx, request(BOB), [quorumGate], claimOf(true))).toBe(false);
    expect(seen).toHaveBeenCalledWith(expect.objectContaining({ interactionId: "g1", status: "pending" }));
  });

  it("lets the vote that completes the quorum claim the gate, with every vote", async () => {
    const votes = [{ by: "user-dana", approved: true, at: "x" }];
    queries.castVote.mockResolvedValue({ votes, approvals: 2, quorum: 2 });
    const claims = claimOf(true);
    expect(await voteOnQuorum(ctx, request(BOB), [quorumGate], claims)).toBe(true);
    expect(claims[0]!.decision.votes).toBe(votes);
  });

  it("decides at once on a rejection, without recording a vote first", async () => {
    const claims = claimOf(false);
    expect(await voteOnQuorum(ctx, request(BOB), [quorumGate], claims)).toBe(true);
    expect(queries.castVote).not.toHaveBeenCalled();
    expect(claims[0]!.decision.votes).toMatchObject([{ by: "user-bob", approved: false }]);
  });

  it("refuses a vote from a remembered identity until it is looked up", async () => {
    await expect(voteOnQuorum(ctx, request(REMEMBERED_BOB), [quorumGate], claimOf(true))).rejects.toMatchObject({
      code: "UNAUTHENTICATED",
    });
  });
});
