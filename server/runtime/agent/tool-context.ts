/**
 * What a tool's context keeps across a pause, and how a tool says it must wait. State is either
 * plain JSON (`ctx.state`: checkpointed with the pause) or a live handle (`ctx.handles`: kept by the
 * serving process, re-attached on resume); neither is dropped silently.
 */
import { HarborError, ToolContextLostError } from "../errors";
import type { ToolPauseRequest } from "./tools";

const PAUSE = Symbol.for("harbor.pause-signal");

const REJECTED = Symbol.for("harbor.credential-rejected");

/** Thrown by `ctx.credentialRejected`: control flow, like a pause. */
export class CredentialRejectedSignal {
  readonly [REJECTED] = true;
  static is(value: unknown): value is CredentialRejectedSignal {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[REJECTED] === true;
  }
}

/** Thrown by `ctx.pause`: control flow, not an error, so it never travels as a HarborError. */
export class PauseSignal {
  readonly [PAUSE] = true;
  constructor(readonly request: ToolPauseRequest) {}
  static is(value: unknown): value is PauseSignal {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PAUSE] === true;
  }
}

interface HandleEntry {
  handle: unknown;
  reattach?: () => unknown | Promise<unknown>;
  alive?: (handle: unknown) => boolean;
  dispose?: (handle: unknown) => void;
}

export interface RegisterOptions<T> {
  /** Re-creates the handle when the one held cannot be used any more. */
  reattach?: () => T | Promise<T>;
  /** Tells whether a held handle still works (a socket that closed during the pause does not). */
  alive?: (handle: T) => boolean;
  /** Lets go of the handle when the call it served will not go on (its pause was cancelled or refused). */
  dispose?: (handle: T) => void;
}

/** A tool call's live handles, held by the serving process while the run is parked. */
export class HandleRegistry {
  private readonly entries = new Map<string, HandleEntry>();

  register<T>(key: string, handle: T, options: RegisterOptions<T> = {}): void {
    this.entries.set(key, {
      handle,
      reattach: options.reattach,
      alive: options.alive as ((handle: unknown) => boolean) | undefined,
      dispose: options.dispose as ((handle: unknown) => void) | undefined,
    });
  }

  /** Lets go of every handle that says how: the call they served ends here. */
  dispose(): void {
    for (const entry of this.entries.values()) entry.dispose?.(entry.handle);
    this.entries.clear();
  }

  /** The handle registered under `key`; a tool asking for one it never registered fails loudly. */
  get<T>(key: string): T {
    const entry = this.entries.get(key);
    if (!entry) throw new ToolContextLostError(key, "no handle is registered under this key");
    return entry.handle as T;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Re-attaches every handle a paused call registered (`keys`, from its checkpoint) before the call
   * runs again: the held handle if it still works, else a fresh one from `reattach`.
   */
  static async reattach(keys: readonly string[], held: HandleRegistry | undefined): Promise<HandleRegistry> {
    const registry = new HandleRegistry();
    for (const key of keys) {
      const entry = held?.entries.get(key);
      if (!entry) throw new ToolContextLostError(key, "the serving process no longer holds it");
      if (!entry.alive || entry.alive(entry.handle)) {
        registry.entries.set(key, entry);
        continue;
      }
      if (!entry.reattach) throw new ToolContextLostError(key, "it stopped working and declares no way to re-attach");
      let fresh: unknown;
      try {
        fresh = await entry.reattach();
      } catch (error) {
        throw new ToolContextLostError(key, `re-attaching failed (${error instanceof Error ? error.message : String(error)})`);
      }
      registry.entries.set(key, { ...entry, handle: fresh });
    }
    return registry;
  }
}

/**
 * Throws ERR_TOOL_STATE_NOT_SERIALIZABLE naming the first value under `root` that is not plain JSON
 * (functions, class instances, Maps, Dates, undefined, non-finite numbers, cycles …).
 */
export function assertPlainJson(value: unknown, root: string): void {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string): void => {
    if (v === null || typeof v === "string" || typeof v === "boolean") return;
    if (typeof v === "number") {
      if (Number.isFinite(v)) return;
      throw notSerializable(path, "a non-finite number");
    }
    if (typeof v !== "object") throw notSerializable(path, typeof v === "undefined" ? "undefined" : `a ${typeof v}`);
    if (seen.has(v)) throw notSerializable(path, "a reference cycle");
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach((item, index) => visit(item, `${path}[${index}]`));
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        throw notSerializable(path, `an instance of ${(v.constructor as { name?: string } | undefined)?.name ?? "a class"}`);
      }
      for (const [key, item] of Object.entries(v)) visit(item, `${path}.${key}`);
    }
    seen.delete(v);
  };
  visit(value, root);
}

function notSerializable(path: string, what: string): HarborError {
  return new HarborError(
    "ERR_TOOL_STATE_NOT_SERIALIZABLE",
    `${path} is ${what}, which cannot be checkpointed: keep plain JSON in ctx.state and register live objects with ctx.handles.register.`,
    { path },
  );
}
