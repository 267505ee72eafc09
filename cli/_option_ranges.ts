/**
 * The ranges of the numeric options several commands share. Those that
 * mirror a plan field (`--rounds`, `--band` and `--tie-band`, the censoring
 * thresholds, `freeze`'s caps and limits) take the plan schema's own range,
 * read from `analysis/schema.ts` by {@link schemaRange}, so that an option
 * accepts exactly what a plan may say (issue 10; the upper ends a run can
 * afford are the schema's `PLAN_LIMITS`).
 *
 * @module
 */
import { Caps, CensoringPolicy, ModelLimits, Plan } from "../analysis/schema.ts";
import { type NumberRange, schemaRange } from "./_args.ts";

/** `bootstrap.rounds`: the plan schema's 1..`PLAN_LIMITS.bootstrap_rounds`. */
export const BOOTSTRAP_ROUNDS_RANGE: NumberRange = schemaRange(
  Plan.shape.bootstrap.unwrap().shape.rounds,
);

/** `tie_band`: the plan schema's 0..1. */
export const TIE_BAND_RANGE: NumberRange = schemaRange(Plan.shape.tie_band);

/** `censoring.headline_max`: the plan schema's 0..1. */
export const HEADLINE_MAX_RANGE: NumberRange = schemaRange(CensoringPolicy.shape.headline_max);

/** `censoring.labelled_max`: the plan schema's 0..1. */
export const LABELLED_MAX_RANGE: NumberRange = schemaRange(CensoringPolicy.shape.labelled_max);

/** `max_attempts`: the plan schema's 1..`PLAN_LIMITS.max_attempts`. */
export const MAX_ATTEMPTS_RANGE: NumberRange = schemaRange(Plan.shape.max_attempts);

/** `caps.token_cap` and `caps.step_cap`: the schema's non-negative safe integers. */
export const COUNT_CAP_RANGE: NumberRange = schemaRange(Caps.shape.token_cap);

/** `caps.wall_ms_cap`: the schema's 0..`PLAN_LIMITS.timer_ms`. */
export const WALL_MS_CAP_RANGE: NumberRange = schemaRange(Caps.shape.wall_ms_cap);

/** `model_limits.*`: the schema's positive safe integers. */
export const MODEL_LIMIT_RANGE: NumberRange = schemaRange(ModelLimits.shape.max_output_tokens);

/** `upstream_timeout_ms`: the schema's 1..`PLAN_LIMITS.timer_ms`. */
export const UPSTREAM_TIMEOUT_MS_RANGE: NumberRange = schemaRange(Plan.shape.upstream_timeout_ms);

/**
 * `--parallel` of `run` and `demo`: 1..64 episodes at once (each is a
 * candidate and a verifier container and a relay).
 */
export const PARALLEL_RANGE: NumberRange = { min: 1, max: 64, integer: true };

/** `--max-findings` of `validate` and `report`: findings listed per code, 0..1000000. */
export const MAX_FINDINGS_RANGE: NumberRange = { min: 0, max: 1_000_000, integer: true };
