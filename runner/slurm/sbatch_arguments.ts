/**
 * The `sbatch` command line of a job array (pure; `submitJobArray` runs it).
 *
 * @module
 */
import { MAX_ARRAY_TASK_ID } from "./parse_array_task_ids.ts";

/** What to submit: a job array of `indices` tasks running one script (see `submitJobArray`). */
export interface JobArraySpec {
  /**
   * The job script's text, given to `sbatch` on stdin (no file on disk); it
   * starts with `#!` and an interpreter, as sbatch requires. Each task reads
   * its index from `SLURM_ARRAY_TASK_ID`. Never put a secret in it: Slurm
   * keeps the script in its state directory and `scontrol write batch_script`
   * prints it to the job's owner.
   */
  script: string;
  /** Number of tasks: task ids run from 0 to `indices - 1`. */
  indices: number;
  /** At most this many tasks run at once (`--array=...%concurrency`); unlimited when absent. */
  concurrency?: number;
  /** `--partition`; the cluster's default partition when absent. */
  partition?: string;
  /** `--account`; the user's default account when absent. */
  account?: string;
  /** `--time` of each task, whole minutes (Slurm's smallest unit); the partition's default when absent. */
  timeLimitMinutes?: number;
  /** `--job-name`: a word, no whitespace (`scontrol` prints it unquoted before the state). */
  jobName: string;
  /** `--comment`: a word, no whitespace, e.g. the identity of the submitting runner. */
  comment?: string;
  /**
   * More `sbatch` options, each one word with its value (`--qos=high`, not
   * `--qos high`: a bare word would be taken as the script's file name).
   * They come first, so the options above win over them.
   */
  extraArgs?: readonly string[];
  /** `--chdir`: the tasks' working directory, an absolute path on the nodes. */
  workDir: string;
  /**
   * `--output`: each task's stdout and stderr, a path relative to `workDir`
   * or absolute, with sbatch's patterns (`%A` the array's job id, `%a` the
   * task id), e.g. `"slurm-%A_%a.log"`.
   */
  outputPattern: string;
}

/**
 * Builds the `sbatch` arguments that submit `spec` as one job array:
 * `extraArgs`, then `--parsable` (print only the job id),
 * `--array=0-(indices-1)[%concurrency]`, `--job-name`, `--chdir`, `--output`,
 * `--export=ALL` (sbatch(1): the submitting environment goes with the job;
 * ALL is the default, given so that an `SBATCH_EXPORT` of the caller cannot
 * change it), then `--partition`, `--account`, `--time` and `--comment` when
 * given. No script file name: sbatch then reads the script from stdin.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(
 *   sbatchArguments({
 *     script: "#!/bin/sh\ntrue\n",
 *     indices: 3,
 *     concurrency: 2,
 *     jobName: "lb-run1",
 *     workDir: "/shared/run1",
 *     outputPattern: "%A_%a.log",
 *   }),
 *   [
 *     "--parsable",
 *     "--array=0-2%2",
 *     "--job-name=lb-run1",
 *     "--chdir=/shared/run1",
 *     "--output=%A_%a.log",
 *     "--export=ALL",
 *   ],
 * );
 * ```
 *
 * @param spec the array
 * @returns the arguments
 * @throws {Error} naming the option when a value is out of range or could be misread
 */
export function sbatchArguments(spec: JobArraySpec): string[] {
  if (!spec.script.startsWith("#!")) {
    refuse("script", spec.script.slice(0, 40), 'must start with "#!" and an interpreter');
  }
  wholeNumber("indices", spec.indices, 1, MAX_ARRAY_TASK_ID + 1);
  if (spec.concurrency !== undefined) wholeNumber("concurrency", spec.concurrency, 1);
  if (spec.timeLimitMinutes !== undefined) {
    wholeNumber("timeLimitMinutes", spec.timeLimitMinutes, 1);
  }
  word("jobName", spec.jobName);
  for (const name of ["partition", "account", "comment"] as const) {
    if (spec[name] !== undefined) word(name, spec[name]);
  }
  if (!spec.workDir.startsWith("/") || /[\0\n]/.test(spec.workDir)) {
    refuse("workDir", spec.workDir, "must be an absolute path on one line");
  }
  if (spec.outputPattern === "" || /[\0\n]/.test(spec.outputPattern)) {
    refuse("outputPattern", spec.outputPattern, "must be a path on one line");
  }
  for (const arg of spec.extraArgs ?? []) {
    if (!arg.startsWith("-") || /[\0\n]/.test(arg)) {
      refuse(
        "extraArgs",
        arg,
        'must hold options with their values in one word ("--qos=high"), each on one line',
      );
    }
  }
  const limit = spec.concurrency === undefined ? "" : `%${spec.concurrency}`;
  return [
    ...spec.extraArgs ?? [],
    "--parsable",
    `--array=0-${spec.indices - 1}${limit}`,
    `--job-name=${spec.jobName}`,
    `--chdir=${spec.workDir}`,
    `--output=${spec.outputPattern}`,
    "--export=ALL",
    ...spec.partition === undefined ? [] : [`--partition=${spec.partition}`],
    ...spec.account === undefined ? [] : [`--account=${spec.account}`],
    ...spec.timeLimitMinutes === undefined ? [] : [`--time=${spec.timeLimitMinutes}`],
    ...spec.comment === undefined ? [] : [`--comment=${spec.comment}`],
  ];
}

function refuse(option: string, value: unknown, rule: string): never {
  throw new Error(
    `Cannot submit the job array: option "${option}" is ${JSON.stringify(value)}: it ${rule}`,
  );
}

function wholeNumber(option: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < min || value > max) {
    refuse(option, value, `must be a whole number from ${min} to ${max}`);
  }
}

/** A value Slurm prints unquoted among `Key=Value` fields: no whitespace, no control character. */
function word(option: string, value: string) {
  // deno-lint-ignore no-control-regex
  if (!/^[^\s\x00-\x1f\x7f]{1,200}$/.test(value)) {
    refuse(option, value, "must be 1 to 200 characters without whitespace or control characters");
  }
}
