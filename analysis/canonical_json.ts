/**
 * Deterministic JSON for every output meant for replay (house style rule 4):
 * object keys sorted, non-integer numbers written with 12 significant digits.
 * Files (summaries, plans, manifests) get two-space indentation and a
 * trailing newline ({@linkcode canonicalJson}); ledger and errata rows get
 * one line without whitespace ({@linkcode canonicalJsonLine}). Same value,
 * same bytes.
 *
 * One writer serves both forms: it walks the value once and writes the text
 * directly, with the bytes `JSON.stringify` gives for a key-sorted copy of
 * the value whose numbers are rounded (the form before issue 23, which built
 * that copy first; `canonical_json_test.ts` keeps it and checks the two
 * agree over generated values). Each object's key order and quoted keys
 * are remembered by its list of keys, so that the rows of a ledger, which
 * share a few such lists, are sorted once (issue 23: 2–3× faster per row
 * than building the copy). The memo changes no output and is bounded.
 *
 * @module
 */

/**
 * Serialises `value` canonically.
 *
 * Rule: keys sorted by UTF-16 code unit, except that keys which are array
 * indices (`"0"`, `"17"`: canonical decimal integers below 2³² − 1) come
 * first, in numeric order (the order JavaScript enumerates an object's
 * keys in, so `JSON.stringify` of a key-sorted copy writes them so);
 * integers as JavaScript writes them (`-0` as `0`, `1e21` as `1e+21`);
 * other finite numbers rounded to 12 significant digits
 * (`Number(x.toPrecision(12))`); non-finite numbers and bigints are refused;
 * strings escaped as `JSON.stringify` escapes them (`\"`, `\\`, `\n`,
 * `\u001f`, a lone surrogate as `\ud800`; everything else, U+2028
 * included, as is); `undefined`, function and symbol members are omitted
 * from objects and written as `null` in arrays; any other object is written
 * by its own enumerable string keys (a `Date` as `{}`: no `toJSON` is
 * called). O(size of the value), plus sorting the keys of each object
 * whose list of keys was not seen before.
 *
 * Source: ECMA-262, `JSON.stringify` (`SerializeJSONProperty`; strings by
 * `QuoteJSONString`, well-formed since ES2019) applied to the key-sorted
 * copy, whose keys come out in `OrdinaryOwnPropertyKeys` order (array
 * indices ascending, then strings in insertion order).
 *
 * @param value a JSON-serialisable value (summary, plan, manifest, figure spec)
 * @returns the text, two-space indented, with a trailing newline
 * @throws {TypeError} on NaN, infinite numbers or bigints, naming the first
 *   one's path (`$.a[1]`); on `undefined`, a function or a symbol as `value`
 *   itself
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * const text = canonicalJson({ b: 1 / 3, a: [2, null] });
 * if (text !== '{\n  "a": [\n    2,\n    null\n  ],\n  "b": 0.333333333333\n}\n') throw new Error(text);
 * ```
 */
export function canonicalJson(value: unknown): string {
  return written(value, "") + "\n";
}

/**
 * Serialises `value` canonically on one line: the rule of
 * {@linkcode canonicalJson} (keys sorted, integers as JavaScript writes them,
 * other numbers rounded to 12 significant digits, `undefined` members
 * omitted) without any whitespace or newline. This is the form of every
 * ledger row the runner appends (the next row's `prev_sha256` hashes these
 * bytes) and of every erratum. O(size of the value).
 *
 * @param value a JSON-serialisable record
 * @returns the line, with no `\n` inside
 * @throws {TypeError} on NaN, infinite numbers or bigints (as {@linkcode canonicalJson})
 * @example
 * ```ts
 * import { canonicalJsonLine } from "./canonical_json.ts";
 * if (canonicalJsonLine({ b: 1, a: { d: [1 / 3], c: "x" } }) !== '{"a":{"c":"x","d":[0.333333333333]},"b":1}') {
 *   throw new Error("not canonical");
 * }
 * ```
 */
export function canonicalJsonLine(value: unknown): string {
  return written(value, null);
}

/** Thrown by the writer at a value it cannot write; {@link written} words it with its path. */
const UNWRITABLE = Symbol("unwritable");

/** The whole value's text (`indent` "" for the indented form, null for one line), or a TypeError. */
function written(value: unknown, indent: string | null): string {
  let text: string | undefined;
  try {
    text = write(value, indent);
  } catch (error) {
    if (error !== UNWRITABLE) throw error;
    const [path, what] = firstUnwritable(value, "$")!;
    throw new TypeError(`Cannot write JSON: "${path}" is ${what}`);
  }
  if (text === undefined) throw new TypeError(`Cannot write JSON: "$" is ${typeof value}`);
  return text;
}

/**
 * The text of one value, or undefined for one an object omits (undefined,
 * a function, a symbol). `indent` is the indentation of the value's line in
 * the indented form, null on one line.
 */
function write(value: unknown, indent: string | null): string | undefined {
  switch (typeof value) {
    case "string":
      return quote(value);
    case "number":
      if (Number.isInteger(value)) return String(value);
      if (!Number.isFinite(value)) throw UNWRITABLE;
      return String(Number(value.toPrecision(12)));
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return Array.isArray(value) ? writeArray(value, indent) : writeObject(value, indent);
    case "bigint":
      throw UNWRITABLE;
    default:
      return undefined;
  }
}

/** An array's text: every item, `null` for those an object would omit. */
function writeArray(items: readonly unknown[], indent: string | null): string {
  if (items.length === 0) return "[]";
  const inner = indent === null ? null : `${indent}  `;
  const separator = inner === null ? "," : `,\n${inner}`;
  let text = inner === null ? "[" : `[\n${inner}`;
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += separator;
    text += write(items[i], inner) ?? "null";
  }
  return inner === null ? `${text}]` : `${text}\n${indent}]`;
}

/** An object's text: its members in key order, those with nothing to write omitted. */
function writeObject(object: object, indent: string | null): string {
  const { keys, members } = shapeOf(object);
  const inner = indent === null ? null : `${indent}  `;
  const separator = inner === null ? "," : `,\n${inner}`;
  let text = "";
  for (let i = 0; i < keys.length; i++) {
    const member = write((object as Record<string, unknown>)[keys[i]], inner);
    if (member === undefined) continue;
    if (text !== "") text += separator;
    text += inner === null ? members[i] + member : `${members[i]} ${member}`;
  }
  if (text === "") return "{}";
  return inner === null ? `{${text}}` : `{\n${inner}${text}\n${indent}}`;
}

/**
 * An object's keys in the written order, and each key as it opens its
 * member (`"key":`).
 */
interface Shape {
  /** `Object.keys` of the objects of this shape, the cache's key. */
  own: readonly string[];
  keys: readonly string[];
  members: readonly string[];
}

/**
 * Shapes seen before, by their first key: ledger rows share a handful, and
 * sorting and quoting their keys anew was most of a row's cost. A memo
 * only (a shape is a function of its keys); bounded, see {@link shapeOf}.
 */
const SHAPES = new Map<string, Shape[]>();
/** Shapes are remembered for objects of at most this many keys, up to this many per first key and in all. */
const SHAPE_KEYS = 64;
const SHAPES_PER_KEY = 8;
const SHAPES_AT_MOST = 1024;
let shapesKept = 0;

/** The shape of an object's own enumerable string keys, from {@link SHAPES} when seen before. */
function shapeOf(object: object): Shape {
  const own = Object.keys(object);
  const first = own.length === 0 ? "" : own[0];
  const bucket = SHAPES.get(first);
  if (bucket !== undefined) {
    search: for (const shape of bucket) {
      if (shape.own.length !== own.length) continue;
      for (let i = 1; i < own.length; i++) if (shape.own[i] !== own[i]) continue search;
      return shape;
    }
  }
  const keys = sortedKeys(own);
  const shape = { own, keys, members: keys.map((key) => `${quote(key)}:`) };
  if (own.length <= SHAPE_KEYS && shapesKept < SHAPES_AT_MOST) {
    if (bucket === undefined) SHAPES.set(first, [shape]);
    else if (bucket.length < SHAPES_PER_KEY) bucket.push(shape);
    else return shape;
    shapesKept++;
  }
  return shape;
}

/**
 * Keys in the written order: array indices first in numeric order, then
 * the others by UTF-16 code unit.
 */
function sortedKeys(own: readonly string[]): string[] {
  let indices = 0;
  for (let i = 0; i < own.length; i++) if (isArrayIndex(own[i])) indices++;
  if (indices === 0) return own.slice().sort();
  const numeric = own.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return numeric.concat(own.filter((key) => !isArrayIndex(key)).sort());
}

const ZERO = 48;
const NINE = 57;

/** Whether a key is an array index: a canonical decimal integer in [0, 2³² − 2]. */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < ZERO || first > NINE || key.length > 10) return false;
  const value = Number(key);
  return value >>> 0 === value && value !== 4294967295 && String(value) === key;
}

/** The code units a JSON string cannot hold as they are: controls, `"`, `\`, surrogates. */
// deno-lint-ignore no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string as JSON writes it; strings without anything to escape skip `JSON.stringify`. */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * Where the first number the writer refuses is (a non-finite number or a
 * bigint), in the order of the rule before issue 23 (keys sorted by code
 * unit, `undefined` members skipped), and what it is; null when there is
 * none. Walked only once a write has failed.
 */
function firstUnwritable(value: unknown, path: string): [string, string] | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : [path, String(value)];
  if (typeof value === "bigint") return [path, `the bigint ${value}`];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnwritable(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (value === null || typeof value !== "object") return null;
  for (const key of Object.keys(value).sort()) {
    const found = firstUnwritable((value as Record<string, unknown>)[key], `${path}.${key}`);
    if (found !== null) return found;
  }
  return null;
}
