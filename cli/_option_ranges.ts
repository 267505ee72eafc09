/**
 * The ranges of the numeric options several commands share. Those that
 * mirror a plan field (`--rounds`, `--band` and `--tie-band`, the censoring
 * thresholds, `freeze`'s caps and limits) take the plan schema's own range,
 * read from `analysis/schema/records.ts` by {@link schemaRange}, so that an option
 * accepts exactly what a plan may say (issue 10; the upper ends a run can
 * afford are the schema's `PLAN_LIMITS`). A range read from a schema is read
 * on first use (`lazySchema`), so that loading this module builds no schema.
 *
 * @module
 */
import {
  Caps,
  CensoringPolicy,
  ModelLimits,
  Plan,
  PLAN_LIMITS,
} from "../analysis/schema/records.ts";
import { lazySchema } from "../analysis/schema/lazy_schema.ts";
import { DEFAULT_INTERVAL_METHOD, INTERVAL_METHODS } from "../analysis/defaults.ts";
import type { IntervalMethod } from "../analysis/rate_interval.ts";
import { choiceOption, type NumberRange, type ParsedArgs, schemaRange } from "./_args.ts";
import { UsageError } from "./_command.ts";
import { type ParamSource, pick } from "./_load.ts";

/**
 * `bootstrap.rounds`: the plan schema's 1..`PLAN_LIMITS.bootstrap_rounds`,
 * written out because the help of `summarize` names it at load, which must
 * not build the plan schema; `_args_test.ts` checks it against the schema.
 */
export const BOOTSTRAP_ROUNDS_RANGE: NumberRange = {
  min: 1,
  max: PLAN_LIMITS.bootstrap_rounds,
  integer: true,
};

/** `tie_band`: the plan schema's 0..1. */
export const TIE_BAND_RANGE: NumberRange = lazySchema(() => schemaRange(Plan.shape.tie_band));

/** `censoring.headline_max`: the plan schema's 0..1. */
export const HEADLINE_MAX_RANGE: NumberRange = lazySchema(() =>
  schemaRange(CensoringPolicy.shape.headline_max)
);

/** `censoring.labelled_max`: the plan schema's 0..1. */
export const LABELLED_MAX_RANGE: NumberRange = lazySchema(() =>
  schemaRange(CensoringPolicy.shape.labelled_max)
);

/** `max_attempts`: the plan schema's 1..`PLAN_LIMITS.max_attempts`. */
export const MAX_ATTEMPTS_RANGE: NumberRange = lazySchema(() =>
  schemaRange(Plan.shape.max_attempts)
);

/** `caps.token_cap` and `caps.step_cap`: the schema's non-negative safe integers. */
export const COUNT_CAP_RANGE: NumberRange = lazySchema(() => schemaRange(Caps.shape.token_cap));

/** `caps.wall_ms_cap`: the schema's 0..`PLAN_LIMITS.timer_ms`. */
export const WALL_MS_CAP_RANGE: NumberRange = lazySchema(() => schemaRange(Caps.shape.wall_ms_cap));

/** `model_limits.*`: the schema's positive safe integers. */
export const MODEL_LIMIT_RANGE: NumberRange = lazySchema(() =>
  schemaRange(ModelLimits.shape.max_output_tokens)
);

/** `upstream_timeout_ms`: the schema's 1..`PLAN_LIMITS.timer_ms`. */
export const UPSTREAM_TIMEOUT_MS_RANGE: NumberRange = lazySchema(() =>
  schemaRange(Plan.shape.upstream_timeout_ms)
);

/**
 * `--parallel` of `run` and `demo`: 1..64 episodes at once (each is a
 * candidate and a verifier container and a relay).
 */
export const PARALLEL_RANGE: NumberRange = { min: 1, max: 64, integer: true };

/**
 * `--parallel` of `run --executor slurm`: 1..4096 slots queued or running
 * at once (each on a node of the cluster; the run process only reads rows).
 */
export const SLURM_PARALLEL_RANGE: NumberRange = { min: 1, max: 4096, integer: true };

/** `--max-findings` of `validate` and `report`: findings listed per code, 0..1000000. */
export const MAX_FINDINGS_RANGE: NumberRange = { min: 0, max: 1_000_000, integer: true };

/** The `--interval-method` option of `summarize`, `compare` and `censoring`. */
export const INTERVAL_METHOD_OPTION = { "interval-method": { type: "string" } } as const;

/** Help lines of `--interval-method`. */
export const INTERVAL_METHOD_HELP =
  `  --interval-method M The 95% interval of the resolved rate: "${INTERVAL_METHODS[0]}"
                      (default), "${INTERVAL_METHODS[1]}" or "${INTERVAL_METHODS[2]}"; a plan's
                      "interval_method" wins, and a flag naming another is an error`;

/**
 * The interval method of a command (issue 13): a plan's `interval_method`
 * wins (absent in a plan: `percentile-bootstrap`); `--interval-method` is
 * read only when there is no plan, and a flag that names another method than
 * the plan's is a usage error naming both.
 *
 * @param values the parsed options
 * @param plan the loaded plan, or null
 * @returns the method and where it came from
 * @throws {UsageError} on an unknown method or one that conflicts with the plan's
 */
export function intervalMethodOption(
  values: ParsedArgs["values"],
  plan: Plan | null,
): { value: IntervalMethod; source: ParamSource } {
  const flag = values["interval-method"] === undefined ? undefined : choiceOption(values, {
    name: "interval-method",
    choices: INTERVAL_METHODS,
    fallback: DEFAULT_INTERVAL_METHOD,
  });
  if (plan === null) return pick({ flag }, DEFAULT_INTERVAL_METHOD);
  const planned = plan.interval_method ?? DEFAULT_INTERVAL_METHOD;
  if (flag !== undefined && flag !== planned) {
    throw new UsageError(
      `Option "--interval-method" ("${flag}") conflicts with the plan's interval_method ` +
        `("${planned}"): the plan's method is the one pre-registered`,
    );
  }
  return { value: planned, source: "plan" };
}
