import { deepEqual, equal, ok } from "node:assert/strict";
import { pairedComparison } from "./paired_comparison.ts";
import { pairwisePValues } from "./pairwise_p_values.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { Episode } from "./schema/records.ts";

const SYNTHETIC = new URL("../ledgers/examples/synthetic_ledger.jsonl", import.meta.url).pathname;

function close(actual: number, expected: number, what: string): void {
  ok(
    Math.abs(actual - expected) <= 1e-12 * Math.max(1, expected),
    `${what}: ${actual} != ${expected}`,
  );
}

Deno.test("pairwisePValues() pins the synthetic example's six pairs (scipy, Holm by hand)", async () => {
  const { rows } = await loadLedger(SYNTHETIC);
  const ids = ["agent-alpha", "agent-beta", "agent-delta", "agent-gamma"];
  const pairs: [string, string][] = [];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) pairs.push([ids[i], ids[j]]);
  }
  const result = pairwisePValues(
    pairs.map((pair) => pairedComparison(rows, pair, { rounds: 1 })),
  );
  equal(result.method, "exact_mcnemar_holm");
  equal(result.comparisons, 6);
  // Counts as `compare --paired` prints them; raw p: scipy.stats.binomtest(only_a,
  // only_a + only_b, 0.5).pvalue (scipy 1.17.1); Holm: sorted raw p × (6 − rank),
  // running maximum, capped at 1, computed in Python from those values.
  const expected: [number, number, number, number][] = [
    [24, 14, 0.14330665429588407, 0.33420867318305636],
    [38, 10, 6.169640777642373e-05, 0.0003701784466585424],
    [26, 10, 0.011330984183587134, 0.04779939428317448],
    [31, 13, 0.009559878856634896, 0.04779939428317448],
    [21, 15, 0.4050322461407632, 0.4050322461407632],
    [18, 30, 0.11140289106101878, 0.33420867318305636],
  ];
  result.pairs.forEach((pair, i) => {
    const [onlyA, onlyB, p, holm] = expected[i];
    deepEqual([pair.a, pair.b], pairs[i]);
    deepEqual([pair.only_a, pair.only_b, pair.discordant], [onlyA, onlyB, onlyA + onlyB]);
    close(pair.p_value, p, `${pair.a} vs ${pair.b} raw`);
    close(pair.holm_p_value, holm, `${pair.a} vs ${pair.b} Holm`);
  });
});

Deno.test("pairwisePValues() counts 91 comparisons for 14 agents", () => {
  // Agent i resolves tasks 0..i of 20, so pair (i, j) has j − i discordant tasks, all for j.
  const rows: Episode[] = [];
  const ids = Array.from({ length: 14 }, (_, i) => `agent-${String(i).padStart(2, "0")}`);
  ids.forEach((agent_id, i) => {
    for (let t = 0; t < 20; t++) {
      rows.push(Episode.parse({
        run_id: "r",
        agent_id,
        task_id: `t${String(t).padStart(2, "0")}`,
        seed: 1,
        resolved: t <= i,
        prompt_tokens: 1,
        completion_tokens: 1,
        tool_calls: 0,
        wall_ms: 1,
        price_table_id: "p",
      }));
    }
  });
  const pairs: [string, string][] = [];
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) pairs.push([ids[i], ids[j]]);
  }
  const result = pairwisePValues(
    pairs.map((pair) => pairedComparison(rows, pair, { rounds: 1 })),
  );
  // Issue 13: 14 agents give 91 comparisons.
  equal(result.comparisons, 91);
  const find = (a: string, b: string) => result.pairs.find((p) => p.a === a && p.b === b)!;
  // 0 vs 13: scipy.stats.binomtest(0, 13, 0.5).pvalue -> 0.000244140625 (= 2^-12); the
  // smallest of 91, so Holm multiplies it by 91 -> 0.022216796875.
  close(find("agent-00", "agent-13").p_value, 0.000244140625, "raw 0-13");
  close(find("agent-00", "agent-13").holm_p_value, 0.022216796875, "Holm 0-13");
  // 0 vs 7: raw 2^-6 = 0.015625 (scipy), Holm 1 (Python, from the 91 raw values)
  close(find("agent-00", "agent-07").p_value, 0.015625, "raw 0-7");
  equal(find("agent-00", "agent-07").holm_p_value, 1);
});

Deno.test("pairwisePValues() of one comparison leaves its p unadjusted; of none is empty", () => {
  const row = (agent_id: string, task_id: string, resolved: boolean) =>
    Episode.parse({
      run_id: "r",
      agent_id,
      task_id,
      seed: 1,
      resolved,
      prompt_tokens: 1,
      completion_tokens: 1,
      tool_calls: 0,
      wall_ms: 1,
      price_table_id: "p",
    });
  const rows = [0, 1, 2, 3, 4].flatMap((t) => [row("a", `t${t}`, true), row("b", `t${t}`, false)]);
  const one = pairwisePValues([pairedComparison(rows, ["a", "b"], { rounds: 1 })]);
  // 5 vs 0: 2 / 2^5 = 0.0625 (scipy.stats.binomtest(5, 5, 0.5).pvalue)
  equal(one.comparisons, 1);
  close(one.pairs[0].p_value, 0.0625, "raw");
  equal(one.pairs[0].holm_p_value, one.pairs[0].p_value);
  deepEqual(pairwisePValues([]), { method: "exact_mcnemar_holm", comparisons: 0, pairs: [] });
});
