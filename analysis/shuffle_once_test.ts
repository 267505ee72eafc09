import { deepEqual } from "node:assert/strict";
import seedrandom from "seedrandom";
import { shuffleOnce } from "./shuffle_once.ts";

Deno.test("shuffleOnce() is seed 002's one-time shuffle: Fisher–Yates over seedrandom's Alea", () => {
  // Independent recomputation: the same algorithm written against seedrandom directly.
  const items = ["t0", "t1", "t2", "t3", "t4", "t5", "t6"];
  const alea = seedrandom.alea("20261107");
  const expected = [...items];
  for (let i = expected.length - 1; i > 0; i--) {
    const j = Math.floor(alea() * (i + 1));
    [expected[i], expected[j]] = [expected[j], expected[i]];
  }
  deepEqual(shuffleOnce(items, 20261107), expected);
  deepEqual(shuffleOnce(items, "20261107"), expected);
  // Pinned (computed by the recomputation above, 2026-11-30): a changed generator would show here.
  deepEqual(expected, ["t0", "t1", "t5", "t4", "t2", "t6", "t3"]);
  deepEqual(shuffleOnce(items, 1).slice().sort(), items);
  deepEqual(items, ["t0", "t1", "t2", "t3", "t4", "t5", "t6"]); // the input is not modified
});
