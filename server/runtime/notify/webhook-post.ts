/**
 * The HTTP leg of a webhook delivery: one POST, to an address webhooks may reach, with a deadline.
 * Names are resolved here, not before, so a name that resolves somewhere forbidden is refused at
 * connect time (no check-then-use gap).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { addressAllowed } from "./webhooks";

/** Resolves a name like the system does, refusing it when any of its addresses may not be reached. */
export function guardedLookup(allowLocal: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((a) => !addressAllowed(a.address, allowLocal));
      if (refused || addresses.length === 0) {
        const denied: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address webhooks may not reach`);
        denied.code = "EADDRNOTALLOWED";
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/** POSTs `body`; the answer's status code (its body is discarded), or a rejection naming what failed. */
export function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, allowLocal: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup: guardedLookup(allowLocal),
        agent: false,
      },
      (response) => {
        clearTimeout(timer);
        resolve(response.statusCode ?? 0);
        response.resume();
        response.on("error", () => undefined);
        // Receivers that keep talking are not listened to.
        setTimeout(() => response.destroy(), 1_000).unref();
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(body);
  });
}
