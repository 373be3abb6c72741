import { beforeAll, describe, expect, inject, it } from "vitest";
import { createToken, signIn, trpcMutation, trpcQuery, type Auth } from "../helpers/http";

interface Thread {
  id: string;
  title: string;
  ownerId: string;
}

describe.each(inject("servers"))("tRPC over plain JSON on the $name server", (server) => {
  let alice: Auth;
  let aliceCookie: string;

  beforeAll(async () => {
    aliceCookie = await signIn(server.url, "alice@acme.test");
    alice = { cookie: aliceCookie };
  });

  it("refuses procedures without identity with 401", async () => {
    const answer = await trpcQuery(server.url, null, "threads.list");
    expect(answer.status).toBe(401);
    expect(answer.error?.data.code).toBe("UNAUTHORIZED");
  });

  it("refuses a wrong password", async () => {
    await expect(signIn(server.url, "alice@acme.test", "wrong")).rejects.toThrow(/sign-in failed/);
  });

  it("creates, lists and gets threads for their owner only", async () => {
    const created = await trpcMutation<Thread>(server.url, alice, "threads.create", { title: "Plans" });
    expect(created.data?.title).toBe("Plans");
    const threadId = created.data!.id;

    const listed = await trpcQuery<Thread[]>(server.url, alice, "threads.list");
    expect(listed.data?.map((t) => t.id)).toContain(threadId);

    const got = await trpcQuery<{ thread: Thread; messages: unknown[] }>(server.url, alice, "threads.get", { threadId });
    expect(got.data?.messages).toEqual([]);

    const bob = { cookie: await signIn(server.url, "bob@acme.test") };
    expect((await trpcQuery(server.url, bob, "threads.get", { threadId })).status).toBe(403);
    expect((await trpcQuery<Thread[]>(server.url, bob, "threads.list")).data?.map((t) => t.id)).not.toContain(threadId);

    const mallory = { cookie: await signIn(server.url, "mallory@globex.test") };
    expect((await trpcQuery(server.url, mallory, "threads.get", { threadId })).status).toBe(404);
  });

  it("rejects extra fields and bad input with 400", async () => {
    const answer = await trpcMutation(server.url, alice, "threads.create", { title: "x", ownerId: "user-bob" });
    expect(answer.status).toBe(400);
    expect((await trpcMutation(server.url, alice, "threads.create", { title: "a\u0000b" })).status).toBe(400);
    expect((await trpcQuery(server.url, alice, "threads.get", { threadId: "\u0000" })).status).toBe(400);
    expect((await trpcMutation(server.url, alice, "tokens.create", { name: "" })).status).toBe(400);
  });

  it("shows a token once, lists it without the secret, and revokes it", async () => {
    const created = await createToken(server.url, aliceCookie, "ci");
    expect(created.token).toMatch(/^hbr_/);

    const listed = await trpcQuery<Record<string, unknown>[]>(server.url, alice, "tokens.list");
    const row = listed.data?.find((t) => t.id === created.id);
    expect(row).toMatchObject({ name: "ci", revokedAt: null });
    expect(JSON.stringify(listed.data)).not.toContain(created.token);
    expect(JSON.stringify(listed.data)).not.toMatch(/tokenHash/);

    const me = await trpcQuery<{ email: string; role: string }>(server.url, { bearer: created.token }, "me.get");
    expect(me.data).toMatchObject({ email: "alice@acme.test", role: "member" });

    expect((await trpcMutation(server.url, alice, "tokens.revoke", { tokenId: created.id })).status).toBe(200);
    expect((await trpcQuery(server.url, { bearer: created.token }, "me.get")).status).toBe(401);
    // Revoking twice, or someone else's token, is "not found".
    expect((await trpcMutation(server.url, alice, "tokens.revoke", { tokenId: created.id })).status).toBe(404);
  });

  it("does not let one user revoke another user's token", async () => {
    const created = await createToken(server.url, aliceCookie, "mine");
    const bob = { cookie: await signIn(server.url, "bob@acme.test") };
    expect((await trpcMutation(server.url, bob, "tokens.revoke", { tokenId: created.id })).status).toBe(404);
    expect((await trpcQuery(server.url, { bearer: created.token }, "me.get")).status).toBe(200);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const answer = await trpcMutation(server.url, alice, "threads.create", { title: "x".repeat(1024 * 1024 + 1) });
    expect(answer.status).toBe(413);
  });

  it("answers the health check", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(await res.json()).toEqual({ ok: true, instance: expect.any(String) });
  });
});
