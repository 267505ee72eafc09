/**
 * Deterministic JSON for every output meant for replay (house style rule 4):
 * object keys sorted, non-integer numbers written with 12 significant digits.
 * Files (summaries, plans, manifests) get two-space indentation and a
 * trailing newline ({@linkcode canonicalJson}); ledger and errata rows get
 * one line without whitespace ({@linkcode canonicalJsonLine}). Same value,
 * same bytes.
 *
 * @module
 */

/**
 * Serialises `value` canonically.
 *
 * Rule: keys sorted by UTF-16 code unit; integers as JavaScript writes them;
 * other finite numbers rounded to 12 significant digits (`Number(x.toPrecision(12))`);
 * non-finite numbers are refused; `undefined` members are omitted.
 * O(size of the value).
 *
 * @param value a JSON-serialisable value (summary, plan, manifest, figure spec)
 * @returns the text, two-space indented, with a trailing newline
 * @throws {TypeError} on NaN or infinite numbers
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * const text = canonicalJson({ b: 1 / 3, a: [2, null] });
 * if (text !== '{\n  "a": [\n    2,\n    null\n  ],\n  "b": 0.333333333333\n}\n') throw new Error(text);
 * ```
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(normalise(value, "$"), null, 2) + "\n";
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
 * @throws {TypeError} on NaN or infinite numbers
 * @example
 * ```ts
 * import { canonicalJsonLine } from "./canonical_json.ts";
 * if (canonicalJsonLine({ b: 1, a: { d: [1 / 3], c: "x" } }) !== '{"a":{"c":"x","d":[0.333333333333]},"b":1}') {
 *   throw new Error("not canonical");
 * }
 * ```
 */
export function canonicalJsonLine(value: unknown): string {
  return JSON.stringify(normalise(value, "$"));
}

function normalise(value: unknown, path: string): unknown {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`Cannot write JSON: "${path}" is ${value}`);
    return Number.isInteger(value) ? value : Number(value.toPrecision(12));
  }
  if (Array.isArray(value)) return value.map((item, i) => normalise(item, `${path}[${i}]`));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = normalise(member, `${path}.${key}`);
    }
    return out;
  }
  return value;
}
