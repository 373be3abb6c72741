import { describe, expect, it } from "vitest";
import { requestedPath, safeReturnPath } from "@/server/auth/return-path";

describe("the path to return to after sign-in", () => {
  it.each([
    ["/chat/abc", "/chat/abc"],
    ["/approvals", "/approvals"],
    ["/chat/3f0e0a4e-9d0c-4a43-9d7e-5b4f5c1d2e3f", "/chat/3f0e0a4e-9d0c-4a43-9d7e-5b4f5c1d2e3f"],
    ["/chat?x=1#y", "/chat?x=1#y"],
    // A percent-encoded backslash stays an encoded path segment on this site.
    ["/%5Cevil.example", "/%5Cevil.example"],
    // Dot segments are resolved; what stays on this site is kept.
    ["/chat/../approvals", "/approvals"],
    ["/..", "/"],
  ])("keeps the same-site path %s", (given, expected) => {
    expect(safeReturnPath(given)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example",
    "/\tevil",
    "/\t/evil.example",
    "/\u0000/evil.example",
    "/\u007f/evil.example",
    "/\n/evil.example",
    "javascript:alert(1)",
    "chat",
    "",
    null,
    undefined,
    ["/chat", "//evil.example"],
    // Normalising dot segments leaves a protocol-relative path.
    "/..//evil.example",
    "/../..//evil.example/x",
    "/.%2e//evil.example",
    "/%2e%2e//evil.example",
    "/chat/../..//evil.example",
    "/./..//evil.example",
  ])("refuses %j and returns to the chat", (given) => {
    expect(safeReturnPath(given)).toBe("/chat");
  });
});

describe("the requested page, as proxy.ts passes it on", () => {
  it("keeps the path and the query", () => {
    expect(requestedPath(new URL("http://127.0.0.1:3000/chat/abc?tab=decided"))).toBe("/chat/abc?tab=decided");
    expect(requestedPath(new URL("http://127.0.0.1:3000/approvals"))).toBe("/approvals");
  });

  it("drops Next's _rsc cache key of a client-side navigation", () => {
    expect(requestedPath(new URL("http://127.0.0.1:3000/approvals?_rsc=1x2y3"))).toBe("/approvals");
    expect(requestedPath(new URL("http://127.0.0.1:3000/chat?x=1&_rsc=1x2y3"))).toBe("/chat?x=1");
  });
});
