/**
 * A real webhook receiver on 127.0.0.1 for tests: it records every POST and verifies its signature
 * with the Standard Webhooks reference algorithm, written here independently of Harbor's signer:
 * `v1,` + base64 HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${raw body}`, keyed with the
 * base64-decoded secret after `whsec_`; any of the space-separated signatures may match (compared
 * in constant time), and the timestamp must be within the tolerance of now.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Set once the receiver knows its secret (`verifyWith`). */
  verified: boolean;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** What the receiver answered: 500 while it fails on purpose, else 204. */
  status: number;
}

const TOLERANCE_S = 5 * 60;

/** Standard Webhooks verification, as the reference libraries do it. */
export function verifyStandardWebhook(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_S) return false;
  if (!secret.startsWith("whsec_")) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest();
  return signature.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) return false;
    const given = Buffer.from(value, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The secret its webhook was created with: every request is verified against it. */
  secret: string | undefined;
  /** Answer 500 to the next `n` requests. */
  failNext(n: number): void;
  /** Answer 500 to every request from now on (or stop doing so). */
  failAlways(on: boolean): void;
  /** A delay before each answer. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let failing = 0;
  let always = false;
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    secret: undefined,
    delayMs: 0,
    failNext: (n) => void (failing = n),
    failAlways: (on) => void (always = on),
    // Requests still waiting for their answer (a receiver that never answers) are cut.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const header = (name: string) => {
        const value = req.headers[name];
        return typeof value === "string" ? value : undefined;
      };
      const headers = { id: header("webhook-id"), timestamp: header("webhook-timestamp"), signature: header("webhook-signature") };
      const fail = always || failing > 0;
      if (failing > 0) failing -= 1;
      receiver.received.push({
        status: fail ? 500 : 204,
        id: headers.id ?? "",
        timestamp: headers.timestamp ?? "",
        signature: headers.signature ?? "",
        body,
        verified: receiver.secret !== undefined && verifyStandardWebhook(receiver.secret, headers, body),
        payload: JSON.parse(body) as ReceivedWebhook["payload"],
      });
      setTimeout(() => {
        res.writeHead(fail ? 500 : 204);
        res.end();
      }, receiver.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error("timed out waiting for a condition");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
