/**
 * The canonical one-line form of a ledger row: what the ledger writer
 * appends, and what the next row's `prev_sha256` hashes.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";

/**
 * Serialises a record as one canonical JSON line, without the newline.
 *
 * Rule: keys sorted, integers as JavaScript writes them, other numbers
 * rounded to 12 significant digits, `undefined` members omitted, no
 * whitespace (`canonicalJson` of analysis/canonical_json.ts, re-serialised
 * compactly). Same value, same bytes. O(size of the record).
 *
 * @param value a JSON-serialisable record
 * @returns the line, with no `\n` inside
 * @throws {TypeError} on NaN or infinite numbers
 * @example
 * ```ts
 * import { ledgerLine } from "./ledger_line.ts";
 * if (ledgerLine({ b: 1, a: { d: [1 / 3], c: "x" } }) !== '{"a":{"c":"x","d":[0.333333333333]},"b":1}') {
 *   throw new Error("not canonical");
 * }
 * ```
 */
export function ledgerLine(value: unknown): string {
  return JSON.stringify(JSON.parse(canonicalJson(value)));
}
