import { equal } from "node:assert/strict";
import seedrandom from "seedrandom";
import { randomIndex, seededIndices, seededRandom } from "./seeded_random.ts";

Deno.test("seededRandom() draws exactly the stream of seedrandom.alea, for every kind of seed", () => {
  // The seeds the project records (seed 001's 7, order seeds, strings) and edge cases.
  const seeds: (number | string)[] = [7, "7", 0, 1, -1, 42, 2 ** 53, 1.5, "", "seed-001", "é☃𝄞"];
  for (let i = 0; i < 50; i++) seeds.push(1_000_003 * i, `s${i}`);
  for (const seed of seeds) {
    const ours = seededRandom(seed);
    const theirs = seedrandom.alea(String(seed));
    for (let draw = 0; draw < 2000; draw++) {
      equal(ours(), theirs(), `seed ${JSON.stringify(seed)}, draw ${draw}`);
    }
  }
});

Deno.test("seededRandom() gives numbers in [0, 1) and randomIndex() integers in [0, n)", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 100_000; i++) {
    const x = random();
    if (!(x >= 0 && x < 1)) throw new Error(`draw ${i}: ${x}`);
  }
  const counts = [0, 0, 0];
  for (let i = 0; i < 30_000; i++) counts[randomIndex(random, 3)]++;
  // each near 10,000: a binomial(30000, 1/3) lies within ±600 (7 standard deviations) of it
  for (const count of counts) equal(Math.abs(count - 10_000) < 600, true, String(counts));
});

Deno.test("seededIndices() fills batches with the indices of randomIndex() on one stream, draw for draw", () => {
  for (const seed of [7, "7", 0, -1, 1.5, "", "seed-001", "é☃𝄞", 2 ** 53]) {
    const random = seededRandom(seed);
    const draws = seededIndices(seed);
    const out = new Int32Array(500);
    // batches of several sizes and bounds, one continuing stream
    for (
      const [count, n] of [[1, 1], [7, 3], [500, 84], [0, 5], [250, 50_000], [100, 2 ** 31 - 1]]
    ) {
      out.fill(-1);
      draws(out, count, n);
      for (let i = 0; i < count; i++) {
        equal(out[i], randomIndex(random, n), `seed ${JSON.stringify(seed)}, n ${n}, draw ${i}`);
      }
      equal(out[count] ?? -1, -1, "only count entries written");
    }
  }
});
