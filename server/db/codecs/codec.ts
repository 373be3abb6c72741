/**
 * Stored shapes are versioned. A run can wait for days: the release that reads its checkpoint, its
 * events or its pause's detail may be newer than the one that wrote them. Each shape has one codec:
 * a zod schema of its current version, the version number written with every value, and an
 * upcaster from each earlier version to the next. Every read goes through the codec; a value it
 * cannot read fails loudly (STATE_UNREADABLE, naming the shape and the field), never silently.
 *
 * Where the version lives: in the value (`versionKey`) for objects with fixed fields; in a column
 * beside it for free-form records (a tool's arguments, a grant's bounds), whose keys are not ours.
 * A value written before versioning has no version: it is version 1.
 */
import type { z } from "zod";
import { HarborError } from "@/server/domain";

/** A stored value this release cannot read: written by a newer release, or damaged. */
export class StateUnreadableError extends HarborError {
  constructor(shape: string, field: string, why: string) {
    super("STATE_UNREADABLE", `A stored ${shape} cannot be read by this release of Harbor (${field || "the value"}: ${why}).`, {
      shape,
      field,
    });
  }
}

type Plain = Record<string, unknown>;

/** Turns a value of version n into one of version n + 1. */
export type Upcaster = (value: Plain) => Plain;

export interface Codec<T> {
  readonly shape: string;
  /** The version this release writes. */
  readonly version: number;
  /** The value as stored: with its version when the version lives in the value. */
  encode(value: T): Plain;
  /** A stored value of any version up to this release's, as this release's shape; `version` when it lives in a column. */
  decode(stored: unknown, version?: number | null): T;
}

export interface CodecOptions<T> {
  shape: string;
  version: number;
  /** The current version's shape (its output is what every read answers). */
  schema: z.ZodType<T>;
  /** `upcasters[n]` reads version n as version n + 1; one for every version before `version`. */
  upcasters: Record<number, Upcaster>;
  /** The key the version is written under in the value; absent: a column holds it. */
  versionKey?: string;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const isPlain = (value: unknown): value is Plain => typeof value === "object" && value !== null && !Array.isArray(value);

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}

export function storedCodec<T extends object>(options: CodecOptions<T>): Codec<T> {
  const { shape, version: current, schema, upcasters, versionKey } = options;
  for (let n = 1; n < current; n++) {
    if (!upcasters[n]) throw new Error(`codec ${shape}: no upcaster from version ${n}`);
  }
  const unreadable = (field: string, why: string) => new StateUnreadableError(shape, field, why);

  return {
    shape,
    version: current,
    encode: (value) => (versionKey ? { ...(value as Plain), [versionKey]: current } : (value as Plain)),
    decode(stored, columnVersion) {
      const raw = typeof stored === "string" ? parseJson(stored) : stored;
      if (!isPlain(raw)) throw unreadable("", "not an object");
      let value: Plain = raw;
      let version: unknown = columnVersion ?? 1;
      if (versionKey) {
        ({ [versionKey]: version = 1, ...value } = raw);
      }
      if (typeof version !== "number" || !Number.isInteger(version) || version < 1)
        throw unreadable(versionKey ?? "version", "not a version");
      if (version > current)
        throw unreadable(versionKey ?? "version", `written by a newer release (version ${version}; this one reads up to ${current})`);
      for (let n = version; n < current; n++) value = upcasters[n]!(value);
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        throw unreadable(issue ? pathOf(issue) : "", issue?.message ?? "does not match");
      }
      return parsed.data;
    },
  };
}
