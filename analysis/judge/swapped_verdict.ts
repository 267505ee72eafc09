/**
 * The verdict of a pairwise judgment made twice with the two answers'
 * positions swapped (seed 000 §06, after Zheng et al. 2023, MT-Bench).
 *
 * @module
 */
import type { PairWinner } from "../schema/records.ts";

/** The verdict of two position-swapped runs; plain JSON data, keys in this order. */
export interface SwappedVerdict {
  /** The first run's winner when both runs agree, else "tie". In the first run's labels. */
  winner: PairWinner;
  /** True when the second run, mapped back to the first run's labels, names the same winner. */
  consistent: boolean;
}

/**
 * Combines two pairwise runs whose answers swapped positions.
 *
 * Rule (seed 000 §06; Zheng et al. 2023, "Judging LLM-as-a-Judge with
 * MT-Bench and Chatbot Arena", section 3.4, position bias): the first run
 * shows answer X as A and answer Y as B, the second shows Y as A and X as
 * B. The second verdict is mapped back to the first run's labels (A ↔ B,
 * a tie stays a tie); `consistent` = the two logical winners are equal;
 * `winner` = consistent ? first : "tie". A judge that always prefers the
 * first position ("A" in both runs) is therefore never consistent. O(1).
 *
 * @param first the first run's winner, X shown as A
 * @param second the second run's winner, Y shown as A
 * @returns the winner in the first run's labels and whether the runs agreed
 * @example
 * ```ts
 * import { swappedVerdict } from "./swapped_verdict.ts";
 * // X won both times: "A" first, then "B" once X was shown second.
 * const v = swappedVerdict("A", "B");
 * if (v.winner !== "A" || !v.consistent) throw new Error(JSON.stringify(v));
 * // Position bias: "A" both times is no verdict.
 * if (swappedVerdict("A", "A").winner !== "tie") throw new Error();
 * ```
 */
export function swappedVerdict(first: PairWinner, second: PairWinner): SwappedVerdict {
  const secondInFirstLabels: PairWinner = second === "A" ? "B" : second === "B" ? "A" : "tie";
  const consistent = first === secondInFirstLabels;
  return { winner: consistent ? first : "tie", consistent };
}
