import { describe, expect, it } from "vitest";
import { stableMarkdown } from "@/components/chat/streaming-markdown";

describe("stableMarkdown: what of a streaming reply renders without flicker", () => {
  it("keeps plain text as it comes, the unfinished line too", () => {
    expect(stableMarkdown("Hello wor")).toBe("Hello wor");
    expect(stableMarkdown("One line\nand the next")).toBe("One line\nand the next");
  });

  it("holds a table's header rows until the delimiter row decides them, then shows complete rows", () => {
    expect(stableMarkdown("Plan:\n\n| Step | Ow")).toBe("Plan:\n");
    expect(stableMarkdown("Plan:\n\n| Step | Owner |\n")).toBe("Plan:\n");
    expect(stableMarkdown("Plan:\n\n| Step | Owner |\n| --- | -")).toBe("Plan:\n");
    expect(stableMarkdown("Plan:\n\n| Step | Owner |\n| --- | --- |\n| Draft | A")).toBe("Plan:\n\n| Step | Owner |\n| --- | --- |");
    const done = "Plan:\n\n| Step | Owner |\n| --- | --- |\n| Draft | Ana |\n\nNext";
    expect(stableMarkdown(done)).toBe(done);
  });

  it("holds a task box or a list marker that is still being written", () => {
    expect(stableMarkdown("Todo:\n- [")).toBe("Todo:");
    expect(stableMarkdown("Todo:\n- [x")).toBe("Todo:");
    expect(stableMarkdown("Todo:\n- ")).toBe("Todo:");
    expect(stableMarkdown("Todo:\n- [x] Write")).toBe("Todo:\n- [x] Write");
  });

  it("leaves an open code fence alone: it renders as a code block in progress", () => {
    expect(stableMarkdown("Code:\n```ts\nconst a = 1;\n| not a table")).toBe("Code:\n```ts\nconst a = 1;\n| not a table");
    expect(stableMarkdown("Code:\n```ts\nx\n```\n``")).toBe("Code:\n```ts\nx\n```");
  });
});
