/**
 * fast-check arbitraries for fuzzing Harbor's edges: odd strings (NUL, lone surrogates, huge,
 * numeric-looking), odd numbers, arbitrary JSON, and values shaped by a procedure's own input
 * schema — mostly well-formed, sometimes of the wrong type — so a fuzzed call gets past parsing
 * into the procedure often enough to find what lies behind it.
 */
import fc from "fast-check";

/** The seed of this run: FUZZ_SEED reproduces a failure; otherwise one per CI run, printed. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? process.env.GITHUB_RUN_ID ?? Math.floor(Math.random() * 2 ** 31)) | 0;

export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** Long runs of one character (the huge strings) abbreviated, so a report stays readable. */
function abbreviate(text: string): string {
  return text.replace(/(.)\1{99,}/gu, (run: string, c: string) => `${c}…(${run.length}×)`);
}

/** Runs a property with this run's seed; a failure names the seed that reproduces it. */
export async function checkProperty<T>(name: string, property: fc.IAsyncProperty<T>, numRuns = FUZZ_RUNS): Promise<void> {
  const details = await fc.check(property, { seed: FUZZ_SEED, numRuns, endOnFailure: false, maxSkipsPerRun: 100 });
  if (details.failed) {
    const cause = details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
    const why = `${cause.message}${cause.cause ? ` (${String(cause.cause)})` : ""}`;
    const report = abbreviate(`${fc.defaultReportMessage(details) ?? ""}\n${why}`);
    throw new Error(`${name} failed — reproduce with FUZZ_SEED=${FUZZ_SEED}\n${report}`);
  }
}

const SPECIAL_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\udc00\ud800",
  "\ud83d\ude00",
  "\u2028\u2029",
  "\r\n\r\n",
  "data: {}\n\n",
  "null",
  "true",
  "0",
  "-1",
  "1.5",
  "1e20",
  "2147483648",
  "9007199254740993",
  "NaN",
  "Infinity",
  "__proto__",
  "constructor",
  "toString",
  "../../etc/passwd",
  "' or 1=1 --",
  "<script>alert(1)</script>",
  "%00",
  "\\",
  '"',
  "concierge",
  "hello",
];

/** Strings a client may send: anything, the special ones above, `known` ids, and rarely huge ones. */
export function oddString(known: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 16, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom("a", "\u0000", "\ud800", "\udc00", "é", "\ud83d\ude00"), maxLength: 12 }) },
    { weight: 12, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
    { weight: known.length > 0 ? 12 : 0, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant("") },
    { weight: 3, arbitrary: fc.integer({ min: 100, max: 40_000 }).map((n) => "x".repeat(n)) },
    // Past the 1 MiB body limit (and any URL's): rare, or few calls would get further than 413/431.
    { weight: 1, arbitrary: fc.integer({ min: 500_000, max: 1_200_000 }).map((n) => "y".repeat(n)) },
  );
}

export const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 0.5, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e308, -1e308),
);

/** Arrays nested `depth` levels deep (the limit is 64). */
export const deepNesting: fc.Arbitrary<unknown> = fc.integer({ min: 55, max: 80 }).map((depth) => {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { deeper: value };
  return value;
});

/** Any JSON value, with odd strings and numbers, a few levels deep. */
export function anyJson(known: readonly string[] = []): fc.Arbitrary<unknown> {
  const text = oddString(known);
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", maxDepth: 4 },
      text,
      oddNumber,
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(text, tie("value"), { maxKeys: 4 }),
    ),
  })).value;
}

/**
 * Values that exist on the server under test, by the field names that quote them (`runId`,
 * `threadId`, `interactionId`, `provider`…); `all` is every one of them.
 */
let knownByField: Record<string, readonly string[]> = {};

export function setKnownValues(values: Record<string, readonly string[]>): string[] {
  knownByField = values;
  return [...new Set(Object.values(values).flat())];
}

function knownFor(key: string): readonly string[] {
  return knownByField[key] ?? (/id$/i.test(key) ? Object.values(knownByField).flat() : []);
}

/** The part of JSON Schema that `z.toJSONSchema` writes for Harbor's inputs. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/**
 * Values for `schema`: mostly of its shape (known ids in id fields, bounds crossed by one, odd text,
 * keys left out, an extra key now and then), sometimes anything at all.
 */
export function fromSchema(schema: JsonSchema | undefined, known: readonly string[] = [], key = ""): fc.Arbitrary<unknown> {
  const wild = anyJson(known);
  if (!schema) return wild;
  const shaped = shapedBy(schema, known, key);
  return fc.oneof({ weight: 12, arbitrary: shaped }, { weight: 1, arbitrary: wild });
}

function shapedBy(schema: JsonSchema, known: readonly string[], key: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined)
    return fc.oneof({ weight: 5, arbitrary: fc.constant(schema.const) }, { weight: 1, arbitrary: oddString(known) });
  if (schema.enum) return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: oddString(known) });
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, known)));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return anyJson(known);
  return fc.oneof(...types.map((type) => byType(type, schema, known, key)));
}

function byType(type: string, schema: JsonSchema, known: readonly string[], key: string): fc.Arbitrary<unknown> {
  switch (type) {
    case "object": {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.oneof(fc.constant({}), fc.dictionary(oddString(known), anyJson(known), { maxKeys: 2 }));
      // Required keys are present more often than not; optional ones half the time.
      const required = new Set(schema.required ?? []);
      const record = fc
        .tuple(
          ...properties.map(([key, s]) =>
            fc.tuple(fc.constant(key), fromSchema(s, known, key), fc.integer({ min: 0, max: required.has(key) ? 9 : 1 })),
          ),
        )
        .map((entries) => Object.fromEntries(entries.filter(([, , keep]) => keep > 0).map(([key, value]) => [key, value])));
      return fc
        .tuple(
          record,
          fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(oddString(), anyJson(known)) }),
        )
        .map(([value, extra]) => (extra ? { ...value, [extra[0]]: extra[1] } : value));
    }
    case "string": {
      const bounded = fc.string({ minLength: Math.max(0, schema.minLength ?? 0), maxLength: Math.min(schema.maxLength ?? 60, 4_000) + 1 });
      // An id field mostly names something that exists, so the call gets past "not found".
      const named = knownFor(key);
      return fc.oneof(
        { weight: named.length > 0 ? 6 : 0, arbitrary: named.length > 0 ? fc.constantFrom(...named) : fc.constant("") },
        { weight: 2, arbitrary: bounded },
        { weight: 2, arbitrary: oddString(known) },
      );
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? -(2 ** 31);
      const max = schema.maximum ?? 2 ** 31;
      const inRange = fc.integer({ min: Math.max(min - 1, Number.MIN_SAFE_INTEGER), max: Math.min(max + 1, Number.MAX_SAFE_INTEGER) });
      return fc.oneof(inRange, oddNumber);
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fromSchema(schema.items, known), { maxLength: 4 });
    default:
      return anyJson(known);
  }
}
