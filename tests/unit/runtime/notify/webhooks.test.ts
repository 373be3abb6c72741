import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { countedListeners, guardedLookup } from "@/server/runtime/notify/webhook-delivery";
import { addressAllowed, checkWebhookUrl, signWebhook } from "@/server/runtime/notify/webhooks";
import { verifyStandardWebhook } from "../../../helpers/webhook-receiver";

describe("where a webhook may point", () => {
  it("takes public https URLs", () => {
    expect(checkWebhookUrl("https://hooks.example.com/a?b=1", false).href).toBe("https://hooks.example.com/a?b=1");
    expect(checkWebhookUrl("https://93.184.216.34/x", false).hostname).toBe("93.184.216.34");
    expect(checkWebhookUrl("https://[2606:4700::1111]/x", false).hostname).toBe("[2606:4700::1111]");
  });

  it.each([
    "http://hooks.example.com/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://192.168.0.1/",
    "https://100.64.0.1/",
    "https://169.254.169.254/latest",
    "https://0.0.0.0/",
    "https://127.0.0.1/",
    "https://2130706433/", // 127.0.0.1 written as a number
    "https://0x7f.1/",
    "https://localhost/",
    "https://api.localhost/",
    "https://[::1]/",
    "https://[::]/",
    "https://[fe80::1]/",
    "https://[fd12:3456::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:a00:1]/",
    "https://[64:ff9b::a00:1]/",
    "https://user:secret@hooks.example.com/",
    "https://hooks.example.com/#frag",
    "not a url",
    "file:///etc/passwd",
  ])("refuses %s", (url) => {
    expect(() => checkWebhookUrl(url, false)).toThrow(expect.objectContaining({ code: "INVALID_INPUT", details: { field: "url" } }));
  });

  it("lets loopback through only when local addresses are allowed, and nothing else private", () => {
    expect(checkWebhookUrl("http://127.0.0.1:8080/x", true).port).toBe("8080");
    expect(checkWebhookUrl("http://localhost:8080/x", true).hostname).toBe("localhost");
    expect(checkWebhookUrl("https://[::1]:8443/x", true).port).toBe("8443");
    expect(() => checkWebhookUrl("http://10.0.0.1/x", true)).toThrow();
    expect(() => checkWebhookUrl("http://hooks.example.com/x", true)).toThrow();
    expect(addressAllowed("127.0.0.1", true)).toBe(true);
    expect(addressAllowed("192.168.1.1", true)).toBe(false);
    expect(addressAllowed("8.8.8.8", false)).toBe(true);
    expect(addressAllowed("::ffff:8.8.8.8", false)).toBe(true);
    expect(addressAllowed("::ffff:10.0.0.1", false)).toBe(false);
    expect(addressAllowed("not-an-ip", true)).toBe(false);
  });

  it.each([
    ["NAT64, well-known prefix", "64:ff9b::a00:1"],
    ["NAT64, well-known prefix, dotted", "64:ff9b::127.0.0.1"],
    ["NAT64, local-use prefix", "64:ff9b:1::a00:1"],
    ["NAT64, local-use prefix, any IPv4 address", "64:ff9b:1:808:8:800::"],
    ["6to4", "2002:7f00:1::1"],
    ["6to4 of a private network", "2002:c0a8:101::"],
    ["Teredo, server address", "2001:0:a00:1::1"],
    ["Teredo, client address (inverted)", "2001:0:808:808:0:0:80ff:fffe"],
    ["IPv4-mapped, hex", "::ffff:7f00:1"],
    ["IPv4-translated", "::ffff:0:a00:1"],
    ["IPv4-compatible, hex", "::7f00:1"],
    ["IPv4-compatible, public", "::808:808"],
    ["unspecified", "::"],
  ])("refuses an IPv6 address that carries a refused IPv4 one: %s (%s)", (_form, address) => {
    expect(addressAllowed(address, false)).toBe(false);
    // Allowing loopback for tests never opens a tunnel or translator to it.
    if (!address.startsWith("::ffff:7f")) expect(addressAllowed(address, true)).toBe(false);
    expect(() => checkWebhookUrl(`https://[${address}]/hook`, false)).toThrow();
  });

  it.each(["64:ff9b::808:808", "2002:808:808::1", "2001:0:808:808::f7f7:f7f7", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "allows a public address, also one carrying a public IPv4 address: %s",
    (address) => {
      expect(addressAllowed(address, false)).toBe(true);
      expect(checkWebhookUrl(`https://[${address}]/hook`, false).hostname).toMatch(/^\[/);
    },
  );

  it("refuses a name that resolves to a refused address at connection time", async () => {
    const lookup = (allowLocal: boolean) =>
      new Promise<LookupAddress[]>((resolve, reject) =>
        guardedLookup(allowLocal)("localhost", { all: true }, (error, addresses) =>
          error ? reject(error) : resolve(addresses as LookupAddress[]),
        ),
      );
    await expect(lookup(false)).rejects.toMatchObject({ code: "EADDRNOTALLOWED" });
    expect((await lookup(true)).length).toBeGreaterThan(0);
  });
});

describe("webhook signatures", () => {
  it("follow Standard Webhooks: the reference verification accepts them, and only for the same message", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"type":"pause.requested"}';
    const now = Math.floor(Date.now() / 1000);
    const signature = signWebhook(secret, "msg_1", now, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyStandardWebhook(secret, { id: "msg_1", timestamp: String(now), signature }, body)).toBe(true);
    expect(verifyStandardWebhook(secret, { id: "msg_2", timestamp: String(now), signature }, body)).toBe(false);
    expect(verifyStandardWebhook(secret, { id: "msg_1", timestamp: String(now + 1), signature }, body)).toBe(false);
    expect(verifyStandardWebhook(secret, { id: "msg_1", timestamp: String(now), signature: `v1,x v2,y ${signature}` }, body)).toBe(true);
  });

  it("matches the Standard Webhooks specification's published example", () => {
    // From the specification's test vectors (standard-webhooks/standard-webhooks, spec/standard-webhooks.md).
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });
});

describe("the inboxes' view of interaction changes", () => {
  it("counts only its own listeners, once each however often they unsubscribe", () => {
    const listeners = new Set<(n: number) => void>();
    const onChange = (listener: (n: number) => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    };
    onChange(() => undefined); // the webhook worker's
    const inboxes = countedListeners(onChange);
    expect(inboxes.watching()).toBe(false);
    const seen: number[] = [];
    const off = inboxes.onChange((n) => seen.push(n));
    expect(inboxes.watching()).toBe(true);
    for (const listener of listeners) listener(7);
    expect(seen).toEqual([7]);
    off();
    off();
    expect(inboxes.watching()).toBe(false);
    expect(listeners.size).toBe(1);
  });
});
