#!/usr/bin/env node
/**
 * Verifies an audit export's hash chain: `node scripts/verify-audit.mjs <export.jsonl|export.csv>`.
 *
 * Plain Node (no build, no dependencies). For every row it rebuilds the canonical content — the
 * PostgreSQL jsonb text of {id, seq, tenant_id, created_at, actor_id, action, subject_type,
 * subject_id, outcome, details} — recomputes hash = hex(sha256(utf8(prev_hash + canonical))), and
 * checks that each row follows the one before it (same tenant, seq + 1, prev_hash = its hash).
 * Exit 0 when the whole file holds; 1 naming the first bad row; 2 when the file cannot be read.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const GENESIS = "0".repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;
const COLUMNS = [
  "id",
  "seq",
  "tenant_id",
  "created_at",
  "actor_id",
  "action",
  "subject_type",
  "subject_id",
  "outcome",
  "details",
  "prev_hash",
  "hash",
];

class BadRow extends Error {}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

// --- JSON, keeping each number's text exactly as written -------------------------------------

/** Parses JSON text into {t: "obj"|"arr"|"str"|"num"|"lit", ...}; numbers keep their lexeme. */
function parseJson(text) {
  let i = 0;
  const fail = (why) => {
    throw new BadRow(`invalid JSON at character ${i + 1}: ${why}`);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const entries = [];
      ws();
      if (text[i] === "}") {
        i++;
        return { t: "obj", entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        entries.push([key, value()]);
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return { t: "obj", entries };
        } else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const items = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { t: "arr", items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return { t: "arr", items };
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: "str", v: string() };
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) {
      i += number[0].length;
      return { t: "num", raw: number[0] };
    }
    for (const lit of ["true", "false", "null"]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return { t: "lit", raw: lit };
      }
    }
    return fail("unexpected character");
  };
  const string = () => {
    STRING.lastIndex = i;
    const match = STRING.exec(text);
    if (!match) fail("bad string");
    i += match[0].length;
    try {
      return JSON.parse(match[0]); // refuses raw control characters
    } catch {
      return fail("bad string");
    }
  };
  const result = value();
  ws();
  if (i !== text.length) fail("trailing characters");
  return result;
}

// --- PostgreSQL's jsonb text form -------------------------------------------------------------

/** Escapes a string the way PostgreSQL's jsonb output does. */
function pgString(s) {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** jsonb orders an object's keys by UTF-8 byte length, then bytewise; a repeated key keeps its last value. */
function jsonbKeyOrder(a, b) {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length - y.length || Buffer.compare(x, y);
}

function pgText(node) {
  switch (node.t) {
    case "obj": {
      const last = new Map();
      for (const [k, v] of node.entries) last.set(k, v);
      const keys = [...last.keys()].sort(jsonbKeyOrder);
      return `{${keys.map((k) => `${pgString(k)}: ${pgText(last.get(k))}`).join(", ")}}`;
    }
    case "arr":
      return `[${node.items.map(pgText).join(", ")}]`;
    case "str":
      return pgString(node.v);
    default:
      return node.raw;
  }
}

// --- Reading the export -----------------------------------------------------------------------

const str = (v) => ({ t: "str", v });

/** A row from its fields as written: each a parsed node (numbers keep their text). */
function rowFrom(fields) {
  const need = (name, t) => {
    const node = fields[name];
    if (!node || (node.t !== t && !(name === "actor_id" && node.t === "lit" && node.raw === "null")))
      throw new BadRow(`field ${name} is missing or not a ${t === "num" ? "number" : t === "str" ? "string" : "JSON object"}`);
    return node;
  };
  const row = {
    id: need("id", "num"),
    seq: need("seq", "num"),
    tenant_id: need("tenant_id", "str"),
    created_at: need("created_at", "str"),
    actor_id: need("actor_id", "str"),
    action: need("action", "str"),
    subject_type: need("subject_type", "str"),
    subject_id: need("subject_id", "str"),
    outcome: need("outcome", "str"),
    details: need("details", "obj"),
    prev_hash: need("prev_hash", "str").v,
    hash: need("hash", "str").v,
  };
  if (!/^[1-9]\d*$/.test(row.seq.raw)) throw new BadRow("seq is not a positive integer");
  if (!HEX64.test(row.prev_hash)) throw new BadRow("prev_hash is not 64 hex digits");
  if (!HEX64.test(row.hash)) throw new BadRow("hash is not 64 hex digits");
  return row;
}

function jsonlRows(text) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line, index) => ({
    line: index + 1,
    read: () => {
      const node = parseJson(line);
      if (node.t !== "obj") throw new BadRow("the line is not a JSON object");
      return rowFrom(Object.fromEntries(node.entries));
    },
  }));
}

/** RFC 4180 records (quoted fields may hold commas, quotes and line breaks). */
function csvRecords(text) {
  const records = [];
  let fields = [];
  let field = "";
  let line = 1;
  let start = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === "") {
      i++;
      for (;;) {
        if (i >= text.length) throw new BadRow(`line ${start}: unterminated quoted field`);
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (text[i] === "\n") line++;
        field += text[i++];
      }
    } else if (c === ",") {
      fields.push(field);
      field = "";
      i++;
    } else if (c === "\r" || c === "\n") {
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      fields.push(field);
      records.push({ line: start, fields });
      fields = [];
      field = "";
      line++;
      start = line;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== "" || fields.length > 0) {
    fields.push(field);
    records.push({ line: start, fields });
  }
  return records;
}

function csvRows(text) {
  const [header, ...records] = csvRecords(text);
  if (!header || header.fields.join(",") !== COLUMNS.join(",")) throw new BadRow(`line 1: the header is not ${COLUMNS.join(",")}`);
  return records.map(({ line, fields }) => ({
    line,
    read: () => {
      if (fields.length !== COLUMNS.length) throw new BadRow(`expected ${COLUMNS.length} fields, found ${fields.length}`);
      // A field that could start a spreadsheet formula was written with a leading `'`: strip exactly one.
      const byName = Object.fromEntries(COLUMNS.map((name, k) => [name, fields[k].startsWith("'") ? fields[k].slice(1) : fields[k]]));
      const number = (s) => (/^-?\d+$/.test(s) ? { t: "num", raw: s } : str(s));
      return rowFrom({
        ...Object.fromEntries(COLUMNS.map((name) => [name, str(byName[name])])),
        id: number(byName.id),
        seq: number(byName.seq),
        actor_id: byName.actor_id === "" ? { t: "lit", raw: "null" } : str(byName.actor_id),
        details: parseJson(byName.details),
      });
    },
  }));
}

/** The canonical content: the jsonb text of the row's ten hashed fields. */
function canonical(row) {
  const entries = ["id", "seq", "tenant_id", "created_at", "actor_id", "action", "subject_type", "subject_id", "outcome", "details"].map(
    (k) => [k, row[k]],
  );
  return pgText({ t: "obj", entries });
}

function rowHash(prevHash, canonicalText) {
  return createHash("sha256")
    .update(prevHash + canonicalText, "utf8")
    .digest("hex");
}

function main() {
  const file = process.argv[2];
  if (!file || process.argv.length > 3) {
    console.error("usage: node scripts/verify-audit.mjs <export.jsonl|export.csv>");
    return 2;
  }
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    console.error(`cannot read ${file}: ${error.message}`);
    return 2;
  }
  let previous = null;
  let count = 0;
  let first = null;
  try {
    const rows = text.startsWith("id,seq,") ? csvRows(text) : jsonlRows(text);
    for (const entry of rows) {
      let row = null;
      const where = () => `line ${entry.line}${row ? ` (id ${row.id.raw}, seq ${row.seq.raw})` : ""}`;
      try {
        row = entry.read();
        if (row.seq.raw === "1" && row.prev_hash !== GENESIS) throw new BadRow("the first row of a chain must have prev_hash 0…0");
        if (previous) {
          if (row.tenant_id.v !== previous.tenant_id.v) throw new BadRow("a different tenant than the row before");
          if (BigInt(row.seq.raw) !== BigInt(previous.seq.raw) + 1n)
            throw new BadRow(`seq ${row.seq.raw} does not follow seq ${previous.seq.raw}: a row is missing or out of order`);
          if (row.prev_hash !== previous.hash) throw new BadRow("prev_hash is not the hash of the row before");
        }
        const expected = rowHash(row.prev_hash, canonical(row));
        if (expected !== row.hash) throw new BadRow(`hash does not match the row's content (recomputed ${expected})`);
      } catch (error) {
        if (error instanceof BadRow) {
          console.error(`FAIL at ${where()}: ${error.message}`);
          return 1;
        }
        throw error;
      }
      first ??= row;
      previous = row;
      count++;
    }
  } catch (error) {
    if (error instanceof BadRow) {
      console.error(`FAIL: ${error.message}`);
      return 1;
    }
    throw error;
  }
  if (!previous || !first) {
    console.log("OK: the file holds no rows");
    return 0;
  }
  console.log(
    `OK: ${count} rows of tenant ${first.tenant_id.v}, seq ${first.seq.raw}..${previous.seq.raw}; ` +
      `chain enters with prev_hash ${first.prev_hash} and ends with hash ${previous.hash}`,
  );
  return 0;
}

process.exitCode = main();
