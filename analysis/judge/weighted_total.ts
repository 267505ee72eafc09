/**
 * The 0–100 total of a judge's per-dimension scores: the model scores each
 * rubric dimension, code computes the weighted total (seed 000 §06).
 *
 * @module
 */
import type { DimensionScore, Rubric } from "../schema/records.ts";

/**
 * The weighted total of one judgment on the 0–100 scale:
 * 100 / W × Σ_d weight_d × score_d / max_d, with W = Σ_d weight_d.
 *
 * Rule (seed 000 §06, its Java `weighted += score * weight; totalWeight +=
 * weight; return weighted * 20.0 / totalWeight`, scores on a 1–5 scale):
 * each dimension's score is divided by its own `max`, so dimensions of
 * different ranges mix. On 1–5 dimensions this is the seed's formula
 * exactly, and bit for bit: the total is computed as the one correctly
 * rounded division N × 100 / (L × W) of exact integers (L the least common
 * multiple of the maxima, N = Σ score × weight × L / max), which for L = 5
 * is the rational weighted × 20 / W the seed's division rounds. As in the
 * seed the scale's floor is not 0: a 1–5 rubric's lowest total is 20 (every
 * dimension at 1), the highest 100.
 *
 * Precondition: the scores were validated ({@link parseScoreJudgment} of
 * `parse_judgment.ts` does it). A missing, repeated or unknown dimension or a
 * score outside its range is still an error here, never a silent 0 (seed
 * 000 §06). Scores are looked up by name; their order does not matter.
 * Cost: O(dimensions).
 *
 * @param rubric the task's rubric
 * @param scores one integer score per dimension of the rubric
 * @returns the total in [100 × Σ weight × min / max / W, 100]
 * @throws {RangeError} when a dimension has no score or two, a score names no
 *   dimension, a score is not an integer in its dimension's range, or the
 *   ranges are too large to total exactly (L × W × 100 beyond 2^53)
 * @example
 * ```ts
 * import { weightedTotal } from "./weighted_total.ts";
 * const rubric = {
 *   schema_version: 1 as const,
 *   rubric_id: "essay",
 *   pass_threshold: 60,
 *   dimensions: [
 *     { name: "correctness", weight: 3, min: 1, max: 5, guidance: "Is it right?" },
 *     { name: "clarity", weight: 1, min: 1, max: 5, guidance: "Is it clear?" },
 *   ],
 * };
 * const total = weightedTotal(rubric, [
 *   { name: "clarity", score: 5 },
 *   { name: "correctness", score: 4 },
 * ]);
 * // The seed's formula: (4 × 3 + 5 × 1) × 20 / 4 = 85.
 * if (total !== 85) throw new Error(String(total));
 * ```
 */
export function weightedTotal(rubric: Rubric, scores: readonly DimensionScore[]): number {
  const byName = new Map<string, number>();
  const dimensions = new Set(rubric.dimensions.map((d) => d.name));
  for (const { name, score } of scores) {
    if (!dimensions.has(name)) {
      throw new RangeError(
        `Cannot total a judgment: the score of ${JSON.stringify(name)} names no dimension of ` +
          `the rubric ${JSON.stringify(rubric.rubric_id)}`,
      );
    }
    if (byName.has(name)) {
      throw new RangeError(
        `Cannot total a judgment: the dimension ${JSON.stringify(name)} has two scores`,
      );
    }
    byName.set(name, score);
  }
  let lcm = 1;
  let totalWeight = 0;
  for (const dimension of rubric.dimensions) {
    lcm = leastCommonMultiple(lcm, dimension.max);
    totalWeight += dimension.weight;
  }
  let numerator = 0;
  for (const { name, weight, min, max } of rubric.dimensions) {
    const score = byName.get(name);
    if (score === undefined) {
      throw new RangeError(
        `Cannot total a judgment: the dimension ${JSON.stringify(name)} has no score`,
      );
    }
    if (!Number.isInteger(score) || score < min || score > max) {
      throw new RangeError(
        `Cannot total a judgment: the score ${score} of ${JSON.stringify(name)} is not an ` +
          `integer in ${min}..${max}`,
      );
    }
    numerator += score * weight * (lcm / max);
  }
  const denominator = lcm * totalWeight;
  if (
    !Number.isSafeInteger(denominator * 100) || !Number.isSafeInteger(Math.abs(numerator) * 100)
  ) {
    throw new RangeError(
      `Cannot total a judgment: the score ranges of the rubric ${
        JSON.stringify(rubric.rubric_id)
      } are too large to total exactly`,
    );
  }
  return (numerator * 100) / denominator;
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function leastCommonMultiple(a: number, b: number): number {
  return (a / greatestCommonDivisor(a, b)) * b;
}
