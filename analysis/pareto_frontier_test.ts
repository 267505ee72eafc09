import assert from "node:assert/strict";
import {
  type FrontierSample,
  paretoFrontier,
  paretoFrontierProbability,
} from "./pareto_frontier.ts";
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

/**
 * The plain frontier probability: the same resamples (one generator, agents in
 * order, n draws each), the frontier by the O(n²) definition, counts by agent.
 */
function naiveFrontierProbability(samples: FrontierSample[], rounds: number, seed: number) {
  const random = seededRandom(seed);
  const counts = new Map(samples.map((s) => [s.agent_id, 0]));
  for (let r = 0; r < rounds; r++) {
    const points: Point[] = samples.map((s) => {
      const picks = s.costs.map(() => randomIndex(random, s.costs.length));
      const hits = picks.filter((i) => s.resolved[i]).length;
      const total = picks.reduce((sum, i) => sum + s.costs[i], 0);
      return { id: s.agent_id, cost: hits === 0 ? null : total / hits, rate: hits / picks.length };
    });
    for (const id of bruteForce(points)) counts.set(id, counts.get(id)! + 1);
  }
  return samples.map((s) => counts.get(s.agent_id)!);
}

Deno.test("paretoFrontierProbability() matches the naive implementation", () => {
  const random = seededRandom("frontier-data");
  for (const [agents, rounds, seed] of [[2, 300, 7], [4, 500, 11], [7, 400, 3]]) {
    const samples: FrontierSample[] = Array.from({ length: agents }, (_, a) => {
      const n = 3 + randomIndex(random, 12);
      const p = random();
      return {
        agent_id: `agent-${a}`,
        // integer costs on a coarse grid, so ties between agents happen
        costs: Array.from({ length: n }, () => 1 + randomIndex(random, 4)),
        resolved: Array.from({ length: n }, () => random() < p),
      };
    });
    const fast = paretoFrontierProbability(samples, { rounds, seed });
    assert.deepEqual(
      fast.agents.map((a) => a.on_frontier),
      naiveFrontierProbability(samples, rounds, seed),
    );
    fast.agents.forEach((a) => assert.equal(a.probability, a.on_frontier / rounds));
  }
});

Deno.test("paretoFrontierProbability() against an exact hand computation", () => {
  // X: one resolved episode of cost 1: always cost 1, rate 1.
  // Y: two episodes of cost 0.5, one resolved. Its resample resolves both with p 1/4
  // (cost 0.5, rate 1: Y dominates X), one with p 1/2 (cost 1, rate 1/2: X dominates Y)
  // or none with p 1/4 (no cost per resolved). Exact: P(X on) = 3/4, P(Y on) = 1/4.
  const rounds = 20_000;
  const result = paretoFrontierProbability([
    { agent_id: "X", costs: [1], resolved: [true] },
    { agent_id: "Y", costs: [0.5, 0.5], resolved: [true, false] },
  ], { rounds, seed: 5 });
  const sd = Math.sqrt(0.25 * 0.75 / rounds);
  const [x, y] = result.agents;
  assert.ok(Math.abs(x.probability - 0.75) < 4 * sd, `${x.probability}`);
  assert.equal(x.on_frontier + y.on_frontier, rounds); // exactly one of them each round
  assert.ok(Math.abs(y.rounds_without_resolved / rounds - 0.25) < 4 * sd);
  assert.equal(x.rounds_without_resolved, 0);
  assert.deepEqual([result.rounds, result.seed], [rounds, 5]);
});

Deno.test("paretoFrontierProbability() refuses bad input", () => {
  const fails = (fn: () => unknown, text: string) =>
    assert.throws(fn, (e: unknown) => e instanceof RangeError && e.message.includes(text));
  fails(
    () => paretoFrontierProbability([{ agent_id: "a", costs: [], resolved: [] }]),
    'agent "a" needs as many outcomes as costs',
  );
  fails(
    () => paretoFrontierProbability([{ agent_id: "a", costs: [NaN], resolved: [true] }]),
    "not a finite number >= 0: NaN",
  );
  fails(
    () => paretoFrontierProbability([], { rounds: 1.5 }),
    '"rounds" must be a positive integer, got 1.5',
  );
});
