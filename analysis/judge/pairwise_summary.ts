/**
 * The summary of comparing two agents' answers task by task with the LLM
 * judge (issue 14, seed 000 §06): each task judged twice with the answers'
 * positions swapped, a verdict counting only when both runs agree, a tie
 * otherwise (Zheng et al. 2023, "Judging LLM-as-a-Judge with MT-Bench and
 * Chatbot Arena"), and the position-consistency rate.
 *
 * @module
 */
import type { PairWinner } from "../schema/records.ts";
import { swappedVerdict } from "./swapped_verdict.ts";
import { type WilsonInterval, wilsonInterval } from "../wilson_interval.ts";

/**
 * One task's comparison as recorded: the winner of each run in the
 * run's own positions (the first run shows agent a's answer as `A`, the
 * second shows agent b's as `A`), null when that run gave no usable
 * judgment; both null with an `unjudged` reason when the judge was not
 * asked (an agent had no single scored attempt, or no readable answer).
 */
export interface PairComparison {
  task_id: string;
  first: PairWinner | null;
  second: PairWinner | null;
  /** Why the judge was not asked; null when it was. */
  unjudged: string | null;
}

/** The summary; plain JSON data, keys in this order. */
export interface PairwiseSummary {
  /** The two agents, a first. */
  agents: [string, string];
  tasks: number;
  /** Tasks the judge was not asked about, with why. */
  unjudged: { task_id: string; reason: string }[];
  /** Tasks where a run gave no usable judgment (`judge_fault`): no verdict. */
  judge_faults: number;
  /** Tasks with a verdict from both runs. */
  judged: number;
  /** Tasks agent a won in both runs. */
  wins_a: number;
  /** Tasks agent b won in both runs. */
  wins_b: number;
  /** Tasks both runs called a tie. */
  ties: number;
  /** Tasks where the two runs disagreed: a tie by the rule, counted apart. */
  inconsistent: number;
  /** consistent / judged, with its Wilson 95% interval; null when nothing was judged. */
  position_consistency: {
    consistent: number;
    judged: number;
    rate: number | null;
    wilson: WilsonInterval | null;
  };
}

/**
 * Summarizes the comparisons of two agents.
 *
 * Rule: a task with both runs' winners gets {@linkcode swappedVerdict}'s
 * winner (`A` is agent a, `B` agent b); a position-inconsistent pair is a
 * tie and is counted in `inconsistent`, never in `ties` (so "both said tie"
 * and "they disagreed" stay apart); a task with a missing run is a judge
 * fault, one not asked is `unjudged`; neither enters the consistency rate.
 * O(tasks).
 *
 * @param agents the two agents, the one shown first in the first run first
 * @param comparisons one per task
 * @returns the counts and the position-consistency rate
 * @example
 * ```ts
 * import { pairwiseSummary } from "./pairwise_summary.ts";
 * const s = pairwiseSummary(["x", "y"], [
 *   { task_id: "t1", first: "A", second: "B", unjudged: null }, // x both times
 *   { task_id: "t2", first: "A", second: "A", unjudged: null }, // position bias: a tie
 * ]);
 * if (s.wins_a !== 1 || s.inconsistent !== 1 || s.position_consistency.rate !== 0.5) throw new Error();
 * ```
 */
export function pairwiseSummary(
  agents: [string, string],
  comparisons: readonly PairComparison[],
): PairwiseSummary {
  const unjudged: PairwiseSummary["unjudged"] = [];
  let faults = 0, winsA = 0, winsB = 0, ties = 0, inconsistent = 0;
  for (const c of comparisons) {
    if (c.unjudged !== null) {
      unjudged.push({ task_id: c.task_id, reason: c.unjudged });
      continue;
    }
    if (c.first === null || c.second === null) {
      faults++;
      continue;
    }
    const verdict = swappedVerdict(c.first, c.second);
    if (!verdict.consistent) inconsistent++;
    else if (verdict.winner === "A") winsA++;
    else if (verdict.winner === "B") winsB++;
    else ties++;
  }
  const judged = winsA + winsB + ties + inconsistent;
  const consistent = judged - inconsistent;
  return {
    agents,
    tasks: comparisons.length,
    unjudged,
    judge_faults: faults,
    judged,
    wins_a: winsA,
    wins_b: winsB,
    ties,
    inconsistent,
    position_consistency: {
      consistent,
      judged,
      rate: judged === 0 ? null : consistent / judged,
      wilson: judged === 0 ? null : wilsonInterval(consistent, judged),
    },
  };
}
