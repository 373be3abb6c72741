/**
 * The known-device cookie: an entry per account, valid only for its own account and secret, for
 * 180 days; a few accounts per browser; nothing readable in it.
 */
import { describe, expect, it } from "vitest";
import { isKnownDevice, KNOWN_DEVICE_COOKIE, knownDeviceSetCookie, rememberedDevice } from "@/server/auth/known-device";

const SECRET = "s".repeat(32);
const NOW = Date.UTC(2026, 11, 5);
const DAY = 24 * 60 * 60 * 1000;
const header = (value: string) => `authjs.csrf-token=x; ${KNOWN_DEVICE_COOKIE}=${value}; other=1`;

describe("the known-device cookie", () => {
  it("knows the browser for the account it signed in to, whatever the email's case, and no other", () => {
    const value = rememberedDevice(SECRET, "bob@acme.test", null, NOW);
    expect(value).not.toContain("bob");
    expect(isKnownDevice(SECRET, "Bob@Acme.test", header(value), NOW + DAY)).toBe(true);
    expect(isKnownDevice(SECRET, "alice@acme.test", header(value), NOW + DAY)).toBe(false);
    expect(isKnownDevice("t".repeat(32), "bob@acme.test", header(value), NOW + DAY)).toBe(false);
    expect(isKnownDevice(SECRET, "bob@acme.test", null, NOW)).toBe(false);
  });

  it("forgets a browser after 180 days, and refuses an entry issued in the future or tampered with", () => {
    const value = rememberedDevice(SECRET, "bob@acme.test", null, NOW);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(value), NOW + 179 * DAY)).toBe(true);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(value), NOW + 181 * DAY)).toBe(false);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(value), NOW - 60_000)).toBe(false);
    const [issued, mac] = value.split(".") as [string, string];
    const later = (parseInt(issued, 36) + 1).toString(36);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(`${later}.${mac}`), NOW + DAY)).toBe(false);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(`${issued}.${mac.slice(0, -1)}A`), NOW + DAY)).toBe(false);
  });

  it("remembers a few accounts per browser, newest first, one entry per account", () => {
    let value = "";
    for (const [i, who] of ["a", "b", "c", "d", "e", "b"].entries()) {
      value = rememberedDevice(SECRET, `${who}@acme.test`, header(value), NOW + i * 1000);
    }
    expect(value.split("~")).toHaveLength(4);
    const known = ["a", "b", "c", "d", "e"].filter((who) => isKnownDevice(SECRET, `${who}@acme.test`, header(value), NOW + DAY));
    expect(known).toEqual(["b", "c", "d", "e"]);
  });

  it("ignores malformed entries and bounds what it reads", () => {
    const good = rememberedDevice(SECRET, "bob@acme.test", null, NOW);
    expect(isKnownDevice(SECRET, "bob@acme.test", header(`junk~${"x".repeat(5000)}~${good}`), NOW + DAY)).toBe(true);
    const many = Array.from({ length: 50 }, () => `1.${"A".repeat(43)}`).join("~");
    expect(isKnownDevice(SECRET, "bob@acme.test", header(`${many}~${good}`), NOW + DAY)).toBe(false);
  });

  it("is set HttpOnly and SameSite=Lax for 180 days, Secure over https", () => {
    expect(knownDeviceSetCookie("v", false)).toBe(`${KNOWN_DEVICE_COOKIE}=v; Path=/; Max-Age=15552000; HttpOnly; SameSite=Lax`);
    expect(knownDeviceSetCookie("v", true)).toMatch(/; Secure$/);
  });
});
