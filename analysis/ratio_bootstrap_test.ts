import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { canonicalJson } from "./canonical_json.ts";
import { agentRatioIntervals, ratioBootstrap } from "./ratio_bootstrap.ts";
import { episodeSamples, unevenRows } from "./_episode_samples_for_test.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPriceTable } from "../inputs/price_table.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const SYNTHETIC = new URL("../ledgers/examples/synthetic_ledger.jsonl", import.meta.url).pathname;
const PRICES = new URL("../ledgers/examples/price_table.json", import.meta.url).pathname;

/**
 * The plain implementation: build each resample as an array of episodes
 * (with `tasks`: draw tasks, sorted, and take all their episodes), sum it
 * with reduce, represent "no ratio" as null, sort with nulls last.
 */
function naiveRatioBootstrap(
  values: number[],
  resolved: boolean[],
  rounds: number,
  seed: number | string,
  tasks?: string[],
) {
  const random = seededRandom(seed);
  const units = tasks === undefined
    ? values.map((_, i) => [i])
    : [...new Set(tasks)].sort().map((t) => tasks.flatMap((x, i) => (x === t ? [i] : [])));
  const stats: (number | null)[] = [];
  for (let r = 0; r < rounds; r++) {
    const picks = units.map(() => units[randomIndex(random, units.length)]);
    // per unit first, then over the units: the same float additions as the fast path
    const total = picks.map((u) => u.reduce((a, i) => a + values[i], 0)).reduce((a, b) => a + b, 0);
    const hits = picks.flat().filter((i) => resolved[i]).length;
    stats.push(hits === 0 ? null : total / hits);
  }
  stats.sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
  return {
    lower: stats[Math.floor(0.025 * rounds)],
    upper: stats[Math.floor(0.975 * rounds)],
    without: stats.filter((s) => s === null).length,
  };
}

Deno.test("ratioBootstrap() matches the naive implementation", () => {
  const random = seededRandom("ratio-data");
  for (const [n, rounds, seed] of [[5, 400, 7], [13, 1000, "x"], [40, 2000, 11]] as const) {
    const values = Array.from({ length: n }, () => Math.floor(random() * 10_000));
    const resolved = Array.from({ length: n }, () => random() < 0.3);
    const fast = ratioBootstrap(values, resolved, { rounds, seed });
    const naive = naiveRatioBootstrap(values, resolved, rounds, seed);
    deepEqual(
      [fast.lower, fast.upper, fast.rounds_without_resolved],
      [naive.lower, naive.upper, naive.without],
      `n ${n}`,
    );
    // By task: up to four attempts per task, tasks named out of order.
    const tasks = values.map(() => `t${randomIndex(random, Math.ceil(n / 2))}`);
    const byTask = ratioBootstrap(values, resolved, { rounds, seed, tasks });
    const plain = naiveRatioBootstrap(values, resolved, rounds, seed, tasks);
    deepEqual(
      [byTask.lower, byTask.upper, byTask.rounds_without_resolved],
      [plain.lower, plain.upper, plain.without],
      `n ${n}, by task`,
    );
    deepEqual([byTask.unit, byTask.tasks, fast.unit, fast.tasks], [
      "task",
      new Set(tasks).size,
      "episode",
      null,
    ]);
  }
});

Deno.test("ratioBootstrap() by task with one attempt per task in task order equals by episode", () => {
  const values = [5, 1, 9, 4, 4, 7];
  const resolved = [true, false, true, true, false, true];
  const tasks = ["a", "b", "c", "d", "e", "f"];
  const byTask = ratioBootstrap(values, resolved, { seed: 3, tasks });
  const byEpisode = ratioBootstrap(values, resolved, { seed: 3 });
  deepEqual(
    { ...byTask, unit: "episode", tasks: null },
    byEpisode,
  );
});

Deno.test("ratioBootstrap() hand-computed two-episode cases", () => {
  // Both resolved, 10 and 30 tokens: a resample's ratio is its mean, 10 (p 1/4), 20 (1/2)
  // or 30 (1/4), so with 2000 rounds the entries 50 and 1950 are 10 and 30.
  const both = ratioBootstrap([10, 30], [true, true]);
  deepEqual(
    [both.estimate, both.lower, both.upper, both.rounds_without_resolved],
    [20, 10, 30, 0],
  );
  // Only the first resolved: ratio 10 (p 1/4), 40 (p 1/2) or none (p 1/4, both picks
  // unresolved): about 500 of 2000 rounds have no ratio, so the upper bound is unbounded.
  const one = ratioBootstrap([10, 30], [true, false]);
  deepEqual([one.estimate, one.lower, one.upper], [40, 10, null]);
  ok(Math.abs(one.rounds_without_resolved - 500) < 4 * Math.sqrt(2000 * 0.25 * 0.75));
  // Nothing resolved: every round lacks a ratio, and so does the estimate.
  deepEqual(
    [ratioBootstrap([5], [false], { rounds: 10 })].map((r) => [
      r.estimate,
      r.lower,
      r.upper,
      r.rounds_without_resolved,
    ]),
    [[null, null, null, 10]],
  );
});

Deno.test("ratioBootstrap() rounds without a resolved episode: Monte Carlo against exact", () => {
  // 1 resolved of 10: P(no resolved in a resample) = 0.9^10 = 0.3486784401 (hand computation)
  const resolved = Array.from({ length: 10 }, (_, i) => i === 0);
  const rounds = 20_000;
  const result = ratioBootstrap(new Array(10).fill(1), resolved, { rounds, seed: 3 });
  const exact = 0.9 ** 10;
  const z = (result.rounds_without_resolved / rounds - exact) /
    Math.sqrt(exact * (1 - exact) / rounds);
  ok(Math.abs(z) < 4, `z ${z}`);
  equal(result.upper, null);
});

Deno.test("agentRatioIntervals() on the seed-001 sample: exact bootstrap quantiles", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const [a, b] = agentRatioIntervals(rows);
  // One attempt per task: resampling tasks is resampling episodes.
  deepEqual([a.tpr!.unit, a.tpr!.tasks, a.tpr!.episodes], ["task", 4, 4]);
  // Point estimates: seed 001, a 23300 / 3 tokens and 129 / 3 s; b 7500 / 2 and 40 / 2.
  deepEqual([a.tpr!.estimate, a.spr!.estimate], [23300 / 3, 43]);
  deepEqual([b.tpr!.estimate, b.spr!.estimate], [3750, 20]);
  // Exact quantiles by enumerating all 4^4 resamples (Python, itertools.product; also
  // python3 analysis/_per_resolved_reference.py, "exact cluster quantiles"): a's TPR 2.5%
  // 3250, 97.5% 32300, SPR 16 and 186; b's TPR 2.5% 1450, SPR 8.5, and no ratio with
  // probability 1/16 > 2.5%, so b is unbounded above. The Monte Carlo bounds agree.
  deepEqual([a.tpr!.lower, a.tpr!.upper, a.spr!.lower, a.spr!.upper], [3250, 32300, 16, 186]);
  deepEqual([b.tpr!.lower, b.tpr!.upper, b.spr!.lower, b.spr!.upper], [1450, null, 8.5, null]);
  // No ratio in 1/256 of a's resamples and 1/16 of b's: about 8 and 125 of 2000 rounds.
  ok(Math.abs(a.tpr!.rounds_without_resolved - 7.8) < 4 * Math.sqrt(7.8));
  ok(Math.abs(b.tpr!.rounds_without_resolved - 125) < 4 * Math.sqrt(125 * 0.9375));
  // Tokens and seconds of one agent share the resamples: the one-pass result equals
  // each column's own ratioBootstrap with the same seed.
  equal(a.tpr!.rounds_without_resolved, a.spr!.rounds_without_resolved);
  const sample = episodeSamples(rows)[0];
  const tasks = sample.task_ids;
  deepEqual(a.tpr, ratioBootstrap(sample.tokens!, sample.resolved, { tasks }));
  deepEqual(a.spr, ratioBootstrap(sample.seconds!, sample.resolved, { tasks }));
  equal(a.cost_per_resolved, null);
  // Replays byte for byte.
  equal(canonicalJson(agentRatioIntervals(rows)), canonicalJson([a, b]));
});

Deno.test("ratioBootstrap() refuses bad input", () => {
  const fails = (fn: () => unknown, text: string) =>
    throws(fn, (e: unknown) => e instanceof RangeError && e.message.includes(text));
  fails(() => ratioBootstrap([], []), "need as many outcomes as values");
  fails(() => ratioBootstrap([1, 2], [true]), "got 2 values and 1 outcomes");
  fails(() => ratioBootstrap([1, -1], [true, true]), "value 1 must be a finite number >= 0");
  fails(() => ratioBootstrap([1], [true], { rounds: 0 }), '"rounds" must be a positive integer');
  fails(
    () => ratioBootstrap([1, 2], [true, true], { tasks: ["t"] }),
    "need a task id per outcome, got 1 task ids and 2 outcomes",
  );
});

Deno.test("agentRatioIntervals() sharing draws among agents equals each agent's own ratioBootstrap", async () => {
  // The synthetic example: agents with as many tasks share one draw per round and one table of
  // tokens, seconds, money and resolved counts; then with rows dropped and repeated, so that
  // agents differ in tasks and a task's sum adds several attempts.
  const synthetic = (await loadLedger(SYNTHETIC)).rows;
  const priceTable = (await loadPriceTable(PRICES)).value;
  for (const rows of [synthetic, unevenRows(synthetic)]) {
    const samples = episodeSamples(rows, priceTable);
    const counts = samples.map((s) => new Set(s.task_ids).size);
    if (rows === synthetic) {
      ok(counts.some((c, i) => counts.indexOf(c) !== i), `agents sharing a task count: ${counts}`);
    } else ok(new Set(counts).size > 1, `agents with different task counts: ${counts}`);
    const shared = agentRatioIntervals(rows, { priceTable, rounds: 300, seed: "s" });
    samples.forEach((sample, a) => {
      const alone = (values: number[]) =>
        ratioBootstrap(values, sample.resolved, { rounds: 300, seed: "s", tasks: sample.task_ids });
      deepEqual(shared[a].tpr, alone(sample.tokens!));
      deepEqual(shared[a].spr, alone(sample.seconds!));
      deepEqual(shared[a].cost_per_resolved, alone(sample.cost!));
    });
  }
});
