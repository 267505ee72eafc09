/**
 * ledgerbench's analysis: pure functions of ledger rows and parameters (no
 * file I/O, no Docker, no clock, randomness only through `seededRandom`),
 * re-exported from one entry point. Reading files is the inputs layer's job
 * (`inputs/mod.ts`). Each helper module appends its own line below.
 *
 * @module
 */
export * from "./sprt/mod.ts";
export * from "./judge/mod.ts";
// Per-agent columns, intervals and comparisons (seeds 000 and 001).
export * from "./binomial_pmf.ts";
export * from "./binomial_inverse_cdf.ts";
export * from "./bootstrap_rate.ts";
export * from "./wilson_interval.ts";
export * from "./rate_interval_with_fallback.ts";
export * from "./episode_cost.ts";
export * from "./summarize_agents.ts";
export * from "./compare_agents.ts";
export * from "./paired_comparison.ts";
// The records, problems and determinism primitives everything else builds on.
export * from "./schema/records.ts";
export * from "./schema/judge_records.ts";
export * from "./schema/ledger_file.ts";
export * from "./ledger_error.ts";
export * from "./canonical_json.ts";
export * from "./sha256_hex.ts";
export * from "./format_number.ts";
export * from "./seeded_random.ts";
export * from "./shuffle_once.ts";
// Classification, censoring, errata, validation, pilot estimate, JSON Schemas (seeds 000, 003).
export * from "./defaults.ts";
export * from "./classify_episode.ts";
export * from "./parse_verdict_line.ts";
export * from "./censoring.ts";
export * from "./errata.ts";
export * from "./validate_ledger.ts";
export * from "./pilot_estimate.ts";
export * from "./schema/json_schema.ts";
export * from "./task_coverage.ts";
export * from "./agent_standing.ts";
export * from "./ledger_view.ts";
// The rows as columns (a ledger of a million rows in a tenth of the memory of its row objects).
export * from "./row_columns.ts";
export * from "./episode_table.ts";
export * from "./row_lines.ts";
export * from "./invalid_attempts.ts";
