import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { signState, stateKey, verifyState } from "@/server/oauth/state";

const key = stateKey("a-server-secret-for-tests");
const consent = { interactionId: "i-1", tenantId: "tenant-acme", userId: "user-alice", provider: "calendar", nonceHash: "h" };

describe("the OAuth state", () => {
  it("carries the interaction, the user and the provider, signed", async () => {
    const state = await signState(key, consent, new Date(Date.now() + 60_000));
    expect(await verifyState(key, state)).toEqual(consent);
  });

  it("refuses a state signed with another secret, altered, expired or not a state at all, naming `state`", async () => {
    const state = await signState(key, consent, new Date(Date.now() + 60_000));
    const expired = await signState(key, consent, new Date(Date.now() - 1_000));
    // Signed by us, but for something else: no audience, other claims.
    const foreign = await new SignJWT({ iid: "i-1" }).setProtectedHeader({ alg: "HS256" }).sign(key);
    const refusals = [
      () => verifyState(stateKey("another-server-secret"), state),
      () => verifyState(key, `${state.slice(0, -4)}AAAA`),
      () => verifyState(key, expired),
      () => verifyState(key, "not-a-jwt"),
      () => verifyState(key, foreign),
    ];
    for (const refusal of refusals) await expect(refusal()).rejects.toMatchObject({ code: "INVALID_INPUT", details: { field: "state" } });
    await expect(verifyState(key, await signState(key, consent, new Date(Date.now() - 1_000)))).rejects.toThrow(/expired/);
  });
});
