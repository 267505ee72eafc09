/**
 * The only source of randomness in `analysis/`: Johannes Baagøe's Alea
 * generator, exactly as seedrandom 3.0.5 implements it (`seedrandom.alea`,
 * `lib/alea.js`), so that the same seed gives the same numbers on every
 * machine (seed 001: "same ledger + same seed, same output").
 *
 * Written out here (about thirty lines, MIT-licensed, © 2010 Johannes
 * Baagøe) instead of imported: seedrandom is a CommonJS package, and
 * loading it brought up Deno's Node module loader, about a tenth of a
 * command's start-up (issue 23). `seeded_random_test.ts` checks the
 * streams against the npm package draw for draw.
 *
 * @module
 */

/** A seeded generator of uniform numbers in [0, 1). */
export type Random = () => number;

/** 2^-32. */
const TWO_TO_MINUS_32 = 2.3283064365386963e-10;

/**
 * Baagøe's Mash: the hash Alea seeds itself with. Each call folds the
 * UTF-16 code units of `data` into the running state `n` and returns it
 * scaled to [0, 1).
 */
function masher(): (data: string) => number {
  let n = 0xefc8249d;
  return (data) => {
    for (let i = 0; i < data.length; i++) {
      n += data.charCodeAt(i);
      let h = 0.02519603282416938 * n;
      n = h >>> 0;
      h -= n;
      h *= n;
      n = h >>> 0;
      h -= n;
      n += h * 0x100000000; // 2^32
    }
    return (n >>> 0) * TWO_TO_MINUS_32;
  };
}

/**
 * Creates a seeded generator: Alea (a multiply-with-carry generator with
 * three 32-bit-fraction lags, Baagøe 2010) seeded with `String(seed)`,
 * draw for draw the stream of `seedrandom.alea(String(seed))`. The seed
 * is stringified, so `7` and `"7"` give the same stream (seed 001's
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
  const mash = masher();
  const text = String(seed);
  let c = 1;
  let s0 = mash(" ");
  let s1 = mash(" ");
  let s2 = mash(" ");
  s0 -= mash(text);
  if (s0 < 0) s0 += 1;
  s1 -= mash(text);
  if (s1 < 0) s1 += 1;
  s2 -= mash(text);
  if (s2 < 0) s2 += 1;
  return () => {
    const t = 2091639 * s0 + c * TWO_TO_MINUS_32;
    s0 = s1;
    s1 = s2;
    c = t | 0;
    s2 = t - c;
    return s2;
  };
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
