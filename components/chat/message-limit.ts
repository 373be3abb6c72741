/** From this share of the limit on, the counter shows. */
const NEAR_LIMIT = 0.9;

const count = (n: number) => n.toLocaleString("en-US");

/**
 * Where a message being written stands against the server's limit (HARBOR_MAX_MESSAGE_CHARS), the
 * same in the composer and in a message being edited. Nothing is ever cut: a message past the limit
 * stays whole in its box, and these sentences say why it waits.
 */
export function messageLimit(text: string, maxChars: number) {
  const length = text.trim().length;
  const over = length - maxChars;
  return {
    /** Characters that count (the message is sent trimmed). */
    length,
    /** How many characters past the limit (≤ 0: within it). */
    over,
    /** Whether the counter shows. */
    near: text.length >= maxChars * NEAR_LIMIT,
    /** What is said past the limit, or null. */
    tooLong: over > 0 ? `${count(over)} ${over === 1 ? "character" : "characters"} too long to send — shorten it first.` : null,
    counter: `${count(text.length)} / ${count(maxChars)}`,
  };
}
