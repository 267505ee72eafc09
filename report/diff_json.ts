/**
 * A structural comparison of two JSON values that names every place they
 * differ, for `verify-report`.
 *
 * @module
 */

/** One place where two JSON values differ. */
export interface JsonDifference {
  /** Where, as a JSONPath-like string: `$.agents[0].tpr`. */
  path: string;
  /** What the first value holds there (`undefined` → absent). */
  expected: unknown;
  /** What the second value holds there (`undefined` → absent). */
  actual: unknown;
}

/** Options for {@link diffJson}. */
export interface DiffJsonOptions {
  /** Stop after this many differences; default: no limit. */
  limit?: number;
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function memberPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Lists every path at which two JSON values differ, depth first, object keys
 * in sorted order, array elements by index.
 *
 * Rule: values of different kinds (null, boolean, number, string, array,
 * object) differ at their path; primitives differ when `!==` (so `0` and `-0`
 * are equal, and numbers are compared exactly: canonicalise both first when
 * they went through different formatting); an array longer than the other
 * differs at each extra index; an object key present on one side only differs
 * at that key (the absent side is `undefined`). Cost: O(size of both values).
 *
 * @param expected the reference value (e.g. the recomputed summary)
 * @param actual the value checked against it (e.g. the summary on disk)
 * @param options `limit` on the number of differences returned
 * @returns the differences, empty when the values are equal
 * @example
 * ```ts
 * import { diffJson } from "./diff_json.ts";
 * const d = diffJson({ a: [1, 2], b: "x" }, { a: [1, 3], c: true });
 * if (d.map((x) => x.path).join() !== "$.a[1],$.b,$.c") throw new Error(JSON.stringify(d));
 * ```
 */
export function diffJson(
  expected: unknown,
  actual: unknown,
  options: DiffJsonOptions = {},
): JsonDifference[] {
  const limit = options.limit ?? Infinity;
  const out: JsonDifference[] = [];
  const walk = (e: unknown, a: unknown, path: string): void => {
    if (out.length >= limit) return;
    const ke = kind(e);
    const ka = kind(a);
    if (ke !== ka) {
      out.push({ path, expected: e, actual: a });
      return;
    }
    if (ke === "array") {
      const ea = e as unknown[];
      const aa = a as unknown[];
      const n = Math.max(ea.length, aa.length);
      for (let i = 0; i < n; i++) walk(ea[i], aa[i], `${path}[${i}]`);
      return;
    }
    if (ke === "object") {
      const eo = e as Record<string, unknown>;
      const ao = a as Record<string, unknown>;
      const keys = [...new Set([...Object.keys(eo), ...Object.keys(ao)])].sort();
      for (const key of keys) {
        walk(
          Object.hasOwn(eo, key) ? eo[key] : undefined,
          Object.hasOwn(ao, key) ? ao[key] : undefined,
          memberPath(path, key),
        );
      }
      return;
    }
    if (e !== a) out.push({ path, expected: e, actual: a });
  };
  walk(expected, actual, "$");
  return out;
}
