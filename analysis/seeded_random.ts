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
  let [s0, s1, s2, c] = aleaSeedState(seed);
  return () => {
    const t = 2091639 * s0 + c * TWO_TO_MINUS_32;
    s0 = s1;
    s1 = s2;
    c = t | 0;
    s2 = t - c;
    return s2;
  };
}

/** Alea's state after seeding with `String(seed)` (Baagøe's `Alea`): s0, s1, s2 and the carry c. */
function aleaSeedState(seed: number | string): Float64Array {
  const mash = masher();
  const text = String(seed);
  const state = new Float64Array([mash(" "), mash(" "), mash(" "), 1]);
  for (let i = 0; i < 3; i++) {
    state[i] -= mash(text);
    if (state[i] < 0) state[i] += 1;
  }
  return state;
}

/** Fills `out[0..count)` with uniform integers in [0, n); see {@link seededIndices}. */
export type IndexDraws = (out: Int32Array, count: number, n: number) => void;

/**
 * The stream of `seededRandom(seed)` read as indices in batches: each call
 * of the result fills `out[0..count)` with the next `count` values of
 * {@link randomIndex}`(random, n)`, draw for draw the same integers as that
 * many calls on one `seededRandom(seed)` (`seeded_random_test.ts` checks
 * it). The generator's state stays in local variables through a batch, so
 * a bootstrap round's draws cost a few arithmetic operations each instead
 * of a closure call that boxes three doubles (V8 keeps a closure's double
 * variables as heap numbers). O(count) per call.
 *
 * @param seed the recorded seed, stringified as by {@link seededRandom}
 * @returns the batch filler
 * @example
 * ```ts
 * import { randomIndex, seededIndices, seededRandom } from "./seeded_random.ts";
 * const out = new Int32Array(3);
 * seededIndices(7)(out, 3, 10);
 * const random = seededRandom(7);
 * if (out.some((j) => j !== randomIndex(random, 10))) throw new Error("same stream");
 * ```
 */
export function seededIndices(seed: number | string): IndexDraws {
  const state = aleaSeedState(seed);
  return (out, count, n) => {
    let s0 = state[0], s1 = state[1], s2 = state[2], c = state[3];
    for (let i = 0; i < count; i++) {
      const t = 2091639 * s0 + c * TWO_TO_MINUS_32;
      s0 = s1;
      s1 = s2;
      c = t | 0;
      s2 = t - c;
      out[i] = Math.floor(s2 * n);
    }
    state[0] = s0;
    state[1] = s1;
    state[2] = s2;
    state[3] = c;
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
