import { describe, expect, it } from "vitest";
import { amountOf, nextToDecide, type Turn } from "@/components/approvals/queue";
import type { InteractionView } from "@/components/trpc/types";

const ME = "bob";
const deadline: InteractionView["deadline"] = {
  remindAt: null,
  remindedAt: null,
  escalateAt: null,
  escalatedAt: null,
  escalateTo: null,
  onExpiry: "reject",
};

/** A gate routed to approvers, asked by alice unless said otherwise. */
function gate(interactionId: string, over: Partial<Turn & Pick<InteractionView, "tool">> = {}): Turn & Pick<InteractionView, "tool"> {
  return {
    interactionId,
    status: "pending",
    policy: "approvers",
    requester: { id: "alice", name: "Alice", email: "alice@acme.test" },
    votes: [],
    deadline,
    tool: null,
    ...over,
  };
}

describe("the inbox's next request after a decision", () => {
  it("is the next one down that still needs the viewer, skipping decided and others' ones", () => {
    const rows = [gate("a"), gate("b", { status: "resolved" }), gate("c", { requester: { id: ME, name: "Bob", email: null } }), gate("d")];
    expect(nextToDecide(rows, "a", ME, false)).toBe("d");
  });

  it("goes up when nothing below waits, and is null when nothing else waits", () => {
    expect(nextToDecide([gate("a"), gate("b")], "b", ME, false)).toBe("a");
    expect(nextToDecide([gate("a", { status: "rejected" }), gate("b")], "b", ME, false)).toBeNull();
  });

  it("reads a transfer's amount for its row, and nothing for other requests", () => {
    expect(amountOf(gate("t", { tool: { name: "transfer_funds", args: { amount: 2500, currency: "EUR", to: "X" } } }))).toBe("2,500 EUR");
    expect(amountOf(gate("e", { tool: { name: "send_email", args: { to: "a@b.c", body: "hi" } } }))).toBeNull();
  });
});
