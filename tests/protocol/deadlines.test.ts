/**
 * Gate deadlines over the wire: the interrupt announces its deadline in `metadata.harbor.deadline`;
 * a reminder written into the run's log while it waits is not sent to AG-UI clients (it falls
 * between transport runs), and the resumed run's stream still validates with both clients; an
 * escalated transfer is decided by an admin over tRPC.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGUI_CLIENTS, approve, interruptsOf, runTurn, streamedText, userMessage } from "../helpers/agui";
import { signIn, trpcMutation, trpcQuery } from "../helpers/http";
import { startServer, type RunningServer } from "../helpers/server";

interface Deadline {
  remindAt?: number;
  escalateAt?: number;
  escalateTo?: string;
  onExpiry: string;
}
type Stored = { status: string; deadline: { remindedAt: string | null; escalatedAt: string | null } };

const eventually = async <T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> => {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("timed out");
};

describe("gate deadlines over AG-UI", () => {
  let server: RunningServer;
  let alice: string;
  let carol: string;
  beforeAll(async () => {
    server = await startServer({ HARBOR_APPROVAL_TTL_MS: "4000", HARBOR_SWEEP_MS: "100", HARBOR_STREAM_CHUNK_MS: "0" }, "deadlines");
    alice = await signIn(server.url, "alice@acme.test");
    carol = await signIn(server.url, "carol@acme.test");
  }, 120_000);
  afterAll(async () => {
    await server.stop();
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it.each(AGUI_CLIENTS.map((c) => [c.version, c] as const))(
    "announces an email's reminder, logs it while the run waits, and resumes with a valid stream (@ag-ui/client %s)",
    async (_version, client) => {
      const threadId = randomUUID();
      const asked = await runTurn(client, {
        baseUrl: server.url,
        auth: { cookie: alice },
        threadId,
        messages: [userMessage("send an email to deadline@example.com saying hi")],
      });
      const [gate] = interruptsOf(asked.events);
      const deadline = (gate?.metadata?.harbor as { deadline?: Deadline } | undefined)?.deadline;
      expect(deadline).toMatchObject({ onExpiry: "reject" });
      expect(deadline?.remindAt).toBeLessThan(Date.parse(gate!.expiresAt!));

      await eventually(
        () => trpcQuery<Stored>(server.url, { cookie: alice }, "interactions.get", { interactionId: gate!.id }),
        (answer) => answer.data?.deadline.remindedAt != null,
      );
      const resumed = await runTurn(client, {
        baseUrl: server.url,
        auth: { cookie: alice },
        threadId,
        messages: [],
        resume: [approve(gate!.id)],
      });
      expect(streamedText(resumed.events)).toContain("Email sent to deadline@example.com.");
      expect(resumed.events.some((e) => "name" in e && String(e.name).startsWith("pause.reminder"))).toBe(false);
    },
    60_000,
  );

  it("lets an admin decide a transfer escalated to the admins, over tRPC", async () => {
    const threadId = randomUUID();
    const client = AGUI_CLIENTS[0]!;
    const asked = await runTurn(client, {
      baseUrl: server.url,
      auth: { cookie: alice },
      threadId,
      messages: [userMessage("transfer 30 EUR to DEADLINE-ACC")],
    });
    const [gate] = interruptsOf(asked.events);
    expect((gate?.metadata?.harbor as { deadline?: Deadline } | undefined)?.deadline).toMatchObject({
      escalateTo: "admins",
      onExpiry: "reject",
    });
    await eventually(
      () => trpcQuery<Stored>(server.url, { cookie: carol }, "interactions.get", { interactionId: gate!.id }),
      (answer) => answer.data?.deadline.escalatedAt != null,
    );
    const decided = await trpcMutation<{ continued: string[] }>(server.url, { cookie: carol }, "interactions.approve", {
      interactionId: gate!.id,
    });
    expect(decided.data?.continued).toHaveLength(1);
    const stored = await eventually(
      () => trpcQuery<Stored>(server.url, { cookie: alice }, "interactions.get", { interactionId: gate!.id }),
      (answer) => answer.data?.status === "resolved",
    );
    expect(stored.data?.deadline.escalatedAt).not.toBeNull();
  }, 60_000);
});
