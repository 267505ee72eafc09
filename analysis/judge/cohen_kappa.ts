/**
 * Cohen's kappa of two raters over the same items: the judge against the
 * human labels of a golden set (issue 14).
 *
 * @module
 */

/**
 * Cohen's kappa, agreement beyond chance: κ = (p_o − p_e) / (1 − p_e).
 *
 * Rule (Cohen 1960, "A coefficient of agreement for nominal scales", Educ.
 * Psychol. Meas. 20:37): over n pairs (first rater's category, second
 * rater's category), p_o is the share of pairs with equal categories and
 * p_e = Σ_c (a_c / n)(b_c / n), with a_c and b_c the two raters' counts of
 * category c, over the categories either rater used. Computed from the
 * integer counts as (n × agree − Σ a_c b_c) / (n² − Σ a_c b_c), one
 * correctly rounded division. Undefined (null) with no pairs, or when p_e = 1
 * (both raters used one and the same single category). Categories are
 * compared as strings (`"pass"`, `"A"`, ...). Cost: O(n).
 *
 * @param pairs one (first rater, second rater) pair of categories per item
 * @returns κ in [−1, 1], or null when undefined
 * @example
 * ```ts
 * import { cohenKappa } from "./cohen_kappa.ts";
 * // p_o = 3/4, p_e = 1/2: κ = 0.5.
 * const k = cohenKappa([["y", "y"], ["n", "n"], ["y", "n"], ["n", "n"]]);
 * if (k !== 0.5) throw new Error(String(k));
 * ```
 */
export function cohenKappa(pairs: readonly (readonly [string, string])[]): number | null {
  const n = pairs.length;
  if (n === 0) return null;
  const first = new Map<string, number>();
  const second = new Map<string, number>();
  let agree = 0;
  for (const [a, b] of pairs) {
    first.set(a, (first.get(a) ?? 0) + 1);
    second.set(b, (second.get(b) ?? 0) + 1);
    if (a === b) agree++;
  }
  let chance = 0;
  for (const [category, count] of first) chance += count * (second.get(category) ?? 0);
  const denominator = n * n - chance;
  return denominator === 0 ? null : (n * agree - chance) / denominator;
}
