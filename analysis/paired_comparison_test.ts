import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { canonicalJson } from "./canonical_json.ts";
import { pairedComparison, pairedComparisons } from "./paired_comparison.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { Episode } from "./schema/records.ts";
import { wilsonInterval } from "./wilson_interval.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

function row(agent_id: string, task_id: string, resolved: boolean | null, attempt = 1): Episode {
  return Episode.parse({
    run_id: "r",
    agent_id,
    task_id,
    attempt,
    seed: 1,
    resolved,
    status: resolved === null ? "invalid" : "scored",
    invalid_reason: resolved === null ? "harness_error" : null,
    prompt_tokens: 10,
    completion_tokens: 10,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
  });
}

/** Rows for tasks where both, only a, only b or neither agent resolved. */
function discordant(both: number, onlyA: number, onlyB: number, neither: number): Episode[] {
  const rows: Episode[] = [];
  const groups: [number, boolean, boolean][] = [
    [both, true, true],
    [onlyA, true, false],
    [onlyB, false, true],
    [neither, false, false],
  ];
  let task = 0;
  for (const [count, a, b] of groups) {
    for (let i = 0; i < count; i++, task++) {
      const id = `t${String(task).padStart(4, "0")}`;
      rows.push(row("a", id, a), row("b", id, b));
    }
  }
  return rows;
}

Deno.test("pairedComparison() pins the seed-001 sample", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const result = pairedComparison(rows, ["a", "b"]);
  // Seed 001: a resolves t1, t2, t4; b resolves t1, t3. Hand computation: difference
  // 0.75 − 0.5 = 0.25; McNemar both {t1}, only a {t2, t4}, only b {t3}, neither {}.
  equal(result.tasks, 4);
  deepEqual(result.mcnemar, { only_a: 2, only_b: 1, both: 1, neither: 0 });
  deepEqual(result.excluded_tasks, []);
  // Intervals: this implementation with seed 7 and 2000 rounds. They equal the exact
  // bootstrap quantiles, found by enumerating all 4^4 resamples of the 4 tasks (Python,
  // fractions): per-task differences d = [0, 1, −1, 1] give P(mean <= −0.75) = 0.0195 and
  // P(mean <= −0.5) = 0.0742, so the 2.5% quantile is −0.5, and P(mean <= 0.75) = 0.9375,
  // so the 97.5% quantile is 1; for a, [0.25, 1]; for b, [0, 1].
  deepEqual(result.difference, { estimate: 0.25, lower: -0.5, upper: 1, collapsed: false });
  deepEqual(result.a, {
    agent_id: "a",
    attempts: 4,
    resolved_attempts: 3,
    resolved_tasks: 3,
    rate: 0.75,
    interval: { lower: 0.25, upper: 1, collapsed: false },
    wilson: null,
  });
  deepEqual(
    [result.b.rate, result.b.interval, result.b.wilson],
    [0.5, { lower: 0, upper: 1, collapsed: false }, null],
  );
  deepEqual([result.task_rule, result.rounds, result.seed], ["majority", 2000, 7]);
});

Deno.test("pairedComparison() interval matches the normal approximation on 200 tasks", () => {
  // 80 both, 40 only a, 20 only b, 60 neither: d = +1 (40), −1 (20), 0 (140). Hand
  // computation: mean 0.1, variance 60/200 − 0.01 = 0.29, standard error sqrt(0.29/200) =
  // 0.0381, so the bootstrap interval should sit near 0.1 ± 1.96 × 0.0381 = [0.0254, 0.1746].
  // Tolerance 0.015: the 2000-round quantile's own noise (about 0.0023), the 1/200 grid and
  // the normal approximation's error together stay well inside 3 grid steps.
  const result = pairedComparison(discordant(80, 40, 20, 60), ["a", "b"]);
  ok(Math.abs(result.difference!.estimate - 0.1) < 1e-15);
  ok(Math.abs(result.difference!.lower - 0.0254) < 0.015, `lower ${result.difference!.lower}`);
  ok(Math.abs(result.difference!.upper - 0.1746) < 0.015, `upper ${result.difference!.upper}`);
  deepEqual(result.mcnemar, { only_a: 40, only_b: 20, both: 80, neither: 60 });
});

Deno.test("pairedComparison() resamples the same tasks for both agents", () => {
  // 100 tasks, identical results except one task only a resolved. The difference moves
  // only with the copies of that task: Binomial(100, 0.01) copies, so its 2.5% quantile
  // is 0 (P(0) = 0.366) and its 97.5% quantile is 3/100 (scipy.stats.binom.ppf(0.975,
  // 100, 0.01) -> 3). Resampling the agents independently would give about ±0.14.
  const result = pairedComparison(discordant(50, 1, 0, 49), ["a", "b"]);
  equal(result.difference!.lower, 0);
  ok(result.difference!.upper <= 0.04, `upper ${result.difference!.upper}`);
  ok(result.a.interval!.upper - result.a.interval!.lower > 0.15);
});

Deno.test("pairedComparison() makes several attempts at a task one cluster", () => {
  const rows = [
    row("a", "t1", true, 1),
    row("a", "t1", true, 2),
    row("a", "t1", false, 3),
    row("a", "t2", false),
    row("a", "t3", true, 1),
    row("a", "t3", false, 2),
    row("b", "t1", true),
    row("b", "t2", true),
    row("b", "t3", false),
  ];
  const majority = pairedComparison(rows, ["a", "b"]);
  // Hand computation: per-task means for a are 2/3, 0, 1/2, so rate a = (2/3 + 0 + 1/2) / 3
  // = 7/18 (pooled attempts would give 3/6 = 0.5); rate b = 2/3; difference 7/18 − 12/18 = −5/18.
  ok(Math.abs(majority.a.rate! - 7 / 18) < 1e-15);
  ok(Math.abs(majority.difference!.estimate - -5 / 18) < 1e-15);
  deepEqual([majority.a.attempts, majority.a.resolved_attempts], [6, 3]);
  // Majority: t1 (2 of 3) resolved, t3 (1 of 2) not. Pairs: t1 both, t2 only b, t3 neither.
  deepEqual(majority.mcnemar, { only_a: 0, only_b: 1, both: 1, neither: 1 });
  equal(majority.a.resolved_tasks, 1);
  // Any: t3 counts for a too, so t3 becomes "only a".
  const any = pairedComparison(rows, ["a", "b"], { taskRule: "any" });
  deepEqual(any.mcnemar, { only_a: 1, only_b: 1, both: 1, neither: 0 });
  equal(any.task_rule, "any");
  // The rate and its interval do not depend on the task rule.
  deepEqual(any.difference, majority.difference);
});

Deno.test("pairedComparison() lists tasks excluded because only one agent has scored rows", () => {
  const rows = [
    row("a", "t1", true),
    row("b", "t1", false),
    row("a", "t2", true), // only a attempted
    row("b", "t3", true), // only b attempted
    row("a", "t4", true),
    row("b", "t4", null), // b's attempt was invalid: not scored
    row("a", "t5", null),
    row("b", "t5", null), // both invalid
    row("c", "t6", true), // another agent: ignored
  ];
  const result = pairedComparison(rows, ["a", "b"]);
  equal(result.tasks, 1);
  deepEqual(result.excluded_tasks, [
    { task_id: "t2", scored_by: ["a"] },
    { task_id: "t3", scored_by: ["b"] },
    { task_id: "t4", scored_by: ["a"] },
    { task_id: "t5", scored_by: [] },
  ]);
  deepEqual(result.mcnemar, { only_a: 1, only_b: 0, both: 0, neither: 0 });
});

Deno.test("pairedComparison() reports Wilson intervals beside collapsed ones", () => {
  // Both agents resolve all 12 tasks: every resample gives 1, 1 and a difference of 0.
  const result = pairedComparison(discordant(12, 0, 0, 0), ["a", "b"]);
  deepEqual(result.difference, { estimate: 0, lower: 0, upper: 0, collapsed: true });
  deepEqual(result.a.interval, { lower: 1, upper: 1, collapsed: true });
  // Wilson over the 12 tasks: [12 / (12 + z²), 1] = [0.7575..., 1] (hand algebra).
  const w = wilsonInterval(12, 12);
  deepEqual(result.a.wilson, { lower: w.lower, upper: 1 });
  ok(Math.abs(w.lower - 12 / (12 + 1.959963984540054 ** 2)) < 1e-12);
  deepEqual(result.b.wilson, result.a.wilson);
  // At 0%: a resolves nothing, b everything.
  const apart = pairedComparison(discordant(0, 0, 5, 0), ["a", "b"]);
  deepEqual(apart.a.wilson, { lower: 0, upper: wilsonInterval(0, 5).upper });
  deepEqual(apart.difference, { estimate: -1, lower: -1, upper: -1, collapsed: true });
});

const SYNTHETIC = new URL("../ledgers/examples/synthetic_ledger.jsonl", import.meta.url).pathname;

Deno.test("pairedComparison() gives the audit's exact McNemar p on the synthetic example", async () => {
  const { rows } = await loadLedger(SYNTHETIC);
  const result = pairedComparison(rows, ["agent-alpha", "agent-beta"]);
  // Issue 13 (the audit): exact McNemar p 0.143 on the synthetic example, which
  // `compare --paired --agents agent-alpha,agent-beta` documents; 24 vs 14 discordant tasks.
  deepEqual(result.mcnemar, { only_a: 24, only_b: 14, both: 32, neither: 14 });
  // scipy.stats.binomtest(24, 38, 0.5).pvalue -> 0.14330665429588407
  ok(Math.abs(result.mcnemar_p_value - 0.14330665429588407) < 1e-12, `${result.mcnemar_p_value}`);
  equal(result.mcnemar_p_value.toFixed(3), "0.143");
});

Deno.test("pairedComparison() McNemar p: seed-001 sample, no discordant task, a lopsided split", async () => {
  const { rows } = await loadLedger(SAMPLE);
  // 2 vs 1 discordant: scipy.stats.binomtest(2, 3, 0.5).pvalue -> 1.0
  equal(pairedComparison(rows, ["a", "b"]).mcnemar_p_value, 1);
  // no discordant task: nothing to test, p = 1
  equal(pairedComparison(discordant(3, 0, 0, 2), ["a", "b"]).mcnemar_p_value, 1);
  // 0 vs 10: hand computation 2 / 2^10 = 0.001953125 (scipy.stats.binomtest(0, 10, 0.5))
  equal(pairedComparison(discordant(0, 0, 10, 0), ["a", "b"]).mcnemar_p_value, 2 / 1024);
});

Deno.test("pairedComparison() has nulls without paired tasks and stable bytes", () => {
  const lonely = pairedComparison([row("a", "t1", true), row("b", "t2", false)], ["a", "b"]);
  deepEqual(
    [lonely.tasks, lonely.difference, lonely.a.rate, lonely.a.interval, lonely.b.wilson],
    [0, null, null, null, null],
  );
  equal(lonely.excluded_tasks.length, 2);
  // Row order does not matter; the same seed gives the same bytes.
  const rows = discordant(30, 7, 4, 9);
  equal(
    canonicalJson(pairedComparison([...rows].reverse(), ["a", "b"])),
    canonicalJson(pairedComparison(rows, ["a", "b"])),
  );
});

Deno.test("pairedComparison() refuses bad input", () => {
  const rows = [row("a", "t1", true), row("b", "t1", true)];
  throwsWith(
    () => pairedComparison(rows, ["a", "a"]),
    RangeError,
    'Cannot compare agent "a" with itself',
  );
  throwsWith(() => pairedComparison(rows, ["a", "z"]), RangeError, 'no rows for agent "z"');
  throwsWith(
    () => pairedComparison(rows, ["a", "b"], { rounds: 0 }),
    RangeError,
    '"rounds" must be a positive integer, got 0',
  );
  throwsWith(
    () => pairedComparison(rows, ["a", "b"], { taskRule: "best" as "any" }),
    RangeError,
    '"taskRule" must be "majority" or "any", got "best"',
  );
});

Deno.test("pairedComparison({bootstrap: false}) gives the same counts and McNemar p without the bootstrap", async () => {
  const { rows } = await loadLedger("ledgers/examples/synthetic_ledger.jsonl");
  const full = pairedComparison(rows, ["agent-alpha", "agent-beta"]);
  const counts = pairedComparison(rows, ["agent-alpha", "agent-beta"], { bootstrap: false });
  deepEqual(counts.mcnemar, full.mcnemar);
  equal(counts.mcnemar_p_value, full.mcnemar_p_value);
  deepEqual([counts.a.interval, counts.b.interval, counts.difference], [null, null, null]);
});

Deno.test("pairedComparisons() equals pairedComparison() pair by pair", () => {
  const agents = ["a", "b", "c"];
  // Rows interleaved across agents and tasks, some invalid, some tasks attempted twice.
  const rows = Array.from({ length: 90 }, (_, i) => {
    const resolved = i % 7 === 0 ? null : (i * 5) % 3 === 0;
    return row(agents[i % 3], `t${(i * 7) % 23}`, resolved, 1 + (i % 2));
  });
  const pairs = [["a", "b"], ["c", "a"], ["b", "c"]] as const;
  const options = { rounds: 200, seed: 3, taskRule: "any" as const };
  deepEqual(
    canonicalJson(pairedComparisons(rows, pairs, options)),
    canonicalJson(pairs.map((pair) => pairedComparison(rows, pair, options))),
  );
  throwsWith(() => pairedComparisons(rows, [["a", "z"]]), RangeError, 'no rows for agent "z"');
});
