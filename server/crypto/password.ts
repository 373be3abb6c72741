/**
 * Password hashing with scrypt (memory-hard, maintained in Node's own crypto).
 * Stored form: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>` so parameters can be raised later.
 *
 * Every scrypt call goes through one bounded gate: a few run at once (each holds a thread of libuv's
 * small pool and 16 MiB), a bounded number wait, and beyond that a call is refused at once with
 * `PasswordHashingBusy` — so a burst of sign-in attempts cannot starve the pool (and with it file
 * and DNS work) for everyone else, nor queue without bound.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";
import pLimit from "p-limit";

const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/**
 * scrypt calls in flight at once: at most 4 (libuv's pool has 4 threads by default), and at least
 * one core left to the event loop — each call keeps a core busy for tens of milliseconds.
 */
export const HASHING_CONCURRENCY = Math.min(4, Math.max(1, availableParallelism() - 1));
/** scrypt calls waiting for a slot; one more is refused. */
export const HASHING_QUEUE = 64;

/**
 * Too many passwords are being checked right now: try again in a moment. Recognised by its code
 * (`PasswordHashingBusy.is`), never by `instanceof`: Next.js bundles this module once per route
 * layer, while the gate is one per process, so the class that throws is often another copy.
 */
export class PasswordHashingBusy extends Error {
  static readonly CODE = "PASSWORD_HASHING_BUSY";
  readonly code = PasswordHashingBusy.CODE;

  static is(value: unknown): value is PasswordHashingBusy {
    return value instanceof Error && (value as { code?: unknown }).code === PasswordHashingBusy.CODE;
  }

  constructor() {
    super("Too many password checks at once.");
    this.name = "PasswordHashingBusy";
  }
}

/** Runs `work` through a gate of `concurrency` slots and `queue` waiting places; refuses beyond. */
export function boundedGate(concurrency: number, queue: number) {
  const limit = pLimit(concurrency);
  return {
    run<T>(work: () => Promise<T>): Promise<T> {
      if (limit.activeCount + limit.pendingCount >= concurrency + queue) return Promise.reject(new PasswordHashingBusy());
      return limit(work);
    },
    get active() {
      return limit.activeCount;
    },
    get waiting() {
      return limit.pendingCount;
    },
  };
}

// One gate per process, even when Next.js loads this module once per route bundle.
const GATE = Symbol.for("harbor.passwordHashing");
const hashing = ((globalThis as { [GATE]?: ReturnType<typeof boundedGate> })[GATE] ??= boundedGate(HASHING_CONCURRENCY, HASHING_QUEUE));

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scryptCb(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [algorithm, n, r, p, salt, hash] = stored.split("$");
  if (algorithm !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected);
}
