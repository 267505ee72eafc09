/**
 * Parsing of seed 002's SPRT parameters, shared by every function of this
 * folder.
 *
 * @module
 */
import type { z } from "zod";
import { SprtParams } from "../schema/records.ts";

/**
 * What callers may pass as SPRT parameters: any subset of
 * {@linkcode SprtParams}, absent fields taking seed 002's defaults
 * (`p_adopt` 0.60, `p_drop` 0.40, `alpha` = `beta` = 0.10, `n_cap` 60).
 */
export type SprtParamsInput = z.input<typeof SprtParams>;

/**
 * Validates SPRT parameters through the schema and fills seed 002's defaults.
 *
 * Rule: `SprtParams` from `analysis/schema/records.ts` (0 < p_drop < p_adopt < 1,
 * 0 < alpha, beta < 1, n_cap a positive integer, no other field). The result
 * always has the key order `p_adopt, p_drop, alpha, beta, n_cap`.
 *
 * Source: seed 002 (`Plan` dataclass of `sprt.py`).
 *
 * @param input parameters, possibly partial; `{}` gives the seed's defaults
 * @returns the complete parameters
 * @throws {RangeError} when a field is out of range or unknown, naming the field
 * @example
 * ```ts
 * import { parseSprtParams } from "./sprt_params.ts";
 * const params = parseSprtParams({ n_cap: 40 });
 * if (params.p_adopt !== 0.6 || params.n_cap !== 40) throw new Error("defaults");
 * ```
 */
export function parseSprtParams(input: SprtParamsInput = {}): SprtParams {
  const parsed = SprtParams.safeParse(input);
  if (parsed.success) {
    const p = parsed.data;
    return { p_adopt: p.p_adopt, p_drop: p.p_drop, alpha: p.alpha, beta: p.beta, n_cap: p.n_cap };
  }
  const issue = parsed.error.issues[0];
  const field = issue.path.length > 0 ? issue.path.join(".") : "(root)";
  const value = issue.path.length === 1 && input !== null && typeof input === "object"
    ? (input as Record<string, unknown>)[String(issue.path[0])]
    : undefined;
  const got = value === undefined ? "" : `, got "${String(value)}"`;
  throw new RangeError(`Invalid SPRT parameters: field "${field}": ${issue.message}${got}`);
}
