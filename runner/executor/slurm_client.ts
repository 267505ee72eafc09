/**
 * What the Slurm executor needs of Slurm, as an interface (runner/slurm
 * implements it on the real commands, `slurm_commands_client.ts`; the
 * executor's unit tests on a cluster in memory), and the states in which a
 * task may still bring its row back.
 *
 * @module
 */

/** The state of one array task, as Slurm reports it. */
export interface ArrayTaskState {
  /** `PENDING`, `RUNNING`, `COMPLETED`, `NODE_FAIL`, … (`scontrol show job`'s `JobState`). */
  state: string;
  /** Slurm's `Reason`, or null when it gives none. */
  reason: string | null;
  /** The node the task ran on, or null before it started. */
  node: string | null;
}

/** What the executor needs of Slurm (runner/slurm implements it on the real commands). */
export interface SlurmClient {
  /**
   * Submits `script` as an array of `size` tasks, indices `0..size-1`.
   *
   * @returns the job id
   */
  submitArray(
    script: string,
    options: {
      size: number;
      jobName: string;
      comment: string;
      output: string;
      cwd: string;
      /** Partition, account, time limit and further arguments; always without requeue. */
      submit: SlurmSubmitOptions;
      /** Variables every task's environment gets (never written to a file of the run's). */
      env: Record<string, string>;
    },
  ): Promise<string>;
  /** The state of each known task of the job (empty when Slurm no longer knows it). */
  taskStates(jobId: string): Promise<Map<number, ArrayTaskState>>;
  /** Cancels the whole job, or the given tasks; a job that already ended is not an error. */
  cancel(jobId: string, indices?: readonly number[]): Promise<void>;
  /** The jobs named `jobName` Slurm still has queued or running, with their comments. */
  liveJobs(jobName: string): Promise<{ jobId: string; comment: string }[]>;
}

/** Where the sbatch options of a run come from (`run --slurm-*`). */
export interface SlurmSubmitOptions {
  partition?: string;
  account?: string;
  /** Time limit of each array task, in minutes. */
  timeLimitMinutes: number;
  /** Further `sbatch` arguments, as given. */
  extraArgs: readonly string[];
}

/** States in which a task may still bring its row back (squeue(1), "JOB STATE CODES"). */
export const ACTIVE_STATES: ReadonlySet<string> = new Set([
  "PENDING",
  "CONFIGURING",
  "RUNNING",
  "COMPLETING",
  "SUSPENDED",
  "REQUEUED",
  "RESIZING",
  "SIGNALING",
  "STAGE_OUT",
]);
