import { describe, expect, it } from "vitest";
import type { InteractionInsert } from "@/server/db/queries/run-writes";
import { ParkedGates } from "@/server/runtime/pause/parked-gates";

const gate = (id: string, extra: Partial<InteractionInsert> = {}): InteractionInsert => ({
  id,
  tenantId: "tenant-acme",
  threadId: "thread-1",
  ownerId: "user-alice",
  kind: "approval",
  pauseReason: "hitl",
  policy: "owner",
  toolName: "send_email",
  toolArgs: { to: "a@example.com" },
  message: "Send an email",
  instanceId: "instance-1",
  expiresAt: new Date(Date.now() + 60_000),
  ...extra,
});

describe("the gates a process parked, answered without a read", () => {
  it("vouches for a one-approver gate as written: pending, no votes, owned and scoped as parked", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("g1")]);
    const [row] = gates.vouchFor(["g1"]) ?? [];
    expect(row).toMatchObject({ id: "g1", runId: "run-1", tenantId: "tenant-acme", ownerId: "user-alice", status: "pending", votes: [] });
  });

  it("keeps only what answering reads: the standing approval it offers, not its message or arguments", () => {
    const gates = new ParkedGates();
    const grant = {
      bounds: { to: { equals: "a@example.com" } },
      summary: "emails to a@example.com",
      toolVersion: "v1",
      agentId: "concierge",
    };
    gates.remember("run-1", [gate("g1", { detail: { grant } })]);
    const [row] = gates.vouchFor(["g1"]) ?? [];
    expect(row).toMatchObject({
      kind: "approval",
      policy: "owner",
      toolName: "send_email",
      detail: { grant },
      quorum: 1,
      onExpiry: "reject",
    });
    expect(row?.message).toBe("");
    expect(row?.toolArgs).toBeNull();
  });

  it("keeps nothing another process may change while it waits: quorum votes, escalation, other kinds", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [
      gate("quorum", { quorum: 2, policy: "approvers" }),
      gate("escalates", { escalateAt: new Date(), escalateTo: "admins" }),
      gate("form", { kind: "private_input" }),
    ]);
    expect(gates.size).toBe(0);
    expect(gates.vouchFor(["quorum"])).toBeUndefined();
  });

  it("reads instead when any named gate is unknown here", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("g1")]);
    expect(gates.vouchFor(["g1", "elsewhere"])).toBeUndefined();
    expect(gates.vouchFor([])).toBeUndefined();
  });

  it("for a resume of the whole thread, vouches only when it knows every open wait of the run", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("g1"), gate("g2"), gate("form", { kind: "client_tool" })]);
    expect(
      gates
        .vouchFor(["g1"], () => ["g1", "g2"])
        ?.map((r) => r.id)
        .sort(),
    ).toEqual(["g1", "g2"]);
    expect(gates.vouchFor(["g1"], () => ["g1", "form"])).toBeUndefined();
    expect(gates.vouchFor(["g1"], () => undefined)).toBeUndefined();
  });

  it("reads instead once a gate's time ran out (another process may have closed it)", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("late", { expiresAt: new Date(Date.now() - 1) })]);
    expect(gates.vouchFor(["late"])).toBeUndefined();
  });

  it("says whose thread its gates wait on, only when it vouches for every one on that thread", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("g1"), gate("g2"), gate("late", { expiresAt: new Date(Date.now() - 1) })]);
    expect(gates.threadOf(["g1", "g2"], "thread-1")).toEqual({ id: "thread-1", tenantId: "tenant-acme", ownerId: "user-alice" });
    expect(gates.threadOf(["g1"], "thread-2")).toBeUndefined();
    expect(gates.threadOf(["g1", "elsewhere"], "thread-1")).toBeUndefined();
    expect(gates.threadOf(["g1", "late"], "thread-1")).toBeUndefined();
    expect(gates.threadOf([], "thread-1")).toBeUndefined();
  });

  it("forgets answered gates", () => {
    const gates = new ParkedGates();
    gates.remember("run-1", [gate("g1")]);
    gates.forget(["g1"]);
    expect(gates.vouchFor(["g1"])).toBeUndefined();
  });
});
