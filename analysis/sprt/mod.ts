/**
 * Seed 002's pre-registered sequential stopping rule (Wald's SPRT) for
 * adopt/drop decisions on a frozen task pool, as pure functions.
 *
 * The rule (seed 002, `sprt.py`): after each valid result compute
 * LLR = passes·ln(p_adopt/p_drop) + fails·ln((1 − p_adopt)/(1 − p_drop));
 * adopt at LLR ≥ ln((1 − β)/α), drop at LLR ≤ ln(β/(1 − α)); at n_cap valid
 * results still undecided, fall back to the point estimate (cap-adopt iff
 * passes/n ≥ p_adopt, else cap-drop). Invalid attempts count neither way and
 * are reported as an invalid rate. Defaults: p_adopt 0.60, p_drop 0.40,
 * α = β = 0.10, n_cap 60, so LLR = ln 1.5·(passes − fails) ≈ 0.4055·net,
 * the boundaries are ±ln 9 ≈ ±2.1972, and +6 net adopts, −6 net drops.
 *
 * What the exact computations here establish for the defaults (seed 002's
 * critique, made quantitative):
 * - `cap-adopt` can never happen: undecided at n = 60 means |net| ≤ 4, so at
 *   most 32 passes (53.3% < 60%); see {@linkcode unreachableDecisions}.
 * - At p = 0.5 only 16.66% of runs use the whole budget (P(N = 60) =
 *   0.16655797081) and 15.54% end as cap-drop; "most runs exhaust the
 *   budget" is false. See {@linkcode sprtOperatingCharacteristic}.
 * - With the cap fallback counted, P(final drop | p = 0.6) = 0.1282 exceeds
 *   β = 0.10, while P(adopt | p = 0.4) = 0.0765 stays below α.
 *
 * Functions:
 * - {@linkcode parseSprtParams}, {@linkcode sprtBoundaries}, {@linkcode sprtLlr},
 *   {@linkcode sprtDecision}: the rule;
 * - {@linkcode replaySprt}: the rule over a ledger, in pre-registered order;
 * - {@linkcode sprtOperatingCharacteristic}: exact OC by dynamic programming;
 * - {@linkcode sprtMonteCarlo}, {@linkcode calibrateSprt}: seeded simulation and its
 *   agreement with the exact values;
 * - {@linkcode unreachableDecisions}: decision branches that can never occur.
 *
 * Every result is a plain JSON-serialisable object with a fixed key order.
 *
 * @module
 */
export * from "./sprt_params.ts";
export * from "./sprt_counts.ts";
export * from "./sprt_boundaries.ts";
export * from "./sprt_llr.ts";
export * from "./sprt_decision.ts";
export * from "./replay_sprt.ts";
export * from "./sprt_operating_characteristic.ts";
export * from "./sprt_monte_carlo.ts";
export * from "./calibrate_sprt.ts";
export * from "./unreachable_decisions.ts";
