/**
 * The manifest of a generated suite (`suite.json`): tasks with id, lane,
 * weight and limits, and a commitment to the private seed. The task files sit
 * beside it:
 *
 * ```text
 * suite.json
 * tasks/<task_id>/workspace/…      what the candidate sees (TASK.md included)
 * tasks/<task_id>/verifier/…       hidden: verify.sh and its data
 * tasks/<task_id>/answer.md        hidden: a model answer that solves the task
 * tasks/<task_id>/wrong_answer.md  hidden: a plausible answer that does not
 * ```
 *
 * Seed 000 (§01): the same seed gives byte-identical tasks, another seed
 * changes every variant; answers and verifiers live outside git, readable by
 * the owner only.
 *
 * @module
 */
import { z } from "zod";
import { Sha256 } from "../analysis/schema.ts";

/** File name of the manifest inside a suite directory. */
export const SUITE_MANIFEST = "suite.json";

const Cap = z.number().int().nonnegative().nullable();

/** Budgets one task suggests (null: no cap). */
export const TaskLimits = z.object({
  token_cap: Cap,
  step_cap: Cap,
  wall_ms_cap: Cap,
}).strict();
export type TaskLimits = z.infer<typeof TaskLimits>;

/** One task of the manifest. */
export const SuiteTaskEntry = z.object({
  task_id: z.string().regex(
    /^[a-z0-9][a-z0-9-]*$/,
    "must be lower-case letters, digits and dashes",
  ),
  lane: z.string().min(1),
  /** Lane weight divided by the number of tasks in the lane. */
  weight: z.number().nonnegative(),
  limits: TaskLimits,
}).strict();
export type SuiteTaskEntry = z.infer<typeof SuiteTaskEntry>;

/** The whole manifest. */
export const SuiteManifest = z.object({
  schema_version: z.literal(1),
  suite_id: z.string().min(1),
  /** SHA-256 of the seed text: a commitment that does not reveal a 256-bit seed. */
  seed_sha256: Sha256,
  /** True only for suites generated from a seed published on purpose (the demo). */
  public_seed: z.boolean(),
  lane_weights: z.record(z.string(), z.number().nonnegative()),
  tasks: z.array(SuiteTaskEntry).min(1),
}).strict();
export type SuiteManifest = z.infer<typeof SuiteManifest>;

/** A loaded suite: the manifest, where it lives and its content hash. */
export interface Suite {
  /** Absolute path of the suite directory. */
  dir: string;
  manifest: SuiteManifest;
  /** {@link suiteSha256} of the directory. */
  sha256: string;
}

/** Paths of one task's parts inside a suite directory. */
export interface TaskPaths {
  workspace: string;
  verifier: string;
  answer: string;
  wrong_answer: string;
}

/**
 * Where one task's files are.
 *
 * @param suiteDir the suite directory
 * @param taskId the task id
 * @returns absolute or relative paths, as `suiteDir` is
 */
export function taskPaths(suiteDir: string, taskId: string): TaskPaths {
  const root = `${suiteDir}/tasks/${taskId}`;
  return {
    workspace: `${root}/workspace`,
    verifier: `${root}/verifier`,
    answer: `${root}/answer.md`,
    wrong_answer: `${root}/wrong_answer.md`,
  };
}
