/**
 * Starts the built app with `next start` on a free 127.0.0.1 port, as its own process so the PID
 * we hold is the server's, and stops it by that PID.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface RunningServer {
  url: string;
  dataDir: string;
  logFile: string;
  pid: number;
  stop(): Promise<void>;
  /** Kills the process without letting it clean up (a crash). */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The URL of a loopback port that was just listening and no longer is: nothing answers there. */
export async function closedPortUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

/** `cwd`: the build to start (another release's, for the upgrade tests); this checkout's by default. */
export async function startServer(
  env: Record<string, string> = {},
  label = "server",
  nodeArgs: string[] = [],
  cwd = path.resolve(__dirname, "../.."),
): Promise<RunningServer> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `harbor-${label}-`));
  const logFile = path.join(dataDir, "server.log");
  const out = fs.openSync(logFile, "a");
  const child = spawn(process.execPath, [...nodeArgs, "node_modules/next/dist/bin/next", "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      // Harbor handles SIGTERM itself (it releases what it holds before it exits).
      NEXT_MANUAL_SIG_HANDLE: "1",
      HARBOR_DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", out, out],
  });
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited(child);
    clearTimeout(timer);
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${label} exited with ${child.exitCode}:\n${fs.readFileSync(logFile, "utf8").slice(-3000)}`);
    }
    try {
      const res = await fetch(`${url}/api/health`);
      if (res.ok) break;
    } catch {
      // Not listening yet: keep polling until the deadline.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${label} did not become healthy:\n${fs.readFileSync(logFile, "utf8").slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited(child);
  };
  return { url, dataDir, logFile, pid: child.pid ?? -1, stop, kill };
}
