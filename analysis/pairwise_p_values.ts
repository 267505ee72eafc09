/**
 * Exact McNemar p-values over a pairwise matrix of paired comparisons, with
 * Holm's adjustment for the number of comparisons made (issue 13: 14 agents
 * give 91 pairs, and an unadjusted p below 0.05 is then expected by chance).
 *
 * @module
 */
import { holmAdjust } from "./binomial_test.ts";
import type { PairedComparison } from "./paired_comparison.ts";

/** One pair's McNemar test; plain JSON data, keys in this order. */
export interface PairPValue {
  /** Agent A of the pair. */
  a: string;
  /** Agent B of the pair. */
  b: string;
  /** Paired tasks only A resolved. */
  only_a: number;
  /** Paired tasks only B resolved. */
  only_b: number;
  /** only_a + only_b: the trials of the exact test. */
  discordant: number;
  /** Exact McNemar p-value of this pair alone. */
  p_value: number;
  /** Holm-adjusted p-value over all `comparisons`. */
  holm_p_value: number;
}

/** The matrix's p-values; plain JSON data, keys in this order. */
export interface PairwisePValues {
  /** Always "exact_mcnemar_holm". */
  method: "exact_mcnemar_holm";
  /** The number of comparisons m the Holm adjustment accounts for. */
  comparisons: number;
  /** One entry per comparison, in the order given. */
  pairs: PairPValue[];
}

/**
 * The exact McNemar p-value of each paired comparison and its Holm-adjusted
 * value over the whole family.
 *
 * Rule: each pair's raw p is its `mcnemar_p_value` (the two-sided binomial
 * test of only_a in only_a + only_b trials at 1/2, `pairedComparison`); the
 * family is every comparison given, m of them, and the adjusted values are
 * `holmAdjust` of the raw ones (Holm 1979: the i-th smallest raw p, from 0,
 * times m − i, made non-decreasing and capped at 1), which keeps the
 * family-wise error rate at the nominal level whatever the dependence
 * between pairs. With m = 1 the adjusted p equals the raw p. Cost: O(m log m).
 *
 * @param paired the paired comparisons of the matrix, one per pair (`pairedComparison`)
 * @returns the number of comparisons and, per pair, the counts, raw p and Holm p
 * @example
 * ```ts
 * import { pairwisePValues } from "./pairwise_p_values.ts";
 * import { pairedComparison } from "./paired_comparison.ts";
 * import { Episode } from "./schema/records.ts";
 * const row = (agent_id: string, task_id: string, resolved: boolean) => Episode.parse({
 *   run_id: "r", agent_id, task_id, seed: 7, resolved, prompt_tokens: 1,
 *   completion_tokens: 1, tool_calls: 0, wall_ms: 1, price_table_id: "p",
 * });
 * const rows = ["a", "b", "c"].flatMap((agent, i) =>
 *   [0, 1, 2, 3].map((t) => row(agent, `t${t}`, t < i + 1))
 * );
 * const pairs = [["a", "b"], ["a", "c"], ["b", "c"]] as const;
 * const result = pairwisePValues(pairs.map((pair) => pairedComparison(rows, pair)));
 * if (result.comparisons !== 3) throw new Error(JSON.stringify(result));
 * ```
 */
export function pairwisePValues(paired: readonly PairedComparison[]): PairwisePValues {
  const raw = paired.map((p) => p.mcnemar_p_value);
  const adjusted = holmAdjust(raw);
  return {
    method: "exact_mcnemar_holm",
    comparisons: paired.length,
    pairs: paired.map((p, i) => ({
      a: p.a.agent_id,
      b: p.b.agent_id,
      only_a: p.mcnemar.only_a,
      only_b: p.mcnemar.only_b,
      discordant: p.mcnemar.only_a + p.mcnemar.only_b,
      p_value: raw[i],
      holm_p_value: adjusted[i],
    })),
  };
}
