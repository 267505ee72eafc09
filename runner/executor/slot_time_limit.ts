/**
 * The Slurm time limit of an episode slot (issue 24: "Slurm's `TIMEOUT` on a
 * slot is a harness fault unless the episode's own wall cap fired first").
 * A slot must outlive its episode's wall cap, so that the cap, not Slurm,
 * ends an agent that runs too long: the default is the plan's longest wall
 * cap plus {@link SLOT_OVERHEAD_MINUTES} for the node's checks, the
 * containers and the verifier, and a limit given that is not longer than
 * the longest wall cap is refused before anything is submitted.
 *
 * @module
 */
import type { Plan } from "../../analysis/schema/records.ts";
import type { Suite } from "../../analysis/schema/suite_manifest.ts";
import { effectiveCaps, RUNNER_WALL_MS } from "../effective_caps.ts";

/** Minutes a slot gets beyond its episode's wall cap: checks, containers, verifier. */
export const SLOT_OVERHEAD_MINUTES = 30;

/** A `--slurm-time` that would let Slurm cut episodes before their own wall cap. */
export class SlotTimeLimitError extends Error {
  /** @param message the refusal */
  constructor(message: string) {
    super(message);
    this.name = "SlotTimeLimitError";
  }
}

/**
 * The time limit, in whole minutes, of every slot of `plan`.
 *
 * @param plan the plan's tasks and caps
 * @param suite the suite, for the tasks' own limits
 * @param given the operator's limit in minutes, or undefined for the default
 * @returns the limit
 * @throws {SlotTimeLimitError} when `given` is not longer than the plan's longest wall cap
 * @example
 * ```ts ignore
 * slotTimeLimit(plan, suite, undefined); // 5-minute caps → 35
 * ```
 */
export function slotTimeLimit(plan: Plan, suite: Suite, given: number | undefined): number {
  const limits = new Map(suite.manifest.tasks.map((task) => [task.task_id, task.limits]));
  let longestMs = 0;
  for (const task of plan.tasks) {
    // Every task of the plan is in the suite: checkEnvironment refused the run otherwise.
    const caps = effectiveCaps(plan.caps, limits.get(task.task_id)!);
    longestMs = Math.max(longestMs, caps.wall_ms_cap ?? RUNNER_WALL_MS);
  }
  const capMinutes = Math.ceil(longestMs / 60_000);
  if (given === undefined) return capMinutes + SLOT_OVERHEAD_MINUTES;
  if (given <= capMinutes) {
    throw new SlotTimeLimitError(
      `Option "--slurm-time" ${given} min is not longer than the plan's longest wall cap ` +
        `(${capMinutes} min): Slurm would cut episodes before their own cap; give at least ` +
        `${capMinutes + 1} (the default is ${capMinutes + SLOT_OVERHEAD_MINUTES})`,
    );
  }
  return given;
}
