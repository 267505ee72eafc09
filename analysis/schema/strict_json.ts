/**
 * Decoding and parsing one JSON object from bytes, refusing what
 * `JSON.parse` and `TextDecoder` would let through silently or word
 * badly: a byte-order mark (a UTF-8 one is stripped by `TextDecoder`
 * without a word; a UTF-16 one means the file is not UTF-8 at all), bytes
 * that are not UTF-8, a repeated key (`JSON.parse` keeps the last), a
 * number too large for a double (`1e999` reads as `Infinity`), and a value
 * nested deeper than `MAX_JSON_DEPTH` (256 levels; `JSON.parse` reads
 * 100,000 levels, then every recursive walk overflows the stack). One opt-in
 * ({@link JsonParseOptions.nonFinite}) accepts the bare `NaN`, `Infinity`
 * and `-Infinity` that Python's `json` writes (Inspect AI logs hold them).
 *
 * @module
 */
import { findJsonFault, MAX_JSON_DEPTH } from "./json_scan.ts";

/** Why a text is not one acceptable JSON object. */
export interface JsonObjectProblem {
  /** `malformed_json` also for a value nested deeper than `MAX_JSON_DEPTH` (json_scan.ts). */
  code: "bad_encoding" | "malformed_json" | "duplicate_key" | "number_out_of_range";
  /** 1-based line within the text (1 for a one-line text); 0 when no line can be named. */
  line: number;
  /** Dotted path of the member at fault, `""` for the whole text. */
  field: string;
  message: string;
}

/** How strictly {@link parseJsonObject} reads; every check not named here stays. */
export interface JsonParseOptions {
  /**
   * Accept the bare values `NaN`, `Infinity` and `-Infinity` outside
   * strings (Python's `json.dumps` writes them unless `allow_nan=False`);
   * they read as the numbers. A number literal beyond the double range
   * (`1e999`) is still refused. Default false.
   */
  nonFinite?: boolean;
}

/** A parsed object, or why there is none. */
export type JsonObjectResult =
  | { ok: true; value: Record<string, unknown>; text: string }
  | { ok: false; problem: JsonObjectProblem };

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Deno's fatal decoder is several times slower; this one runs first (see {@link decodeUtf8}). */
const quickDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

function fail(
  code: JsonObjectProblem["code"],
  message: string,
  line = 1,
  field = "",
): JsonObjectResult {
  return { ok: false, problem: { code, line, field, message } };
}

/** The byte-order-mark problem of `bytes`, or null when they start without one. */
function encodingProblem(bytes: Uint8Array): (StrictTextResult & { ok: false }) | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return encodingFault("starts with a UTF-8 byte-order mark (U+FEFF); save it without one");
  }
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return encodingFault("is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8");
  }
  return null;
}

/**
 * Decodes UTF-8 strictly: the replacing decoder first, the fatal one only
 * when the text holds U+FFFD (a replaced sequence, or a genuine U+FFFD).
 *
 * @returns the text, or the 0-based offset of the first byte that is not UTF-8
 */
function decodeUtf8(bytes: Uint8Array): string | { badByte: number } {
  const text = quickDecoder.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return fatalDecoder.decode(bytes);
  } catch {
    let low = 0;
    let high = bytes.length;
    // The longest valid prefix: decoding is monotone in the prefix length up to a split sequence.
    while (high - low > 4) {
      const middle = (low + high) >> 1;
      try {
        fatalDecoder.decode(bytes.subarray(0, middle), { stream: true });
        low = middle;
      } catch {
        high = middle;
      }
    }
    while (low < bytes.length) {
      try {
        fatalDecoder.decode(bytes.subarray(0, low + 1), { stream: true });
        low++;
      } catch {
        break;
      }
    }
    fatalDecoder.decode();
    return { badByte: sequenceStart(bytes, low) };
  }
}

/** The number of bytes of the UTF-8 sequence a lead byte opens (1 for ASCII or a stray byte). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return lead >= 0xc0 ? 2 : 1;
}

/**
 * Where the sequence holding the first undecodable byte `at` starts: a lead
 * byte up to 3 bytes before it whose sequence `at` cuts short, else `at`.
 */
function sequenceStart(bytes: Uint8Array, at: number): number {
  for (let start = at - 1; start >= 0 && start >= at - 3; start--) {
    if (bytes[start] >= 0xc0) return start + sequenceLength(bytes[start]) > at ? start : at;
    if ((bytes[start] & 0xc0) !== 0x80) break;
  }
  return at;
}

/** The line of a 0-based byte offset. */
function lineOfByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 10) line++;
  return line;
}

/** What {@link countKeys} returns for a number that is not finite. */
const NON_FINITE = -1;
/** What {@link countKeys} returns for an object or array deeper than `MAX_JSON_DEPTH`. */
const TOO_DEEP = -2;

/**
 * The number of member names in `value` (every nested object's keys), or
 * {@link NON_FINITE} when it holds a number that is not finite, or
 * {@link TOO_DEEP} when an object or array inside it sits deeper than
 * `MAX_JSON_DEPTH` (`value` itself at `depth`), whichever comes first.
 * Allocates nothing: it runs on every ledger line; its recursion is
 * bounded by the depth limit.
 */
function countKeys(value: object, depth: number): number {
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (typeof item === "object" && item !== null) {
        if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
        const inner = countKeys(item, depth + 1);
        if (inner < 0) return inner;
        count += inner;
      } else if (typeof item === "number" && item - item !== 0) return NON_FINITE;
    }
    return count;
  }
  for (const key in value) {
    count++;
    const member = (value as Record<string, unknown>)[key];
    if (typeof member === "object" && member !== null) {
      if (depth >= MAX_JSON_DEPTH) return TOO_DEEP;
      const inner = countKeys(member, depth + 1);
      if (inner < 0) return inner;
      count += inner;
    } else if (typeof member === "number" && member - member !== 0) return NON_FINITE;
  }
  return count;
}

/** The dotted path of the first number in `value` that is not finite, or null. */
function nonFinitePath(value: unknown, path: string[] = []): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : path.join(".");
  if (typeof value !== "object" || value === null) return null;
  for (const [key, member] of Object.entries(value)) {
    const found = nonFinitePath(member, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The number of member names written in `text`: each ends with an unescaped
 * `"`, optional whitespace and `:` (inside a string a `"` is always escaped,
 * and a string value is never followed by `:`). Found by `indexOf`, without
 * allocating: it runs on every ledger line.
 */
function countKeyTokens(text: string): number {
  let count = 0;
  for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", colon + 1)) {
    let at = colon - 1;
    let code = text.charCodeAt(at);
    // JSON's whitespace: space, LF, CR, tab (RFC 8259 section 2); before offset 0, NaN
    while (code === 32 || code === 10 || code === 13 || code === 9) code = text.charCodeAt(--at);
    if (code !== QUOTE) continue;
    if (text.charCodeAt(at - 1) !== BACKSLASH) {
      count++;
      continue;
    }
    let slashes = 1;
    for (let i = at - 2; text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) count++;
  }
  return count;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Text decoded strictly, or why the bytes are not such text. */
export type StrictTextResult =
  | { ok: true; text: string }
  | { ok: false; problem: JsonObjectProblem & { code: "bad_encoding" } };

/**
 * Decodes a file's or a line's bytes as the inputs layer reads every text:
 * UTF-8 without a byte-order mark (a UTF-8 one would be stripped without a
 * word, a UTF-16 one means the text is not UTF-8 at all), every byte valid,
 * the first bad byte named with its line. One wording for every reader
 * (JSON objects here, task lists, tables). O(bytes).
 *
 * @param bytes the bytes
 * @returns the text, or a `bad_encoding` problem with its line
 * @example
 * ```ts
 * import { decodeStrictText } from "./strict_json.ts";
 * const bad = decodeStrictText(new Uint8Array([0x61, 0xff]));
 * if (bad.ok || !bad.problem.message.startsWith("not valid UTF-8 at byte 2")) throw new Error();
 * ```
 */
export function decodeStrictText(bytes: Uint8Array): StrictTextResult {
  const encoding = encodingProblem(bytes);
  if (encoding !== null) return encoding;
  const decoded = decodeUtf8(bytes);
  if (typeof decoded === "string") return { ok: true, text: decoded };
  const shownBytes = [...bytes.subarray(decoded.badByte, decoded.badByte + 2)]
    .map((byte) => `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(" ");
  return encodingFault(
    `not valid UTF-8 at byte ${decoded.badByte + 1} (${shownBytes})` +
      (bytes.includes(0) ? " (it holds NUL bytes: UTF-16 or binary?)" : ""),
    lineOfByte(bytes, decoded.badByte),
  );
}

function encodingFault(message: string, line = 1): StrictTextResult & { ok: false } {
  return { ok: false, problem: { code: "bad_encoding", line, field: "", message } };
}

/**
 * Decodes `bytes` (unless `text` is already their decoding) and parses one
 * JSON object, refusing a byte-order mark, bytes that are not UTF-8, a JSON
 * syntax error (with its line and column), a value that is not an object,
 * a repeated key, a number beyond the double range, and an object or array
 * nested deeper than `MAX_JSON_DEPTH` (json_scan.ts: 256 levels; code
 * `malformed_json`, with the line, the column and the member holding it).
 * This is the one JSON reader of the inputs layer: ledgers, errata, plans,
 * price tables, task lists, suites, judge files and imported sources all
 * parse through it, so none of them hands a deeper value to a recursive
 * walk (zod, `canonicalJson`) that would overflow the stack.
 *
 * Rule: RFC 8259 with unique member names, over UTF-8 without a BOM (RFC
 * 8259 section 8.1: "MUST NOT add a byte order mark"), nesting at most
 * `MAX_JSON_DEPTH` levels (section 9 lets a parser limit it). The checks that
 * every text pays for are one walk of the parsed value and one `indexOf`
 * pass over the text; the exact fault is located only when they disagree.
 * With `nonFinite`, a text `JSON.parse` refuses is read a second time with
 * the bare values as sentinel strings (Python's `json` extension; a text
 * without them costs nothing more). Cost: O(text).
 *
 * @param bytes the text's bytes
 * @param subject what the text is, for the message when it holds no object
 * @param text their UTF-8 decoding, when the caller already has it (an ASCII chunk)
 * @param options `nonFinite`: accept bare `NaN`, `Infinity`, `-Infinity` (default: refused)
 * @returns the object and its text, or the first problem (line 1-based within the text)
 * @example
 * ```ts
 * import { parseJsonObject } from "./strict_json.ts";
 * const bytes = new TextEncoder().encode('{"resolved":false,"resolved":true}');
 * const result = parseJsonObject(bytes, "a line");
 * if (result.ok || result.problem.code !== "duplicate_key") throw new Error();
 * ```
 */
export function parseJsonObject(
  bytes: Uint8Array,
  subject: "a line" | "the file",
  text?: string,
  options: JsonParseOptions = {},
): JsonObjectResult {
  if (text === undefined) {
    const decoded = decodeStrictText(bytes);
    if (!decoded.ok) return decoded;
    text = decoded.text;
  }
  const nonFinite = options.nonFinite === true;
  const parsed = parseText(text, nonFinite);
  if ("ok" in parsed) return parsed;
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return fail("malformed_json", `${subject} must hold one JSON object`);
  }
  const keys = countKeys(value, 1);
  if (keys === TOO_DEEP) return tooDeep(findJsonFault(text, { nonFinite }));
  if (keys === NON_FINITE) {
    return fail(
      "number_out_of_range",
      "number out of range: it reads as a non-finite value (beyond ±1.8e308)",
      0,
      nonFinitePath(value) ?? "",
    );
  }
  if (keys !== countKeyTokens(text)) {
    const fault = findJsonFault(text, { nonFinite });
    if (fault?.kind === "duplicate_key") {
      return fail("duplicate_key", fault.message, fault.line, fault.path);
    }
  }
  if (parsed.sentinels) restoreNonFinite(value);
  return { ok: true, value: value as Record<string, unknown>, text };
}

/**
 * `JSON.parse`, and when it fails under `nonFinite`, a second parse with each
 * bare `NaN`/`Infinity`/`-Infinity` replaced by a sentinel string (see
 * {@link withSentinels}); the syntax fault is located only when both fail.
 */
function parseText(
  text: string,
  nonFinite: boolean,
): { value: unknown; sentinels: boolean } | JsonObjectResult {
  try {
    return { value: JSON.parse(text), sentinels: false };
  } catch {
    // Located below, unless the bare non-finite values explain it.
  }
  if (nonFinite) {
    const rewritten = withSentinels(text);
    if (typeof rewritten !== "string") return rewritten;
    if (rewritten !== text) {
      try {
        return { value: JSON.parse(rewritten), sentinels: true };
      } catch {
        // A fault beyond the non-finite values.
      }
    }
  }
  const fault = findJsonFault(text, { nonFinite });
  if (fault?.kind === "too_deep") return tooDeep(fault);
  const nul = text.includes("\0") ? " (the text holds NUL characters: is it UTF-16?)" : "";
  return fault === null ? fail("malformed_json", `not valid JSON${nul}`) : fail(
    "malformed_json",
    `not valid JSON: ${fault.message} at column ${fault.column}${nul}`,
    fault.line,
  );
}

/**
 * The problem of a value nested deeper than `MAX_JSON_DEPTH`: its line, the
 * member holding it (its path cut short) and the column of the bracket
 * that opens the level too many. The scanner finds it wherever the cheap
 * walk did; should it not, the text is still refused, without a place.
 */
function tooDeep(fault: ReturnType<typeof findJsonFault>): JsonObjectResult {
  if (fault === null || fault.kind !== "too_deep") {
    return fail(
      "malformed_json",
      `nested too deeply: more than ${MAX_JSON_DEPTH} levels of objects and arrays`,
      0,
    );
  }
  return fail(
    "malformed_json",
    `${fault.message} (at column ${fault.column})`,
    fault.line,
    fault.path,
  );
}

/** The sentinel strings (as JSON text) that stand for the bare non-finite values. */
const SENTINEL_TEXT: Record<string, string> = {
  "NaN": '"\\u0000NaN"',
  "Infinity": '"\\u0000Infinity"',
  "-Infinity": '"\\u0000-Infinity"',
};
/** The sentinels as parsed strings, and the numbers they stand for. */
const SENTINEL_NUMBER = new Map<string, number>([
  ["\u0000NaN", NaN],
  ["\u0000Infinity", Infinity],
  ["\u0000-Infinity", -Infinity],
]);
const MINUS = 45;

/**
 * `text` with every bare `NaN`, `Infinity` and `-Infinity` outside a string
 * replaced by a sentinel string: U+0000 and the word, which JSON can only
 * write as the escape `\u0000`. A string of the text that parses to a
 * sentinel would be mistaken for a number: refused. Strings are skipped by
 * `indexOf` on quotes; each word position is searched once. Cost: O(text).
 *
 * @returns the rewritten text (unchanged when it holds none of the words),
 *   or the problem of a string that reads as a sentinel
 */
function withSentinels(text: string): string | JsonObjectResult {
  let out = "";
  let last = 0;
  let quote = text.indexOf('"');
  let nan = text.indexOf("NaN");
  let inf = text.indexOf("Infinity");
  let nul = text.indexOf("\\u0000");
  while (nan !== -1 || inf !== -1) {
    const token = nan === -1 ? inf : inf === -1 ? nan : Math.min(nan, inf);
    if (quote !== -1 && quote < token) {
      const close = stringEnd(text, quote);
      if (close === -1) break;
      if (nul !== -1 && nul < close) {
        if (readsAsSentinel(text.slice(quote, close))) {
          return fail(
            "malformed_json",
            "holds a string of U+0000 and a non-finite word, which cannot be told apart from " +
              "the bare value here",
            lineOfOffset(text, quote),
          );
        }
        nul = text.indexOf("\\u0000", close);
      }
      quote = text.indexOf('"', close);
      if (nan !== -1 && nan < close) nan = text.indexOf("NaN", close);
      if (inf !== -1 && inf < close) inf = text.indexOf("Infinity", close);
      continue;
    }
    const word = token === nan ? "NaN" : "Infinity";
    const start = word === "Infinity" && text.charCodeAt(token - 1) === MINUS ? token - 1 : token;
    out += text.slice(last, start) + SENTINEL_TEXT[text.slice(start, token + word.length)];
    last = token + word.length;
    if (nan !== -1 && nan < last) nan = text.indexOf("NaN", last);
    if (inf !== -1 && inf < last) inf = text.indexOf("Infinity", last);
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The offset just after the closing quote of the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let slashes = 0;
    for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i--) slashes++;
    if (slashes % 2 === 0) return at + 1;
  }
  return -1;
}

/** True when the JSON string token `token` parses to one of the sentinels. */
function readsAsSentinel(token: string): boolean {
  try {
    return SENTINEL_NUMBER.has(JSON.parse(token));
  } catch {
    return false;
  }
}

/** The 1-based line of a 0-based offset into a text. */
function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++;
  }
  return line;
}

/** Replaces, in place, every sentinel string in `value` by the number it stands for. */
function restoreNonFinite(value: object): void {
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = record[key];
    if (typeof member === "object" && member !== null) restoreNonFinite(member);
    else if (typeof member === "string" && member.charCodeAt(0) === 0) {
      const number = SENTINEL_NUMBER.get(member);
      if (number !== undefined) record[key] = number;
    }
  }
}
