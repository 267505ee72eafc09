/**
 * The ranges of the numeric options several commands share. Those that
 * mirror a plan field (`--rounds`, `--band` and `--tie-band`, the censoring
 * thresholds, `freeze`'s caps and limits) take the plan schema's own range,
 * read from `analysis/schema.ts` by {@link schemaRange}, so that an option
 * accepts exactly what a plan may say (issue 10); where the schema has no
 * upper end a run can afford, the option adds one, named here with its
 * reason.
 *
 * @module
 */
import { Caps, CensoringPolicy, ModelLimits, Plan } from "../analysis/schema.ts";
import { type NumberRange, schemaRange } from "./_args.ts";

/**
 * Most bootstrap rounds an option takes: one round keeps one float per agent
 * (8 MB at this cap) and costs O(scored episodes); 10^12 rounds failed with
 * "Array buffer allocation failed".
 */
export const MAX_BOOTSTRAP_ROUNDS = 1_000_000;

/**
 * Longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days): a
 * longer wall cap or upstream timeout would fire at once.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Most attempts per task under `rerun-task`: each attempt is an episode in
 * Docker, so the cap bounds a run's length.
 */
export const MAX_ATTEMPTS = 100;

/** `bootstrap.rounds`: a positive integer, at most {@link MAX_BOOTSTRAP_ROUNDS}. */
export const BOOTSTRAP_ROUNDS_RANGE: NumberRange = schemaRange(
  Plan.shape.bootstrap.unwrap().shape.rounds,
  { max: MAX_BOOTSTRAP_ROUNDS },
);

/** `tie_band`: the plan schema's 0..1. */
export const TIE_BAND_RANGE: NumberRange = schemaRange(Plan.shape.tie_band);

/** `censoring.headline_max`: the plan schema's 0..1. */
export const HEADLINE_MAX_RANGE: NumberRange = schemaRange(CensoringPolicy.shape.headline_max);

/** `censoring.labelled_max`: the plan schema's 0..1. */
export const LABELLED_MAX_RANGE: NumberRange = schemaRange(CensoringPolicy.shape.labelled_max);

/** `max_attempts`: a positive integer, at most {@link MAX_ATTEMPTS}. */
export const MAX_ATTEMPTS_RANGE: NumberRange = schemaRange(Plan.shape.max_attempts, {
  max: MAX_ATTEMPTS,
});

/** `caps.token_cap` and `caps.step_cap`: the schema's non-negative safe integers. */
export const COUNT_CAP_RANGE: NumberRange = schemaRange(Caps.shape.token_cap);

/** `caps.wall_ms_cap`: a non-negative integer, at most {@link MAX_TIMER_MS}. */
export const WALL_MS_CAP_RANGE: NumberRange = schemaRange(Caps.shape.wall_ms_cap, {
  max: MAX_TIMER_MS,
});

/** `model_limits.*`: the schema's positive safe integers. */
export const MODEL_LIMIT_RANGE: NumberRange = schemaRange(ModelLimits.shape.max_output_tokens);

/** `upstream_timeout_ms`: a positive integer, at most {@link MAX_TIMER_MS}. */
export const UPSTREAM_TIMEOUT_MS_RANGE: NumberRange = schemaRange(
  Plan.shape.upstream_timeout_ms,
  { max: MAX_TIMER_MS },
);

/**
 * `--parallel` of `run` and `demo`: 1..64 episodes at once (each is a
 * candidate and a verifier container and a relay).
 */
export const PARALLEL_RANGE: NumberRange = { min: 1, max: 64, integer: true };

/** `--max-findings` of `validate` and `report`: findings listed per code, 0..1000000. */
export const MAX_FINDINGS_RANGE: NumberRange = { min: 0, max: 1_000_000, integer: true };
