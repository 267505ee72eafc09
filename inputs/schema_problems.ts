/**
 * Wording zod's issues as problems that name the field and say what is
 * wrong in the reader's terms: a field that is absent is "missing", a key
 * the schema does not know is "unknown", and zod's generic "Invalid input"
 * says which forms were allowed.
 *
 * @module
 */
import type { z } from "zod";

/** One schema issue, worded: the dotted field and the message. */
export interface SchemaProblem {
  /** Dotted path of the field (`tasks.3.lane`), `""` for the whole object. */
  field: string;
  message: string;
}

/** The value at `path` inside `root`, or undefined when absent. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Zod's message without its "Invalid input: " prefix, on one line. */
function plainMessage(message: string): string {
  return message.replace(/^Invalid input: /, "").replaceAll(/\s*\n\s*/g, " ");
}

/**
 * Words one zod issue (zod 4's issue shapes) against the raw value it was
 * raised on.
 *
 * Rules: an `invalid_type` issue on an absent field reads `missing (expected
 * <type>)`; `unrecognized_keys` names the first unknown key as the field
 * (`unknown key; the schema has no such field`); a discriminated union
 * whose discriminator matches nothing lists the allowed values; any other
 * message loses zod's "Invalid input: " prefix and its line breaks.
 *
 * @param issue the issue
 * @param raw the value the schema parsed
 * @returns the field and message
 * @example
 * ```ts
 * import { z } from "zod";
 * import { schemaProblem } from "./schema_problems.ts";
 * const raw = {};
 * const issue = z.object({ plan_id: z.string() }).safeParse(raw).error!.issues[0];
 * const problem = schemaProblem(issue, raw);
 * if (problem.field !== "plan_id" || problem.message !== "missing (expected string)") throw new Error();
 * ```
 */
export function schemaProblem(issue: z.core.$ZodIssue, raw: unknown): SchemaProblem {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const [key, ...more] = issue.keys;
    const also = more.length === 0 ? "" : ` (and ${more.map((k) => JSON.stringify(k)).join(", ")})`;
    return {
      field: [...path, key].join("."),
      message: `unknown key; the schema has no such field${also}`,
    };
  }
  if (issue.code === "invalid_type" && valueAt(raw, issue.path) === undefined) {
    return { field: path.join("."), message: `missing (expected ${issue.expected})` };
  }
  if (issue.code === "invalid_union" && "discriminator" in issue) {
    const value = valueAt(raw, issue.path);
    return {
      field: path.join("."),
      message: value === undefined
        ? "missing"
        : `${JSON.stringify(value)} is not one of the allowed kinds`,
    };
  }
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(", ");
    const value = valueAt(raw, issue.path);
    return {
      field: path.join("."),
      message: value === undefined
        ? `missing (expected one of ${allowed})`
        : `must be one of ${allowed}`,
    };
  }
  return { field: path.join("."), message: plainMessage(issue.message) };
}
