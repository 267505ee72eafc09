/**
 * Submits a job array with `sbatch`, the script on stdin.
 *
 * @module
 */
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { type JobArraySpec, sbatchArguments } from "./sbatch_arguments.ts";
import { SlurmCommandError } from "./slurm_command_error.ts";

/** Options of {@linkcode submitJobArray}: the array, and how `sbatch` runs. */
export interface SubmitJobArrayOptions extends JobArraySpec {
  /**
   * Variables set on the `sbatch` process's environment, on top of the
   * runner's own; with `--export=ALL` they reach every task's environment.
   * This is how a secret reaches the tasks without being on a command line
   * (which `ps` shows every user) or in the script. What Slurm does with it:
   * the job's environment is stored in the controller's state directory
   * (`StateSaveLocation/hash.N/job.ID/environment`, mode 0600, owner
   * SlurmUser) until the job is purged, and is readable by the job's owner
   * through the job's processes and by the cluster's administrators.
   * `sbatch` also reads its own input variables (`SBATCH_*`) from this
   * environment; options given here win over them.
   */
  env?: Record<string, string>;
  /** Kill `sbatch` after this many milliseconds (see `SLURM_COMMAND_DEADLINE_MS`). */
  deadlineMs?: number;
}

/**
 * Submits `options.script` as one job array of `options.indices` tasks
 * (`sbatch --parsable --array=0-(n-1)[%concurrency] ... `, built by
 * `sbatchArguments`), the script on sbatch's stdin, `env` on its
 * environment. Writes no file itself; Slurm writes each task's output where
 * `outputPattern` says.
 *
 * @example
 * ```ts ignore
 * const jobId = await submitJobArray({
 *   script: "#!/bin/sh\nexec ledgerbench slot \"$SLURM_ARRAY_TASK_ID\"\n",
 *   indices: 40,
 *   concurrency: 8,
 *   jobName: "ledgerbench-run1",
 *   workDir: "/shared/run1",
 *   outputPattern: "slurm-%A_%a.log",
 *   extraArgs: ["--no-requeue"],
 *   env: { UPSTREAM_KEY: key },
 * });
 * ```
 *
 * @param options the array, the environment and the deadline
 * @returns the array's job id, e.g. `"45"` (its tasks are `45_0`, `45_1`, ...)
 * @throws {Error} when an option is out of range (see `sbatchArguments`)
 * @throws {SlurmCommandError} when sbatch cannot run, misses its deadline (a
 *   job may then have been submitted: look for it with `jobsNamed`), fails
 *   (Slurm's reason in the message), or prints no job id
 */
export async function submitJobArray(options: SubmitJobArrayOptions): Promise<string> {
  const args = sbatchArguments(options);
  const { command, stdout } = await runSlurmCommand("sbatch", args, {
    stdin: options.script,
    env: options.env,
    deadlineMs: options.deadlineMs,
  });
  // --parsable prints "jobid" or "jobid;cluster".
  const jobId = /^(\d{1,10})(?:;[\w.-]+)?$/.exec(stdout.trim())?.[1];
  if (jobId === undefined) {
    throw new SlurmCommandError(
      "unexpected_output",
      command,
      `printed ${JSON.stringify(stdout.slice(0, 200))}, not a job id`,
    );
  }
  return jobId;
}
