/**
 * What of a reply still arriving can be shown as Markdown without flicker. Each token re-renders
 * the whole text, so a construct whose start has come but whose shape is decided only by a later
 * line would show as raw syntax for a moment: a table's header row before its `| --- |` row, a
 * half-typed task box (`- [`). Those lines wait until they are decided. An open code fence needs
 * nothing: CommonMark runs it to the end of the text, so it is already a code block in progress.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const TABLE_ROW = /^\s*\|/;
const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
/** A list item whose line so far could still become a task (`- [`, `- [x`, `1. [ ]`) or is only its marker. */
const UNDECIDED_ITEM = /^\s*([-*+]|\d{1,9}[.)])(\s+\[[ xX]?\]?)?\s*$/;
/** A line that is only the start of a fence's backticks or a heading's hashes. */
const UNDECIDED_START = /^\s*(`{1,2}|~{1,2}|#{1,6})$/;

export function stableMarkdown(text: string): string {
  const lines = text.split("\n");
  // The last line has not ended yet (no newline after it).
  const open = lines.pop() ?? "";
  if (insideFence(lines)) return text;
  const tail = lines.length - trailingTableRows(lines);
  const table = lines.slice(tail);
  // A table with its delimiter row renders row by row; header rows without one wait for it.
  const decided = table.length >= 2 && DELIMITER_ROW.test(table[1]!);
  const kept = decided ? lines : lines.slice(0, tail);
  if (TABLE_ROW.test(open) || UNDECIDED_ITEM.test(open) || UNDECIDED_START.test(open)) return kept.join("\n");
  if (!decided && table.length > 0) return kept.join("\n");
  return [...kept, open].join("\n");
}

/** Whether the complete lines leave a code fence open. */
function insideFence(lines: readonly string[]): boolean {
  let fence: string | null = null;
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (!marker) continue;
    if (fence === null) fence = marker;
    else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
  }
  return fence !== null;
}

/** How many of the complete lines at the end are table rows (lines starting with `|`). */
function trailingTableRows(lines: readonly string[]): number {
  let count = 0;
  while (count < lines.length && TABLE_ROW.test(lines[lines.length - 1 - count]!)) count += 1;
  return count;
}
