import assert from "node:assert/strict";
import { paretoFrontier } from "./pareto_frontier.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";

interface Point {
  id: string;
  cost: number | null;
  rate: number;
}

const axes = { cost: (p: Point) => p.cost, benefit: (p: Point) => p.rate };

/** The plain O(n²) definition, to cross-check the sweep against. */
function bruteForce(points: Point[]): Set<string> {
  const usable = points.filter((p) => p.cost !== null && Number.isFinite(p.cost));
  const out = new Set<string>();
  for (const p of usable) {
    const dominated = usable.some((q) =>
      q.cost! <= p.cost! && q.rate >= p.rate && (q.cost! < p.cost! || q.rate > p.rate)
    );
    if (!dominated) out.add(p.id);
  }
  return out;
}

Deno.test("paretoFrontier() pins the seed-001 sample in tokens per resolved", () => {
  // Seed 001 sample ledger: agent a resolves 3/4 with 23300 tokens (7766.67 per
  // resolved), agent b 2/4 with 7500 tokens (3750 per resolved). Neither
  // dominates: a has the higher rate, b the lower cost, so both are on the frontier.
  const points: Point[] = [
    { id: "a", cost: 23300 / 3, rate: 0.75 },
    { id: "b", cost: 7500 / 2, rate: 0.5 },
  ];
  assert.deepEqual(paretoFrontier(points, axes).map((p) => p.id), ["b", "a"]);
});

Deno.test("paretoFrontier() drops dominated points and orders by cost", () => {
  // Hand-checked: d (cost 4, rate 0.6) is dominated by c (3, 0.9); b by a;
  // e ties a on cost with a lower rate, so a dominates it; f has no cost.
  const points: Point[] = [
    { id: "c", cost: 3, rate: 0.9 },
    { id: "a", cost: 1, rate: 0.5 },
    { id: "b", cost: 2, rate: 0.4 },
    { id: "d", cost: 4, rate: 0.6 },
    { id: "e", cost: 1, rate: 0.3 },
    { id: "f", cost: null, rate: 1 },
  ];
  assert.deepEqual(paretoFrontier(points, axes).map((p) => p.id), ["a", "c"]);
});

Deno.test("paretoFrontier() keeps exact duplicates of a frontier point", () => {
  // Equal cost and equal rate: neither is strictly better, so both stay.
  const points: Point[] = [
    { id: "x", cost: 2, rate: 0.5 },
    { id: "y", cost: 2, rate: 0.5 },
    { id: "z", cost: 2, rate: 0.4 },
  ];
  assert.deepEqual(paretoFrontier(points, axes).map((p) => p.id), ["x", "y"]);
});

Deno.test("paretoFrontier() ignores non-finite coordinates and handles empty input", () => {
  assert.deepEqual(paretoFrontier([], axes), []);
  const points: Point[] = [
    { id: "nan", cost: NaN, rate: 0.9 },
    { id: "inf", cost: Infinity, rate: 0.9 },
    { id: "ok", cost: 5, rate: 0.1 },
  ];
  assert.deepEqual(paretoFrontier(points, axes).map((p) => p.id), ["ok"]);
});

Deno.test("paretoFrontier() agrees with the O(n²) definition on seeded random points", () => {
  // Cross-check: the sort-and-sweep against the plain pairwise definition, on
  // 200 sets of up to 30 points on a coarse grid (so ties are frequent).
  const random = seededRandom(2024);
  for (let round = 0; round < 200; round++) {
    const n = randomIndex(random, 30);
    const points: Point[] = [];
    for (let i = 0; i < n; i++) {
      points.push({
        id: `p${i}`,
        cost: randomIndex(random, 10) === 0 ? null : randomIndex(random, 8),
        rate: randomIndex(random, 6) / 5,
      });
    }
    const fast = paretoFrontier(points, axes);
    assert.deepEqual(new Set(fast.map((p) => p.id)), bruteForce(points));
    for (let i = 1; i < fast.length; i++) {
      // Along the frontier cost never falls and rate never falls as cost rises.
      assert(fast[i].cost! >= fast[i - 1].cost!);
      assert(fast[i].rate >= fast[i - 1].rate);
    }
  }
});
