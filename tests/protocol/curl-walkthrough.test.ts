/**
 * docs/protocol.md is runnable: its shell blocks, exactly as written, run in order against a real
 * server, and say what the guide says they say.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";

const server = inject("servers")[0]!;

function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("the curl walkthrough in docs/protocol.md", () => {
  it("signs in, starts a run, watches, pauses, resumes, approves a gate, cancels and answers a remote agent — with curl alone", () => {
    const blocks = shellBlocks(fs.readFileSync("docs/protocol.md", "utf8"));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "harbor-curl-"));
    try {
      const result = spawnSync("bash", ["-euo", "pipefail", "-c", blocks.join("\n")], {
        cwd,
        env: { ...process.env, B: server.url },
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const lines = result.stdout.split("\n");
      for (const expected of [
        "alice@acme.test",
        "true",
        "Alice's stream ended with the operator_pause interrupt",
        "FORBIDDEN",
        "the run went on and finished",
        "approved: the email was sent",
        "email",
        "cancelled, and the stream finished",
        "cancelled",
        "the travel agent asks: Which city?",
        "the travel agent booked the trip",
        "list_events: none, cancel_event: approvers, book_room: owner, share_calendar: owner",
        "owner",
        "FORBIDDEN",
      ]) {
        expect(lines, result.stdout).toContain(expected);
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 150_000);
});
