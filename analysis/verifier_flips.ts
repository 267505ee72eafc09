/**
 * How often a task's verifier gave the unexpected verdict when `suite check
 * --repeat N` ran its oracle and an untouched workspace N times each: a
 * verifier whose verdict flips between identical runs would otherwise turn
 * into an agent's failure (seed 000: a failure of the harness is not a
 * failure of the agent; flaky tests are the recurring complaint of SWE-bench
 * users, and no harness of the field measures them before a run). Pure.
 *
 * @module
 */
import { clopperPearsonInterval } from "./clopper_pearson.ts";

/** One program's verdicts over the repeated runs. */
export interface ProgramVerdicts {
  /** Runs it was resolved. */
  resolved: number;
  /** Runs it was scored and not resolved. */
  not_resolved: number;
  /** Runs with no verdict: invalid, or no row (the batch halted). */
  no_verdict: number;
}

/** What the repeated runs of one task showed. */
export interface RepeatedCheck {
  /** Runs per program. */
  runs: number;
  /** The oracle's verdicts; null when the task has no oracle. */
  oracle: ProgramVerdicts | null;
  /** The untouched workspace's verdicts. */
  no_change: ProgramVerdicts;
  /** Runs (of both programs) whose verdict was not the expected one. */
  unexpected: number;
  /** Runs of both programs. */
  verdicts: number;
  /** `unexpected / verdicts`, with its exact (Clopper-Pearson) 95% interval. */
  flip_rate: { rate: number; lower: number; upper: number };
  /** Some program gave the expected verdict in one run and another in a different run. */
  flipped: boolean;
  /** Flipped, and each program gave its expected verdict at least once (the only fault is the flips). */
  flake_only: boolean;
}

/**
 * The repeated check of one task: the oracle is expected resolved and the
 * untouched workspace scored not resolved, every run; any other verdict
 * (a verifier fault or no row included) is unexpected.
 *
 * Rule: the flip rate is the share of unexpected verdicts over all runs of
 * both programs, with the Clopper-Pearson exact 95% interval (Clopper &
 * Pearson 1934, `clopperPearsonInterval`), so 0 unexpected of 20 still says
 * the rate may be as high as 16.8%.
 *
 * @param oracle the oracle's verdicts, or null when the task has none
 * @param noChange the untouched workspace's verdicts
 * @returns the counts, the rate and its interval, and whether the verdict flipped
 * @throws {RangeError} when the programs' run counts differ or are zero
 * @example
 * ```ts
 * import { repeatedCheck } from "./verifier_flips.ts";
 * import { equal } from "node:assert/strict";
 * const check = repeatedCheck(
 *   { resolved: 4, not_resolved: 1, no_verdict: 0 },
 *   { resolved: 0, not_resolved: 5, no_verdict: 0 },
 * );
 * equal(check.unexpected, 1);
 * equal(check.flipped, true);
 * // scipy.stats.binomtest(1, 10).proportion_ci(method="exact").high -> 0.4450161170
 * equal(check.flip_rate.upper.toFixed(10), "0.4450161170");
 * ```
 */
export function repeatedCheck(
  oracle: ProgramVerdicts | null,
  noChange: ProgramVerdicts,
): RepeatedCheck {
  const runs = total(noChange);
  if (runs === 0 || (oracle !== null && total(oracle) !== runs)) {
    throw new RangeError(
      `Cannot summarize a repeated check: every program needs the same positive number of runs`,
    );
  }
  const programs = [
    ...(oracle === null ? [] : [{ verdicts: oracle, expected: oracle.resolved }]),
    { verdicts: noChange, expected: noChange.not_resolved },
  ];
  const verdicts = runs * programs.length;
  const unexpected = programs.reduce((sum, p) => sum + runs - p.expected, 0);
  const flipped = programs.some((p) => p.expected > 0 && p.expected < runs);
  const { lower, upper } = clopperPearsonInterval(unexpected, verdicts);
  return {
    runs,
    oracle,
    no_change: noChange,
    unexpected,
    verdicts,
    flip_rate: { rate: unexpected / verdicts, lower, upper },
    flipped,
    flake_only: flipped && oracle !== null && programs.every((p) => p.expected > 0),
  };
}

function total(verdicts: ProgramVerdicts): number {
  return verdicts.resolved + verdicts.not_resolved + verdicts.no_verdict;
}
