/**
 * Resume tokens are signed without jose (see resume-token.ts) and checked with it: what is signed
 * here is a standard HS256 JWT that jose accepts for its own scope only, and for no other.
 */
import { decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { resumeTokenKey, signResumeToken, verifyResumeToken } from "@/server/runtime/pause/resume-token";

const key = resumeTokenKey("a server secret of test");
const scope = {
  interactionId: "gate-1",
  tenantId: "tenant-acme",
  userId: "user-alice",
  threadId: "thread-1",
  expiresAt: new Date(Date.now() + 60_000),
};
const expected = { interactionId: "gate-1", tenantId: "tenant-acme", threadId: "thread-1", userId: "user-alice" };

describe("resume tokens", () => {
  it("are HS256 JWTs jose verifies, carrying the scope they were signed for", async () => {
    const token = signResumeToken(key, scope);
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256" });
    const { payload } = await jwtVerify(token, key, { issuer: "harbor", audience: "harbor:resume", algorithms: ["HS256"] });
    expect(payload).toEqual({
      sub: "gate-1",
      tid: "tenant-acme",
      uid: "user-alice",
      sid: "thread-1",
      iss: "harbor",
      aud: "harbor:resume",
      exp: Math.ceil(scope.expiresAt.getTime() / 1000),
    });
    await expect(verifyResumeToken(key, token, expected)).resolves.toBeUndefined();
  });

  it("are refused for another interaction, tenant, thread or user", async () => {
    const token = signResumeToken(key, scope);
    for (const other of [
      { ...expected, interactionId: "gate-2" },
      { ...expected, tenantId: "tenant-globex" },
      { ...expected, threadId: "thread-2" },
      { ...expected, userId: "user-bob" },
    ]) {
      await expect(verifyResumeToken(key, token, other)).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
  });

  it("are refused when expired, tampered with, or signed with another key", async () => {
    const expired = signResumeToken(key, { ...scope, expiresAt: new Date(Date.now() - 60_000) });
    await expect(verifyResumeToken(key, expired, expected)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const [header, , signature] = signResumeToken(key, scope).split(".");
    const forged = Buffer.from(
      JSON.stringify({
        sub: "gate-1",
        tid: "tenant-acme",
        uid: "user-bob",
        sid: "thread-1",
        iss: "harbor",
        aud: "harbor:resume",
        exp: 9_999_999_999,
      }),
    ).toString("base64url");
    await expect(verifyResumeToken(key, `${header}.${forged}.${signature}`, { ...expected, userId: "user-bob" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const elsewhere = signResumeToken(resumeTokenKey("another server's secret"), scope);
    await expect(verifyResumeToken(key, elsewhere, expected)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
