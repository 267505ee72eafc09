/**
 * Seed 002's one-time shuffle of the task order ("只打乱一次顺序，公开随机种子"):
 * a pure function of the items and a published seed, shared by the runner's
 * plan freezing, the example generator and the notebooks.
 *
 * @module
 */
import { randomIndex, seededRandom } from "./seeded_random.ts";

/**
 * Shuffles items once with a seeded Fisher–Yates shuffle (seed 002: "只打乱一次
 * 顺序，公开随机种子").
 *
 * Rule: start from the given order; for i = n − 1 down to 1, draw
 * j = randomIndex(random, i + 1) from `seededRandom(seed)` and swap items i
 * and j. Same seed and input, same order. O(n).
 *
 * @param items the items (tasks) in their original order; not modified
 * @param seed the order seed (stringified by `seededRandom`)
 * @returns a shuffled copy
 * @example
 * ```ts
 * import { shuffleOnce } from "./shuffle_once.ts";
 * const a = shuffleOnce([1, 2, 3, 4, 5], 20261107);
 * const b = shuffleOnce([1, 2, 3, 4, 5], "20261107");
 * if (a.join() !== b.join()) throw new Error("seeds are stringified");
 * ```
 */
export function shuffleOnce<T>(items: readonly T[], seed: number | string): T[] {
  const out = [...items];
  const random = seededRandom(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomIndex(random, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
