/**
 * Behaviour that lives in SQL has one source each: server/db/functions/<name>.sql is the function
 * as deployed, and the latest migration that defines it holds that text verbatim (a change is a
 * new migration including the new text). What TypeScript relies on in them is pinned here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "@/server/domain";

const FUNCTIONS = path.resolve("server/db/functions");
const MIGRATIONS = path.resolve("server/db/migrations");

const source = (name: string) =>
  fs
    .readFileSync(path.join(FUNCTIONS, `${name}.sql`), "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("--"))
    .join("\n")
    .trim();

/** The statement of the latest migration that defines `name`, from its CREATE on. */
function deployed(name: string): { migration: string; text: string } | undefined {
  let found: { migration: string; text: string } | undefined;
  const definition = new RegExp(`CREATE (?:OR REPLACE )?FUNCTION "?${name}"?\\s*\\(`);
  for (const file of fs
    .readdirSync(MIGRATIONS)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    for (const statement of fs.readFileSync(path.join(MIGRATIONS, file), "utf8").split("--> statement-breakpoint")) {
      const at = statement.search(definition);
      if (at >= 0) found = { migration: file, text: statement.slice(at).trim() };
    }
  }
  return found;
}

const names = fs.readdirSync(FUNCTIONS).map((f) => f.replace(/\.sql$/, ""));

describe("SQL functions", () => {
  it("has a source file for every function a migration defines", () => {
    const defined = new Set<string>();
    for (const file of fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith(".sql"))) {
      for (const match of fs
        .readFileSync(path.join(MIGRATIONS, file), "utf8")
        .matchAll(/CREATE (?:OR REPLACE )?FUNCTION "?([a-z_]+)"?\s*\(/g)) {
        defined.add(match[1]!);
      }
    }
    expect([...defined].sort()).toEqual([...names].sort());
  });

  it.each(names)("deploys %s exactly as its source file says", (name) => {
    expect(deployed(name)?.text).toBe(source(name));
  });

  it("notifies webhooks of exactly the events a webhook can subscribe to", () => {
    const events = new Set(
      source("harbor_webhook_outbox")
        .match(/'pause\.[a-z]+'/g)
        ?.map((e) => e.slice(1, -1)),
    );
    expect([...events].sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it("counts only the run statuses the scheduler treats as busy", () => {
    expect(source("harbor_thread_activity")).toContain(`IN ('queued', 'running', 'paused')`);
  });
});
