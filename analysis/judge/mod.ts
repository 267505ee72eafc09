/**
 * The LLM judge of judge-verified tasks (issue 14; seed 000 §06 and §07):
 * open tasks no program can check are verified by a model that scores each
 * rubric dimension, while code computes the weighted total, refuses every
 * malformed reply (a missing, repeated or unknown dimension, an
 * out-of-range score: an error, never a silent 0), judges pairs twice with
 * the positions swapped (Zheng et al. 2023), and calibrates the judge
 * against a golden set of human labels before its verdicts count: agreement
 * at least 0.80 and swap consistency at least 0.90, held to the labels
 * written before the labeller saw the model's output.
 *
 * Pure like the rest of `analysis/`: no I/O, no clock, randomness only
 * through `seededRandom`.
 *
 * @module
 */
export * from "./weighted_total.ts";
export * from "./parse_judgment.ts";
export * from "./swapped_verdict.ts";
export * from "./cohen_kappa.ts";
export * from "./judge_calibration.ts";
export * from "./judge_rows.ts";
export * from "./pairwise_summary.ts";
