/**
 * The only source of randomness in `analysis/`: a generator seeded through
 * seedrandom (Alea), so that the same seed gives the same numbers on every
 * machine (seed 001: "same ledger + same seed, same output").
 *
 * @module
 */
import seedrandom from "seedrandom";

/** A seeded generator of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * Creates a seeded generator: seedrandom's Alea seeded with `String(seed)`.
 * The seed is stringified, so `7` and `"7"` give the same stream (seed 001's
 * bootstrap seed 7, seed 002's published order seed). O(1) per draw.
 *
 * @param seed the recorded seed
 * @returns a generator of uniform numbers in [0, 1)
 * @example
 * ```ts
 * import { seededRandom } from "./seeded_random.ts";
 * const a = seededRandom(7), b = seededRandom("7");
 * if (a() !== b()) throw new Error("seeds must be stringified");
 * ```
 */
export function seededRandom(seed: number | string): Random {
  return seedrandom.alea(String(seed)) as Random;
}

/**
 * A uniform integer in [0, n), from one draw of `random`:
 * `Math.floor(random() * n)`. O(1).
 *
 * @param random the seeded generator
 * @param n exclusive upper bound, a positive integer
 * @returns an integer in [0, n)
 */
export function randomIndex(random: Random, n: number): number {
  return Math.floor(random() * n);
}
