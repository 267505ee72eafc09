/**
 * The seeds' default parameters, defined once: the plan schema fills them
 * in, and every command, the report and the notebooks read them from here
 * (issue 10: about ten places restated them and could drift).
 *
 * @module
 */

/**
 * Seed 001's bootstrap: 2000 percentile-bootstrap rounds with seed 7
 * (`compare_agents.py`, `bootstrap_rate(..., rounds=2000, seed=7)`).
 */
export const DEFAULT_BOOTSTRAP = Object.freeze({ rounds: 2000, seed: 7 });

/**
 * Seed 001's relative tie band: cost-per-resolved figures within 10% of each
 * other are a tie.
 */
export const DEFAULT_TIE_BAND = 0.10;

/**
 * Seed 003's censoring thresholds: up to 2% censored a headline may be
 * stated; up to 10% both scores must be stated and labelled; above, only
 * budget adequacy may be discussed.
 */
export const DEFAULT_CENSORING = Object.freeze({ headline_max: 0.02, labelled_max: 0.10 });

/**
 * Seed 002's SPRT parameters (`Plan` dataclass of `sprt.py`): adopt at a
 * pass rate of 0.6, drop at 0.4, alpha = beta = 0.10, 60 valid results
 * before the cap fallback.
 */
export const DEFAULT_SPRT = Object.freeze({
  p_adopt: 0.6,
  p_drop: 0.4,
  alpha: 0.1,
  beta: 0.1,
  n_cap: 60,
});

/**
 * Seed 002's calibration of an SPRT: 20,000 Monte Carlo trials per true
 * rate with seed 7, each rate's simulated decision rates within 4 standard
 * errors of the exact operating characteristic.
 */
export const DEFAULT_CALIBRATION = Object.freeze({ trials: 20_000, seed: 7, toleranceZ: 4 });

/**
 * Seed 003's safety factor on a pilot's projection: the projected spend is
 * the pilot's per-episode spend × planned episodes × 1.25.
 */
export const DEFAULT_PILOT_SAFETY = 1.25;

/**
 * The interval methods of a resolved rate a plan may name (`interval_method`,
 * issue 13), the default first: seed 001's percentile bootstrap, Wilson's
 * score interval, Clopper and Pearson's exact interval.
 */
export const INTERVAL_METHODS = Object.freeze(
  ["percentile-bootstrap", "wilson", "clopper-pearson"] as const,
);

/**
 * The interval method of a plan without `interval_method` (issue 13): seed
 * 001's percentile bootstrap (`DEFAULT_BOOTSTRAP`), so plans frozen before
 * the field existed keep their verdicts and their hash.
 */
export const DEFAULT_INTERVAL_METHOD = INTERVAL_METHODS[0];

/**
 * Seed 000's release gates for an LLM judge (§07: "Judge 和人工的一致率要达到
 * 80%，交换位置后的一致率要达到 90%"): agreement with the human labels of a
 * golden set at least 0.80, and the same verdict after the two answers swap
 * positions in at least 0.90 of pairwise judgments.
 */
export const DEFAULT_JUDGE_GATES = Object.freeze({ human_agreement: 0.8, swap_consistency: 0.9 });

/**
 * Judge calls per judgment when a plan sets no `judge.max_attempts`: one,
 * so an unparsable reply is a `judge_fault` at once (issue 14: at most a
 * fixed, recorded number of attempts, never a silent retry).
 */
export const DEFAULT_JUDGE_MAX_ATTEMPTS = 1;
