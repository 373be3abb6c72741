#!/usr/bin/env node
/**
 * `npm run cluster -- 3`: starts three Harbor instances on consecutive ports (from PORT, default
 * 3000) against DATABASE_URL, for local trials of several instances, and stops them all on Ctrl-C.
 * They share AUTH_SECRET (generated for this trial when unset). Build first (`npm run build`).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";

const count = Number(process.argv[2] ?? "3");
if (!Number.isInteger(count) || count < 1 || count > 16) {
  console.error("usage: npm run cluster -- <instances, 1 to 16>");
  process.exit(2);
}
if (!process.env.DATABASE_URL) {
  console.error("Set DATABASE_URL to a PostgreSQL database: several instances share one (the embedded database is one process).");
  process.exit(2);
}
if (!fs.existsSync(".next/BUILD_ID")) {
  console.error("Build first: npm run build");
  process.exit(2);
}
const firstPort = Number(process.env.PORT ?? "3000");
// Harbor handles SIGTERM itself: it releases what it holds before it exits.
const env = { ...process.env, NEXT_MANUAL_SIG_HANDLE: "1", AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url") };
if (!process.env.AUTH_SECRET) console.log("AUTH_SECRET was not set: the instances share a generated one for this trial.");

const children = Array.from({ length: count }, (_, i) => {
  const port = String(firstPort + i);
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-H", env.HOSTNAME ?? "127.0.0.1", "-p", port], {
    env: { ...env, PORT: port },
    stdio: ["ignore", "inherit", "inherit"],
  });
  console.log(`instance ${i + 1}: http://${env.HOSTNAME ?? "127.0.0.1"}:${port} (pid ${child.pid})`);
  child.on("exit", (code, signal) => console.log(`instance ${i + 1} (port ${port}) exited (${signal ?? code})`));
  return child;
});

let stopping = false;
function stopAll() {
  if (stopping) return;
  stopping = true;
  console.log("stopping every instance…");
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  setTimeout(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    process.exit(0);
  }, 10_000).unref();
}
process.on("SIGINT", stopAll);
process.on("SIGTERM", stopAll);
Promise.all(children.map((child) => new Promise((resolve) => child.on("exit", resolve)))).then(() => process.exit(0));
