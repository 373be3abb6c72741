/**
 * A request made straight from Node's, as Next.js would hand it to a route: the headers (with the
 * x-forwarded-* defaults), the body as the handler reads it, the signal that tells it the client
 * left — and a body it leaves unread does not stall the connection's next request.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { nodeRequest, type EdgeRequest } from "@/server/edge/node-request";
import { readBoundedText } from "@/server/transport/body";

let server: http.Server | undefined;

async function serving(handle: (request: EdgeRequest, res: http.ServerResponse) => Promise<void>): Promise<string> {
  server = http.createServer((req, res) => {
    void handle(nodeRequest(req, res, (server!.address() as AddressInfo).port), res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** POSTs over one kept-alive connection, so a request left unread would stall the next. */
function poster(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${url}${path}`, { method: "POST", agent }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

describe("nodeRequest", () => {
  it("carries the method, Node's headers with the x-forwarded-* Next.js fills in, and the body", async () => {
    let seen: { method: string; headers: Record<string, string>; body: string } | undefined;
    const url = await serving(async (request, res) => {
      seen = { method: request.method, headers: Object.fromEntries(request.headers), body: await readBoundedText(request) };
      res.end();
    });
    await fetch(`${url}/x`, { method: "POST", headers: { "content-type": "application/json", "x-custom": "a" }, body: '{"a":1}' });
    expect(seen).toMatchObject({ method: "POST", body: '{"a":1}' });
    expect(seen?.headers).toMatchObject({
      "content-type": "application/json",
      "x-custom": "a",
      "x-forwarded-host": new URL(url).host,
      "x-forwarded-proto": "http",
      "x-forwarded-port": new URL(url).port,
      "x-forwarded-for": "127.0.0.1",
    });
  });

  it("keeps the x-forwarded-* the client sent", async () => {
    let forwarded: string | null = null;
    const url = await serving(async (request, res) => {
      forwarded = request.headers.get("x-forwarded-for");
      res.end();
    });
    await fetch(url, { method: "POST", headers: { "x-forwarded-for": "10.0.0.1" }, body: "x" });
    expect(forwarded).toBe("10.0.0.1");
  });

  it("reads a body of many chunks whole", async () => {
    const url = await serving(async (request, res) => void res.end(String((await readBoundedText(request)).length)));
    const { post, close } = poster(url);
    expect(await post("/", "y".repeat(300_000))).toEqual({ status: 200, text: "300000" });
    close();
  });

  it("drops a body left unread or cut off at its limit, and the connection serves its next request", async () => {
    const url = await serving(async (request, res) => {
      // Refused before the body mattered.
      if (res.req.url === "/refuse") return void res.writeHead(401).end("no");
      try {
        res.end(await readBoundedText(request, 1_000));
      } catch {
        res.writeHead(413).end("too large");
      }
    });
    const { post, close } = poster(url);
    expect(await post("/refuse", "x".repeat(200_000))).toEqual({ status: 401, text: "no" });
    expect(await post("/echo", "y".repeat(200_000))).toEqual({ status: 413, text: "too large" });
    expect(await post("/echo", "second")).toEqual({ status: 200, text: "second" });
    close();
  });

  it("aborts its signal when the client leaves before the answer was sent, not after", async () => {
    const signals: AbortSignal[] = [];
    let left!: () => void;
    const gone = new Promise<void>((resolve) => (left = resolve));
    const url = await serving(async (request, res) => {
      signals.push(request.signal);
      if (res.req.url === "/done") return void res.end("ok");
      request.signal.addEventListener("abort", () => left(), { once: true });
      res.writeHead(200).write("partial");
    });
    expect(await (await fetch(`${url}/done`, { method: "POST", body: "" })).text()).toBe("ok");
    const controller = new AbortController();
    const res = await fetch(`${url}/stream`, { method: "POST", body: "", signal: controller.signal });
    await res.body!.getReader().read();
    controller.abort();
    await gone;
    expect(signals.map((s) => s.aborted)).toEqual([false, true]);
  });
});
