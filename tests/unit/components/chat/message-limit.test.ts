import { describe, expect, it } from "vitest";
import { messageLimit } from "@/components/chat/message-limit";

describe("a message against the server's limit", () => {
  it("shows no counter until 90% of the limit, then counts", () => {
    expect(messageLimit("a".repeat(899), 1000).near).toBe(false);
    expect(messageLimit("a".repeat(900), 1000)).toMatchObject({ near: true, over: -100, tooLong: null, counter: "900 / 1,000" });
  });

  it("says how much is too long past the limit, counting the trimmed text", () => {
    expect(messageLimit(`  ${"a".repeat(1001)}  `, 1000)).toMatchObject({
      length: 1001,
      over: 1,
      tooLong: "1 character too long to send — shorten it first.",
    });
    expect(messageLimit("a".repeat(3500), 1000).tooLong).toBe("2,500 characters too long to send — shorten it first.");
  });
});
