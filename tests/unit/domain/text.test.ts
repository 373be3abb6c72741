import { describe, expect, it } from "vitest";
import { isStorableText, toStorableText } from "@/server/domain";

describe("text the database can store", () => {
  it("drops NUL characters and replaces unpaired surrogates, keeping pairs", () => {
    const stored = toStorableText("a\u0000b\uD83D\uDE00c\uD800d\uDC00");
    expect(stored).toBe("ab\u{1F600}c\uFFFDd\uFFFD");
    expect(isStorableText(stored)).toBe(true);
  });

  it("leaves storable text as it is", () => {
    expect(toStorableText("héllo, wörld 👋")).toBe("héllo, wörld 👋");
  });
});
