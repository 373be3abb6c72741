import { Writable } from "node:stream";
import { type TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { Harbor } from "@/server/harbor";
import { createLogger } from "@/server/log";
import {
  adminProcedure,
  createCallerFactory,
  createTRPCRouter,
  protectedProcedure,
  subscriptionSse,
  type Context,
} from "@/server/api/trpc";
import { NotFoundError, rolesOf, type VerifiedIdentity } from "@/server/runtime";
import { codeOf } from "../../helpers/trpc-errors";

const logged: string[] = [];
const log = createLogger({
  level: "error",
  destination: new Writable({ write: (chunk, _e, done) => (logged.push(String(chunk)), done()) }),
});

const router = createTRPCRouter({
  whoami: protectedProcedure.query(({ ctx }) => ctx.identity.userId),
  steer: adminProcedure.mutation(() => "steered"),
  missing: protectedProcedure.query(() => {
    throw new NotFoundError("Thing");
  }),
  crash: protectedProcedure.query(() => {
    throw Object.assign(new Error("Failed query: select secret\nparams: hunter2"), { params: ["hunter2"] });
  }),
});
const createCaller = createCallerFactory(router);

function callerFor(identity: VerifiedIdentity | null) {
  const ctx: Context = { harbor: {} as Harbor, identity, requestId: "req-test", log };
  return createCaller(ctx);
}

const as = (userId: string, role: "member" | "approver" | "admin"): VerifiedIdentity => ({
  tenantId: "tenant-acme",
  userId,
  roles: rolesOf(role),
});

describe("the procedures", () => {
  it("refuse a caller without identity as UNAUTHORIZED", async () => {
    expect(await codeOf(callerFor(null).whoami())).toBe("UNAUTHORIZED");
  });

  it("let only admins steer", async () => {
    expect(await codeOf(callerFor(as("bob", "approver")).steer())).toBe("FORBIDDEN");
    expect(await callerFor(as("carol", "admin")).steer()).toBe("steered");
  });

  it("map runtime errors to their tRPC codes", async () => {
    expect(await codeOf(callerFor(as("alice", "member")).missing())).toBe("NOT_FOUND");
  });

  it("answer an unexpected failure as INTERNAL without its text, and log it without the query values", async () => {
    const error = await callerFor(as("alice", "member"))
      .crash()
      .catch((e: unknown) => e as TRPCError);
    expect(error.code).toBe("INTERNAL_SERVER_ERROR");
    expect(error.message).not.toMatch(/select|hunter2/);
    const line = logged.join("");
    expect(line).toContain("tRPC procedure failed");
    expect(line).toContain("Failed query: select secret");
    expect(line).not.toContain("hunter2");
  });
});

describe("subscriptions over SSE", () => {
  it("tell clients to reconnect after three silent ping intervals (HARBOR_SSE_PING_MS, 15 s by default)", () => {
    expect(subscriptionSse(200)).toEqual({ client: { reconnectAfterInactivityMs: 600 } });
    // What tRPC spreads into each subscription's stream: no `ping` of its own (withSubscriptionPings adds them).
    expect({ ...router._def._config.sse }).toEqual({ client: { reconnectAfterInactivityMs: 45_000 } });
  });
});
