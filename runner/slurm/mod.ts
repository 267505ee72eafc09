/**
 * A thin client over Slurm's command-line tools (issue 24: the `slurm`
 * executor runs a plan's episode slots as the tasks of a job array): submit
 * a job array with its script on stdin and its secret in the environment
 * (`submitJobArray`, `sbatch`), read each task's state (`arrayTaskStates`,
 * `scontrol show job -o`, parsed by `parseArrayTaskStates`), find the live
 * jobs of a run (`jobsNamed`, `squeue`), cancel a job or some of its tasks
 * (`cancelJob`, `scancel`), and probe the cluster (`slurmAvailable`,
 * `sinfo`).
 *
 * Every command runs without a shell, under a deadline
 * (`SLURM_COMMAND_DEADLINE_MS`), and fails with one `SlurmCommandError`
 * whose one-line message names the command and Slurm's stderr. Text from
 * Slurm is parsed defensively: fields are checked, and a record that cannot
 * be read is an error, never a guess.
 *
 * What the single-node test cluster (.ci/install_slurm.sh, Slurm 22.05)
 * does, captured in testdata/ by testdata/capture_fixtures.sh:
 * - `scancel` of a running task: `CANCELLED`, exit code `0:15` (SIGTERM), or
 *   `143:0` when the script's shell outlived its killed child; of a pending
 *   task: it leaves the array's records; of a whole pending array: one
 *   `CANCELLED` record for the range.
 * - `--time=1` on a longer task: `TIMEOUT`, reason `TimeLimit`, `0:15`,
 *   60 to 90 s after the start (the limit is checked every 30 s).
 * - `scontrol update nodename=... state=down` under a running task: with
 *   `--no-requeue`, `NODE_FAIL`, reason `NodeDown`, exit code `0:0` at first
 *   and `0:15` once the killed task reports back; without it the
 *   task is requeued, `PENDING` with reason `BeginTime` and `Restarts=1`,
 *   and runs again later. With `ReturnToService=2` the node, whose slurmd
 *   still answers, is back in service at once.
 *
 * @module
 */
export * from "./slurm_command_error.ts";
export { SLURM_COMMAND_DEADLINE_MS } from "./_run_slurm_command.ts";
export * from "./parse_array_task_ids.ts";
export * from "./parse_array_task_states.ts";
export * from "./sbatch_arguments.ts";
export * from "./submit_job_array.ts";
export * from "./array_task_states.ts";
export * from "./jobs_named.ts";
export * from "./cancel_job.ts";
export * from "./slurm_available.ts";
