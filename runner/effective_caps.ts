/**
 * The caps that apply to one episode.
 *
 * @module
 */
import type { Caps } from "../analysis/schema/records.ts";
import type { TaskLimits } from "../analysis/schema/suite_manifest.ts";

/** The runner's wall cap when neither the plan nor the task sets one (seed 002). */
export const RUNNER_WALL_MS = 300_000;

/**
 * Merges the plan's caps with a task's own limits.
 *
 * Rule: per field, the plan's value when it is not null, else the task's
 * limit (which may itself be null: no cap). The result is recorded in the
 * row's `caps`. O(1).
 *
 * @param plan the plan's caps
 * @param task the task's limits from the suite manifest
 * @returns the caps of the episode
 * @example
 * ```ts
 * import { effectiveCaps } from "./effective_caps.ts";
 * const caps = effectiveCaps(
 *   { token_cap: 5000, step_cap: null, wall_ms_cap: null },
 *   { token_cap: 20000, step_cap: 10, wall_ms_cap: null },
 * );
 * if (caps.token_cap !== 5000 || caps.step_cap !== 10 || caps.wall_ms_cap !== null) throw new Error();
 * ```
 */
export function effectiveCaps(plan: Caps, task: TaskLimits): Caps {
  return {
    token_cap: plan.token_cap ?? task.token_cap,
    step_cap: plan.step_cap ?? task.step_cap,
    wall_ms_cap: plan.wall_ms_cap ?? task.wall_ms_cap,
  };
}
