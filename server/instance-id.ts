/**
 * This process's instance id: one per process (kept on `globalThis`, since Next.js may load this
 * module once per route bundle). It names the process to the other instances, on its heartbeat
 * row, on the runs and waits it holds, and on its PostgreSQL connections (`harbor:<id>`).
 */
import { randomUUID } from "node:crypto";

const KEY = Symbol.for("harbor.instanceId");
type Holder = { [KEY]?: string };

export function instanceId(): string {
  const holder = globalThis as Holder;
  holder[KEY] ??= randomUUID();
  return holder[KEY];
}
