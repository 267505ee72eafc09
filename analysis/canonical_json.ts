/**
 * Deterministic JSON for every output meant for replay (house style rule 4):
 * object keys sorted, non-integer numbers written with 12 significant digits,
 * two-space indentation, trailing newline. Same value, same bytes.
 *
 * @module
 */

/**
 * Serialises `value` canonically.
 *
 * Rule: keys sorted by UTF-16 code unit; integers as JavaScript writes them;
 * other finite numbers rounded to 12 significant digits (`Number(x.toPrecision(12))`);
 * non-finite numbers are refused; `undefined` members are omitted.
 *
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
