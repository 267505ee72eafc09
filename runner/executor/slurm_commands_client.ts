/**
 * The {@link SlurmClient} of a real cluster: the executor's three needs on
 * Slurm's own commands (runner/slurm: `sbatch`, `scontrol show job`,
 * `scancel`).
 *
 * @module
 */
import type { SlurmClient } from "./slurm_client.ts";
import { submitJobArray } from "../slurm/submit_job_array.ts";
import { arrayTaskStates } from "../slurm/array_task_states.ts";
import { cancelJob } from "../slurm/cancel_job.ts";
import { jobsNamed } from "../slurm/jobs_named.ts";

/**
 * A client over the Slurm commands on `PATH`; every array is submitted with
 * `--no-requeue` (Slurm never runs a slot twice). The environment of `sbatch`
 * is this process's (Slurm's default `--export=ALL`), so what the run has
 * (`DOCKER_HOST`, the key or its file's name) reaches the array tasks.
 *
 * @returns the client
 */
export function slurmCommandsClient(): SlurmClient {
  return {
    submitArray: (script, options) =>
      submitJobArray({
        script,
        indices: options.size,
        jobName: options.jobName,
        comment: options.comment,
        workDir: options.cwd,
        outputPattern: options.output,
        partition: options.submit.partition,
        account: options.submit.account,
        timeLimitMinutes: options.submit.timeLimitMinutes,
        // Last among the free arguments, so a "--requeue" given there cannot win.
        extraArgs: [...options.submit.extraArgs, "--no-requeue"],
        env: options.env,
      }),
    taskStates: async (jobId) => {
      const states = await arrayTaskStates(jobId);
      return new Map(
        [...states].map(([index, task]) => [index, {
          state: task.state,
          reason: task.reason,
          node: task.nodeList === "" ? null : task.nodeList,
        }]),
      );
    },
    cancel: (jobId, indices) => cancelJob(jobId, indices),
    liveJobs: async (jobName) =>
      (await jobsNamed(jobName)).map((job) => ({ jobId: job.jobId, comment: job.comment })),
  };
}
