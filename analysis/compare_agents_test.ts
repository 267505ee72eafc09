import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { canonicalJson } from "./canonical_json.ts";
import {
  type ComparableAgent,
  compareAgents,
  comparisonMatrix,
  relativeDifference,
} from "./compare_agents.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { summarizeAgents } from "./summarize_agents.ts";
import { wilsonInterval } from "./wilson_interval.ts";
import { randomIndex, seededRandom } from "./seeded_random.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

function agent(
  agent_id: string,
  resolved: number,
  scored: number,
  tpr: number | null,
  spr: number | null,
): ComparableAgent {
  return { agent_id, scored, resolved, tpr, spr };
}

Deno.test("compareAgents() pins the seed-001 sample: overlap, no rate winner, b wins on TPR", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const [a, b] = summarizeAgents(rows);
  const verdict = compareAgents(a, b);
  // Seed 001: a 3/4, b 2/4; the intervals overlap, so there is no rate winner; b uses
  // fewer tokens per resolved (3750 vs 7766.67), more than 10% apart:
  // (23300 / 3 − 3750) / 3750 = 1.0711 (hand computation).
  // Intervals: this implementation's seed-7, 2000-round bounds (see bootstrap_rate_test.ts).
  deepEqual(verdict, {
    a: {
      agent_id: "a",
      scored: 4,
      resolved: 3,
      rate: 0.75,
      tpr: 23300 / 3,
      spr: 43,
      interval: { lower: 0.25, upper: 1, collapsed: false },
      wilson: null,
      rule_interval: { method: "percentile-bootstrap", lower: 0.25, upper: 1 },
      coverage_warning: verdict.a.coverage_warning,
    },
    b: {
      agent_id: "b",
      scored: 4,
      resolved: 2,
      rate: 0.5,
      tpr: 3750,
      spr: 20,
      interval: { lower: 0, upper: 1, collapsed: false },
      wilson: null,
      rule_interval: { method: "percentile-bootstrap", lower: 0, upper: 1 },
      coverage_warning: verdict.b.coverage_warning,
    },
    rule: "tpr",
    winner: "b",
    failed: [],
    intervals_overlap: true,
    tpr_relative_difference: (23300 / 3 - 3750) / 3750,
    spr_relative_difference: null,
    tie_breaks_not_recorded: [],
    band: 0.1,
    rounds: 2000,
    seed: 7,
    collapsed: false,
    interval_method: "percentile-bootstrap",
  });
  ok(Math.abs(verdict.tpr_relative_difference! - 1.0711) < 1e-4);
  // n = 4 < 30: both bootstrap intervals carry the coverage warning and the Wilson interval
  // beside them; scipy.stats.binomtest(3, 4).proportion_ci(method="wilson") ->
  // (0.30064184258240184, 0.9544127391902995), binomtest(2, 4) -> (0.15003898915214953, 0.8499610108478505).
  const [wa, wb] = [verdict.a.coverage_warning!, verdict.b.coverage_warning!];
  ok(wa.reason.startsWith("n = 4 < 30, 1 unresolved (fewer than 5): the percentile bootstrap"));
  ok(wb.reason.startsWith("n = 4 < 30, 2 resolved (fewer than 5)"));
  ok(Math.abs(wa.wilson.lower - 0.30064184258240184) < 1e-12);
  ok(Math.abs(wa.wilson.upper - 0.9544127391902995) < 1e-12);
  ok(Math.abs(wb.wilson.lower - 0.15003898915214953) < 1e-12);
  ok(Math.abs(wb.wilson.upper - 0.8499610108478505) < 1e-12);
  // The verdict does not depend on argument order.
  const swapped = compareAgents(b, a);
  deepEqual([swapped.rule, swapped.winner], ["tpr", "b"]);
});

Deno.test("compareAgents() reports failure and no ranking when an agent resolved nothing", () => {
  const a = agent("a", 3, 4, 7766.67, 43);
  const zero = agent("zero", 0, 4, null, null);
  const verdict = compareAgents(a, zero);
  // Seed 001: "如果任一 Agent 的绿色数为零，不计算 TPR。报告失败，不做排名。"
  deepEqual(
    [verdict.rule, verdict.winner, verdict.failed, verdict.intervals_overlap],
    ["no_resolved", null, ["zero"], null],
  );
  // 0/4 collapses to [0, 0]; the Wilson interval stands beside it: [0, z²/(4 + z²)] = [0, 0.48989...].
  deepEqual(verdict.b.interval, { lower: 0, upper: 0, collapsed: true });
  const w = wilsonInterval(0, 4);
  deepEqual(verdict.b.wilson, { lower: 0, upper: w.upper });
  ok(Math.abs(w.upper - 0.4898908364545973) < 1e-12);
  equal(verdict.collapsed, true);
  // Both failing: both listed. Nothing scored at all: no interval.
  const never = compareAgents(agent("p", 0, 3, null, null), agent("q", 0, 0, null, null));
  deepEqual([never.rule, never.failed, never.b.interval, never.b.rate], [
    "no_resolved",
    ["p", "q"],
    null,
    null,
  ]);
});

Deno.test("compareAgents() names a rate winner only when the intervals are separated", () => {
  // 36/40 vs 12/40: Binomial(40, 0.9) and Binomial(40, 0.3) resamples do not meet
  // (hand check: 0.9 − 2 × 0.047 ≈ 0.8 > 0.3 + 2 × 0.072 ≈ 0.45).
  const high = agent("high", 36, 40, 90000, 900);
  const low = agent("low", 12, 40, 100, 1);
  const verdict = compareAgents(low, high);
  deepEqual([verdict.rule, verdict.winner, verdict.intervals_overlap], [
    "rate_interval",
    "high",
    false,
  ]);
  ok(verdict.b.interval!.lower > verdict.a.interval!.upper);
  // The rate decides even though the winner spends 900× the tokens per resolved.
  equal(verdict.tpr_relative_difference, null);
});

Deno.test("compareAgents() decides a collapsed 100% interval by the Wilson interval beside it", () => {
  // 20/20 resamples to [1, 1]; 15/20 gives [0.55, 0.9] here (scipy.stats.binom.ppf(0.975, 20,
  // 0.75) -> 18, i.e. 0.9), so the percentile intervals are separated. The Wilson interval of
  // 20/20 printed beside it, [20 / (20 + z²), 1] = [0.8389, 1] (hand algebra), overlaps: issue 13,
  // item 5, the verdict uses the interval printed for it, so there is no rate winner.
  const verdict = compareAgents(agent("perfect", 20, 20, 100, 1), agent("good", 15, 20, 100, 1));
  deepEqual([verdict.rule, verdict.winner, verdict.collapsed, verdict.intervals_overlap], [
    "tie",
    null,
    true,
    true,
  ]);
  deepEqual(verdict.a.interval, { lower: 1, upper: 1, collapsed: true });
  deepEqual(verdict.b.interval, { lower: 0.55, upper: 0.9, collapsed: false });
  ok(Math.abs(verdict.a.wilson!.lower - 0.8388748419471806) < 1e-12);
  equal(verdict.a.wilson!.upper, 1);
  deepEqual(verdict.a.rule_interval, { method: "wilson", ...verdict.a.wilson! });
  equal(verdict.b.wilson, null);
});

Deno.test("compareAgents() gives 10/10 against 6/10 no rate winner (issue 13, item 5)", () => {
  // The audit's case: bootstrap 10/10 is [100%, 100%] and 6/10 is [30%, 90%] (separated), but
  // the Wilson interval printed beside the collapsed one, scipy.stats.binomtest(10, 10)
  // .proportion_ci(method="wilson") -> (0.7224672001371109, 1.0), overlaps; Fisher's exact p,
  // scipy.stats.fisher_exact([[10, 0], [6, 4]]) -> 0.0867. TPR and SPR equal: a tie.
  const verdict = compareAgents(agent("ten", 10, 10, 500, 5), agent("six", 6, 10, 500, 5));
  deepEqual(verdict.b.interval, { lower: 0.3, upper: 0.9, collapsed: false });
  deepEqual(verdict.a.interval, { lower: 1, upper: 1, collapsed: true });
  ok(Math.abs(verdict.a.rule_interval!.lower - 0.7224672001371109) < 1e-12);
  deepEqual([verdict.rule, verdict.winner, verdict.intervals_overlap], ["tie", null, true]);
  // The same pair under the plan's other methods: Wilson 6/10 is (0.3127, 0.8318), Clopper-Pearson
  // 10/10 is (0.6915, 1) and 6/10 (0.2624, 0.8784) (scipy binomtest ... proportion_ci): overlap.
  for (const method of ["wilson", "clopper-pearson"] as const) {
    const other = compareAgents(agent("ten", 10, 10, 500, 5), agent("six", 6, 10, 500, 5), {
      method,
    });
    deepEqual([other.rule, other.interval_method, other.a.rule_interval!.method], [
      "tie",
      method,
      method,
    ]);
    equal(other.a.coverage_warning, null);
    equal(other.a.wilson, null);
  }
  const cp = compareAgents(agent("ten", 10, 10, 500, 5), agent("six", 6, 10, 500, 5), {
    method: "clopper-pearson",
  });
  ok(Math.abs(cp.a.interval!.lower - 0.6915028921812371) < 1e-10);
  ok(Math.abs(cp.b.interval!.upper - 0.8784477418801728) < 1e-10);
});

Deno.test("compareAgents() applies the 10% band to TPR, then SPR, then calls a tie", () => {
  // Same counts, so the intervals are identical and overlap.
  // TPR 1000 vs 1090: |1090 − 1000| / 1000 = 0.09 <= 0.10 -> SPR 10 vs 12: 0.2 > 0.10 -> spr.
  const spr = compareAgents(agent("x", 5, 10, 1000, 10), agent("y", 5, 10, 1090, 12));
  deepEqual([spr.rule, spr.winner], ["spr", "x"]);
  ok(Math.abs(spr.tpr_relative_difference! - 0.09) < 1e-12);
  ok(Math.abs(spr.spr_relative_difference! - 0.2) < 1e-12);
  // A difference of exactly the band is "within" it (d > band is required): 1100 vs 1000 is
  // 0.1; SPR 10.5 vs 10 is 0.05 -> tie.
  const tie = compareAgents(agent("x", 5, 10, 1100, 10.5), agent("y", 5, 10, 1000, 10));
  deepEqual([tie.rule, tie.winner, tie.tpr_relative_difference], ["tie", null, 0.1]);
  ok(Math.abs(tie.spr_relative_difference! - 0.05) < 1e-12);
  // With band 0 the smallest TPR difference decides.
  const strict = compareAgents(agent("x", 5, 10, 1000, 10), agent("y", 5, 10, 1090, 12), {
    band: 0,
  });
  deepEqual([strict.rule, strict.winner, strict.band], ["tpr", "x", 0]);
});

Deno.test("compareAgents() treats a zero TPR against a positive one as beyond any band", () => {
  // |10 − 0| / 0 is infinite: recorded as null, and the zero side wins.
  const verdict = compareAgents(agent("x", 2, 4, 0, 5), agent("y", 2, 4, 10, 5), { band: 1e9 });
  deepEqual([verdict.rule, verdict.winner, verdict.tpr_relative_difference], ["tpr", "x", null]);
  // Both zero: equal, so SPR decides (also equal): tie.
  const tie = compareAgents(agent("x", 2, 4, 0, 5), agent("y", 2, 4, 0, 5));
  deepEqual([tie.rule, tie.tpr_relative_difference, tie.spr_relative_difference], ["tie", 0, 0]);
});

Deno.test("comparisonMatrix() compares every pair once, sorted, with one interval per agent", () => {
  const agents = [
    agent("c", 0, 4, null, null),
    agent("b", 2, 4, 3750, 20),
    agent("a", 3, 4, 23300 / 3, 43),
  ];
  const pairs = comparisonMatrix(agents);
  deepEqual(
    pairs.map((p) => [p.a.agent_id, p.b.agent_id, p.rule, p.winner]),
    [["a", "b", "tpr", "b"], ["a", "c", "no_resolved", null], ["b", "c", "no_resolved", null]],
  );
  // Each pair is the two-agent rule, and each agent's interval is the same in every pair.
  deepEqual(pairs[0], compareAgents(agents[2], agents[1]));
  deepEqual(pairs[0].a.interval, pairs[1].a.interval);
  // Input order does not matter; same seed, same bytes.
  equal(canonicalJson(comparisonMatrix([...agents].reverse())), canonicalJson(pairs));
  deepEqual(comparisonMatrix([agents[0]]), []);
});

Deno.test("compareAgents() and comparisonMatrix() refuse bad input", () => {
  const a = agent("a", 3, 4, 1, 1);
  throwsWith(() => compareAgents(a, a), RangeError, 'Cannot compare agent "a" with itself');
  throwsWith(() => comparisonMatrix([a, a]), RangeError, 'agent "a" appears twice');
  throwsWith(
    () => compareAgents(a, agent("b", 1, 4, 1, 1), { band: -0.1 }),
    RangeError,
    '"band" must be a non-negative number, got -0.1',
  );
  throwsWith(
    () => compareAgents(a, agent("b", 5, 4, 1, 1)),
    RangeError,
    'Cannot compare agent "b": "resolved" and "scored" must be integers with 0 <= resolved <= scored, got 5 and 4',
  );
});

Deno.test("relativeDifference() is null, never Infinity, when the quotient overflows", () => {
  // |1e308 − 1e-10| / 1e-10 = 1e318 > Number.MAX_VALUE: infinitely apart, as when the minimum is 0.
  equal(relativeDifference(1e308, 1e-10), null);
  equal(relativeDifference(0, 1e308), null);
  // The largest TPRs the schema allows stay finite: (2^54 − 2) / 1 ≈ 1.8e16.
  equal(relativeDifference(18014398509481982, 1), 18014398509481981);
  const verdict = compareAgents(
    agent("a", 3, 4, 1e308, 1),
    agent("b", 3, 4, 1e-10, 1),
  );
  // Same rate, so the intervals overlap; TPRs infinitely apart: b wins on TPR, and the JSON holds.
  deepEqual([verdict.rule, verdict.winner, verdict.tpr_relative_difference], ["tpr", "b", null]);
  ok(canonicalJson(verdict).includes('"tpr_relative_difference": null'));
});

Deno.test("compareAgents(): a TPR or SPR not recorded is a tie-break not used, never a zero (issue 11)", () => {
  // Overlapping intervals (2/4 and 3/4); b's tokens were not recorded, SPR decides.
  const a = agent("a", 2, 4, 100, 10);
  const b = agent("b", 3, 4, null, 30);
  const bySpr = compareAgents(a, b);
  deepEqual([bySpr.rule, bySpr.winner, bySpr.tie_breaks_not_recorded], ["spr", "a", ["tpr"]]);
  // Neither figure recorded for b: no tie-break can decide, no winner.
  const none = compareAgents(a, agent("b", 3, 4, null, null));
  deepEqual([none.rule, none.winner, none.tie_breaks_not_recorded], ["tie", null, ["tpr", "spr"]]);
  // Both recorded: nothing listed.
  deepEqual(compareAgents(a, agent("b", 3, 4, 100, 10)).tie_breaks_not_recorded, []);
});

/** An agent with the sums behind its TPR and SPR, as `summarizeAgents` gives them. */
function summed(
  agent_id: string,
  resolved: number,
  scored: number,
  tokens: number,
  wallMs: number,
): ComparableAgent {
  const wall_seconds = wallMs / 1000;
  return {
    agent_id,
    scored,
    resolved,
    tokens,
    wall_seconds,
    tpr: tokens / resolved,
    spr: wall_seconds / resolved,
  };
}

Deno.test("compareAgents() ties exactly 10% apart on TPR: 70,000 vs 77,000 over 3 (issue 13, item 1)", () => {
  // The audit's case: 77000 / 3 over 70000 / 3 is exactly 1.1, but in floating point the
  // relative difference is 0.10000000000000009 > 0.1, and the old rule named a TPR winner.
  const verdict = compareAgents(summed("a", 3, 6, 70_000, 9000), summed("b", 3, 6, 77_000, 9000));
  ok(verdict.tpr_relative_difference! > 0.1);
  deepEqual([verdict.rule, verdict.winner, verdict.spr_relative_difference], ["tie", null, 0]);
  // 1.0M vs 1.1M ties, as it did; one token more than exactly 10% decides.
  const million = compareAgents(
    summed("a", 3, 6, 1_000_000, 9000),
    summed("b", 3, 6, 1_100_000, 9000),
  );
  equal(million.rule, "tie");
  const over = compareAgents(summed("a", 3, 6, 70_000, 9000), summed("b", 3, 6, 77_001, 9000));
  deepEqual([over.rule, over.winner], ["tpr", "a"]);
  // Without the sums, the figures as written: 7000 vs 7700 is exactly 10%.
  equal(compareAgents(agent("a", 3, 6, 7000, 3), agent("b", 3, 6, 7700, 3)).rule, "tie");
});

Deno.test("compareAgents() decides every exact-10% integer case a tie and every case just over a win", () => {
  // Property: 10m and 11m tokens over the same R resolved are exactly 10% apart for any m and R
  // (TPRs 10m / R and 11m / R); one more token on b is just over. SPR likewise on integer wall_ms
  // sums 10w and 11w. With different resolved counts Ra and Rb, 10m·Ra and 11m·Rb tokens are
  // exactly 10% apart too. Hand algebra; counts drawn from seededRandom(13).
  const random = seededRandom(13);
  const draw = (max: number) => 1 + randomIndex(random, max);
  let floatFlips = 0;
  const cases = 1000;
  for (let i = 0; i < cases; i++) {
    const ra = draw(40);
    const rb = draw(40);
    const m = draw(1_000_000);
    const w = draw(100_000);
    const a = summed("a", ra, 40, 10 * m, 1000);
    const tie = compareAgents(a, summed("b", ra, 40, 11 * m, 1000));
    equal(tie.rule, "tie", `TPR 10·${m} vs 11·${m} over ${ra}`);
    if (tie.tpr_relative_difference! > 0.1) floatFlips++;
    if (sprTieFlips(ra, w)) floatFlips++;
    const overTpr = compareAgents(a, summed("b", ra, 40, 11 * m + 1, 1000));
    deepEqual([overTpr.rule, overTpr.winner], ["tpr", "a"], `TPR just over, m = ${m}`);
    const sprA = summed("a", ra, 40, 1000, 10 * w);
    const sprTie = compareAgents(sprA, summed("b", ra, 40, 1000, 11 * w));
    equal(sprTie.rule, "tie", `SPR 10·${w} vs 11·${w} ms over ${ra}`);
    const sprOver = compareAgents(sprA, summed("b", ra, 40, 1000, 11 * w + 1));
    deepEqual([sprOver.rule, sprOver.winner], ["spr", "a"], `SPR just over, w = ${w}`);
    // Different resolved counts (equal SPR), when the intervals overlap, decide the same way.
    const mixed = compareAgents(
      summed("a", ra, 40, 10 * m * ra, 1000 * ra),
      summed("b", rb, 40, 11 * m * rb, 1000 * rb),
    );
    if (mixed.intervals_overlap) equal(mixed.rule, "tie", `TPR over ${ra} vs ${rb}`);
  }
  // The floating-point quotient alone would have named a winner in a large share of them
  // (the audit: "about half").
  ok(floatFlips > cases / 2, `float flips: ${floatFlips} of ${2 * cases}`);
});

/** Whether the floating-point SPR quotient puts 10w vs 11w ms over r resolved outside 10%. */
function sprTieFlips(r: number, w: number): boolean {
  return relativeDifference(10 * w / 1000 / r, 11 * w / 1000 / r)! > 0.1;
}
