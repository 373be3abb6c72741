/**
 * Text PostgreSQL can store: no NUL characters (text and jsonb refuse them) and no unpaired UTF-16
 * surrogates (jsonb refuses them). Edges check input with these, so bad text is a 400 naming the
 * field rather than a database error.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly the character PostgreSQL refuses.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE = "must be text without NUL characters or unpaired surrogates";

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, "g");

/** `text` as the database can store it: NUL characters dropped, unpaired surrogates replaced by U+FFFD. */
export function toStorableText(text: string): string {
  return text.replace(UNSTORABLE_ALL, (found) => (found === "\u0000" ? "" : "\uFFFD"));
}

/** The dotted path of the first unstorable string (or object key) in a JSON value, if any. */
export function findUnstorableText(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === "string") return isStorableText(value) ? undefined : path.join(".") || "body";
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnstorableText(item, [...path, String(index)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) return [...path, "(key)"].join(".");
      const found = findUnstorableText(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}
