/**
 * JSON text as Python's `json` module writes it for Inspect AI logs: the
 * value's own key order, and the non-finite numbers as the bare `NaN`,
 * `Infinity` and `-Infinity` that `parseJsonObject` reads back under
 * `nonFinite`.
 *
 * @module
 */

/**
 * Serialises `value` as JSON text in its own key order (insertion order,
 * array indices first, as `JSON.stringify` enumerates), without whitespace,
 * writing a non-finite number bare (`NaN`, `Infinity`, `-Infinity`) where
 * `JSON.stringify` would write `null`.
 *
 * Rule: Python's `json.dumps(allow_nan=True)` (the default) writes the
 * non-finite floats so, and Inspect AI writes its logs with it (pydantic's
 * `ser_json_inf_nan="constants"` on `EvalLog` and `EvalSampleReductions`,
 * `src/inspect_ai/log/_log.py` at commit 499e615); every other value as
 * ECMA-262 `JSON.stringify` writes it (`undefined` members omitted, `null`
 * in arrays). Same value, same text. O(size of the value).
 *
 * @param value a JSON value, possibly holding non-finite numbers
 * @returns the text, one line
 * @example
 * ```ts
 * import { pythonJson } from "./python_json.ts";
 * if (pythonJson({ b: [NaN, 1.5], a: -Infinity }) !== '{"b":[NaN,1.5],"a":-Infinity}') {
 *   throw new Error();
 * }
 * ```
 */
export function pythonJson(value: unknown): string {
  // the common case, no non-finite number: the engine's own writer, the same bytes
  return hasNonFinite(value) ? written(value) : JSON.stringify(value) ?? "null";
}

/** Whether a non-finite number is anywhere in `value`. O(size of the value). */
function hasNonFinite(value: unknown): boolean {
  if (typeof value === "number") return !Number.isFinite(value);
  if (value === null || typeof value !== "object") return false;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    if (hasNonFinite(member)) return true;
  }
  return false;
}

/** The text written member by member, non-finite numbers bare. */
function written(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) {
    return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => item === undefined ? "null" : written(item)).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const members: string[] = [];
    for (const [key, member] of Object.entries(value)) {
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${written(member)}`);
    }
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
