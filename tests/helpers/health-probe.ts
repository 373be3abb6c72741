/**
 * Health checks timed from a process of their own, as a balancer would: a client sharing the test's
 * event loop with hundreds of streams would time its own queue, not the server's answer.
 */
import { spawn } from "node:child_process";

export interface HealthProbe {
  /** Stops probing; every answer's path, status and time in ms (a failure has status 0). */
  stop(): Promise<{ path: string; status: number; ms: number }[]>;
}

const PROBE = `
const [base, every, timeout, ...paths] = process.argv.slice(1);
let stopping = false;
process.stdin.on("data", () => (stopping = true));
process.stdin.on("end", () => (stopping = true));
const loop = async (path) => {
  while (!stopping) {
    const t = performance.now();
    let status = 0;
    try {
      const res = await fetch(base + path, { signal: AbortSignal.timeout(Number(timeout)) });
      await res.arrayBuffer();
      status = res.status;
    } catch {}
    process.stdout.write(JSON.stringify({ path, status, ms: Math.round(performance.now() - t) }) + "\\n");
    await new Promise((r) => setTimeout(r, Number(every)));
  }
};
// One untimed check first: a balancer's probe is a warm process, not one loading its HTTP client.
fetch(base + paths[0]).then((res) => res.arrayBuffer()).finally(() => {
  process.stdout.write("ready\\n");
  Promise.all(paths.map(loop)).then(() => process.exit(0));
});
`;

/**
 * Probes each path of `baseUrl` every `everyMs` until stopped (each check times out after
 * `timeoutMs`); resolves once the probe is warm and checking.
 */
export async function probeHealth(
  baseUrl: string,
  paths: readonly string[],
  { everyMs = 50, timeoutMs = 15_000 } = {},
): Promise<HealthProbe> {
  const child = spawn(process.execPath, ["-e", PROBE, baseUrl, String(everyMs), String(timeoutMs), ...paths], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  let warm: () => void = () => {};
  const warmed = new Promise<void>((resolve) => (warm = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (output.startsWith("ready\n")) warm();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await Promise.race([warmed, exited]);
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { path: string; status: number; ms: number });
    },
  };
}
