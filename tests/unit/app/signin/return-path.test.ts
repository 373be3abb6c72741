import { describe, expect, it } from "vitest";
import { safeReturnPath } from "@/app/(auth)/signin/return-path";

describe("the path to return to after sign-in", () => {
  it.each([
    ["/chat/abc", "/chat/abc"],
    ["/chat?x=1#y", "/chat?x=1#y"],
    // A percent-encoded backslash stays an encoded path segment on this site.
    ["/%5Cevil.example", "/%5Cevil.example"],
  ])("keeps the same-site path %s", (given, expected) => {
    expect(safeReturnPath(given)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example",
    "/\tevil",
    "javascript:alert(1)",
    "",
    undefined,
    ["/chat", "//evil.example"],
  ])("refuses %j and returns to the chat", (given) => {
    const path = safeReturnPath(given);
    expect(path === "/chat" || new URL(path, "http://harbor.invalid").origin === "http://harbor.invalid").toBe(true);
    expect(path).not.toMatch(/evil|javascript/);
  });
});
