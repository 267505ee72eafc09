/**
 * The words of an agent's three scores, one wording per quantity, shared by
 * the report, its figures, the CLI commands and the notebooks, so that the
 * same words always carry the same number and a different number never
 * carries them (seed 003, "A policy for deciding when a number may ship":
 * the honest summary reports "the score across all planned tasks" as a lower
 * bound beside "the score across completed tasks only"). On the public
 * SWE-Bench Pro results one agent read "22.7% over planned tasks" in the
 * leaderboard and "scores over all tasks" at 25.0% in the pair sentences:
 * the words "over all tasks" had named two quantities. Each wording is
 * written with its number after it (`score over planned tasks 22.7%`).
 *
 * @module
 */

/**
 * The three scores' words: `planned`, resolved over the plan's (or task
 * list's) tasks, a missing or invalid task counted as not resolved, a lower
 * bound; `scored`, resolved over scored episodes, a censored one counted as
 * not resolved (the rate seed 001's intervals compare); `completed`,
 * resolved over the episodes that completed.
 *
 * @example
 * ```ts
 * import { SCORE_WORDS } from "./score_words.ts";
 * if (`${SCORE_WORDS.planned} 22.7%` !== "score over planned tasks 22.7%") throw new Error();
 * ```
 */
export const SCORE_WORDS = {
  planned: "score over planned tasks",
  scored: "resolved rate over scored episodes",
  completed: "score over completed tasks only",
} as const;
