/**
 * Standing approvals without a database: what a gate offers (bounds from the call, only for one
 * approver), what an answer may ask for, and how a grant's use travels on the AG-UI wire.
 */
import { EventSchemas } from "@ag-ui/core/schemas";
import { verifyEvents } from "@ag-ui/client";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@/server/agents/define";
import { ApprovalAnswer, type InterruptView, type RunEvent } from "@/server/runtime";
import { GRANT_SNAPSHOT_MS, grantOffer, rulesOutGrant } from "@/server/runtime/policies/grants";
import { toAguiEvents, toInterrupt } from "@/server/transport/agui";
import { agentOf } from "../../../helpers/runtime";

const pay = defineTool({
  name: "pay",
  description: "Pays someone.",
  input: z.strictObject({ to: z.string(), amount: z.number(), memo: z.string().optional() }),
  output: z.strictObject({ paid: z.literal(true) }),
  approval: {
    policy: "approvers",
    describe: (a) => `Pay ${a.amount} to ${a.to}`,
    grantable: { fields: { to: "equal", amount: { atMost: 1000 } }, describe: (b) => `payments within ${JSON.stringify(b)}` },
  },
  run: async () => ({ paid: true as const }),
});
const agent = agentOf("payer", { next: () => ({ type: "finish" }) }, new Map([["pay", pay]]));

describe("a gate's standing approval offer", () => {
  it("binds the declared arguments to the call's values and leaves the rest free", () => {
    const offer = grantOffer(agent, pay, { to: "DE-1", amount: 250, memo: "rent" }, 1);
    expect(offer).toMatchObject({
      bounds: { to: { equals: "DE-1" }, amount: { atMost: 250 } },
      caps: [{ field: "amount", approved: 250, limit: 1000 }],
      agentId: "payer",
      toolVersion: expect.stringMatching(/^t2:[0-9a-f]{64}$/),
    });
    expect(offer?.summary).toBe('payments within {"to":{"equals":"DE-1"},"amount":{"atMost":250}}');
  });

  it("offers nothing for a quorum, for a tool that declares nothing, or when a bound argument has no value", () => {
    expect(grantOffer(agent, pay, { to: "DE-1", amount: 250 }, 2)).toBeUndefined();
    expect(grantOffer(agent, { ...pay, approval: { policy: "owner", describe: () => "x" } } as typeof pay, { to: "a", amount: 1 }, 1)).toBe(
      undefined,
    );
    expect(grantOffer(agent, pay, { amount: 250 }, 1)).toBeUndefined();
  });

  it("never lowers a cap's limit below the approved amount", () => {
    expect(grantOffer(agent, pay, { to: "DE-1", amount: 2500 }, 1)?.caps).toEqual([{ field: "amount", approved: 2500, limit: 2500 }]);
  });
});

describe("an approval's answer", () => {
  it("stays { approved, reason? } for existing clients and takes an optional, strict grant", () => {
    expect(ApprovalAnswer.safeParse({ approved: true }).success).toBe(true);
    expect(ApprovalAnswer.safeParse({ approved: true, grant: { scope: "thread" } }).success).toBe(true);
    expect(ApprovalAnswer.safeParse({ approved: true, grant: { scope: "hours", hours: 72, caps: { amount: 5 } } }).success).toBe(true);
    for (const grant of [
      { scope: "hours" },
      { scope: "thread", hours: 2 },
      { scope: "hours", hours: 0 },
      { scope: "hours", hours: 1.5 },
      { scope: "forever" },
      { scope: "thread", tool: "x" },
      { scope: "thread", caps: { amount: -1 } },
    ]) {
      expect(ApprovalAnswer.safeParse({ approved: true, grant }).success, JSON.stringify(grant)).toBe(false);
    }
    expect(ApprovalAnswer.safeParse({ approved: true, args: {} }).success).toBe(false);
  });
});

describe("standing approvals on the AG-UI wire", () => {
  it("sends a grant's use as CUSTOM grant.used, a verified stream", async () => {
    const events: RunEvent[] = [
      { type: "run.started", runId: "r", threadId: "thread-1", agentId: "concierge" },
      { type: "tool.call", messageId: "m", toolCallId: "tc", name: "send_email", args: { to: "a@b.c" } },
      { type: "grant.used", grantId: "g-1", toolCallId: "tc", toolName: "send_email", grantedBy: "user-alice" },
      { type: "tool.result", messageId: "m2", toolCallId: "tc", content: "{}" },
      { type: "run.completed" },
    ];
    const agui = events.flatMap((event, i) =>
      toAguiEvents({ runId: "r", seq: i + 1, at: 1_700_000_000_000 + i, event }, { threadId: "thread-1", runId: "t", peer: "legacy" }),
    );
    for (const e of agui) expect(EventSchemas.safeParse(e).success, e.type).toBe(true);
    const out = await lastValueFrom(from(agui).pipe(verifyEvents(), toArray()));
    expect(out.find((e) => e.type === "CUSTOM")).toMatchObject({
      name: "grant.used",
      value: { grantId: "g-1", toolCallId: "tc", toolName: "send_email" },
    });
  });

  it("offers the grant in the interrupt's metadata without the tool version it binds", () => {
    const view: InterruptView = {
      id: "i",
      runId: "r",
      kind: "approval",
      reason: "hitl",
      policy: "owner",
      message: "Send",
      expiresAt: 1_700_000_000_000,
      resumeToken: "tok",
      toolCallId: "tc",
      detail: { grant: { bounds: { to: { equals: "a@b.c" } }, summary: "emails to a@b.c", toolVersion: "v", agentId: "concierge" } },
    };
    const interrupt = toInterrupt(view);
    expect(interrupt.metadata).toMatchObject({ harbor: { grant: { bounds: { to: { equals: "a@b.c" } }, summary: "emails to a@b.c" } } });
    expect(JSON.stringify(interrupt)).not.toContain("toolVersion");
  });
});

describe("the grants a run saw as it began", () => {
  const snapshot = { tools: new Set(["send_email"]), seenAt: 10_000 };
  it("spare the lookup for another tool, only while fresh", () => {
    expect(rulesOutGrant(snapshot, "transfer_funds", 10_000 + GRANT_SNAPSHOT_MS)).toBe(true);
    expect(rulesOutGrant(snapshot, "transfer_funds", 10_001 + GRANT_SNAPSHOT_MS)).toBe(false);
  });
  it("never spare it for a tool the owner holds a grant for, nor without a snapshot", () => {
    expect(rulesOutGrant(snapshot, "send_email", 10_000)).toBe(false);
    expect(rulesOutGrant(undefined, "transfer_funds", 10_000)).toBe(false);
  });
});
