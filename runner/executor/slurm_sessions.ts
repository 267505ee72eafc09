/**
 * The session directories of a Slurm run (one per runner process,
 * `<run dir>/<host>-<pid>-<start>/`, its `jobs` file listing the arrays it
 * submitted) and the two sweeps over them: the jobs of runners that are
 * gone, cancelled when a run starts; an array this runner's failed `sbatch`
 * submitted all the same, cancelled on the spot.
 *
 * @module
 */
import type { SlurmClient } from "./slurm_client.ts";
import { slurmJobName } from "./slurm_job_script.ts";
import { parseRunnerLabel, runnerAlive } from "../runner_identity.ts";
import { removeTree } from "../sandbox/remove_tree.ts";

/** What the two sweeps need: the client, the run, and where to report. */
export interface SessionSweepOptions {
  client: SlurmClient;
  runId: string;
  note?: (message: string) => void;
}

/**
 * Cancels every live job of the run that this runner submitted (its
 * comment is this runner's label) but did not record in its `jobs` file:
 * an array whose `sbatch` failed after Slurm had taken it.
 *
 * @param options client, run and where to report
 * @param session this runner's session directory (its `jobs` file)
 * @param label this runner's label, the comment of its jobs
 */
export async function cancelUnrecorded(
  options: SessionSweepOptions,
  session: string,
  label: string,
): Promise<void> {
  try {
    const recorded = new Set(
      (await Deno.readTextFile(`${session}/jobs`).catch(() => "")).split("\n"),
    );
    for (const job of await options.client.liveJobs(slurmJobName(options.runId))) {
      if (job.comment === label && !recorded.has(job.jobId)) {
        await options.client.cancel(job.jobId);
        options.note?.(`cancelled Slurm job ${job.jobId}, submitted although sbatch failed`);
      }
    }
  } catch (error) {
    options.note?.(
      `warning: cannot look for a job submitted although sbatch failed: ${
        (error as Error).message
      }`,
    );
  }
}

/**
 * Cancels the jobs of, and removes, each session directory of the run whose
 * runner is gone (`<host>-<pid>-<start>` names a process no longer running
 * on this host); a live runner's, or another host's, is never touched.
 *
 * @param runDir the run's directory of sessions
 * @param options client, run and where to report
 */
export async function removeDeadSessions(
  runDir: string,
  options: SessionSweepOptions,
): Promise<void> {
  for await (const entry of Deno.readDir(runDir)) {
    const match = /^(.+)-(\d+)-(\d+)$/.exec(entry.name);
    if (!entry.isDirectory || match === null) continue;
    const runner = parseRunnerLabel(`${match[1]}/${match[2]}/${match[3]}`);
    if (runner === null || runnerAlive(runner)) continue;
    const dir = `${runDir}/${entry.name}`;
    let jobs: string[] = [];
    try {
      jobs = (await Deno.readTextFile(`${dir}/jobs`)).split("\n").filter((id) => id !== "");
    } catch {
      jobs = [];
    }
    for (const job of jobs) await options.client.cancel(job);
    await removeTree(dir);
    options.note?.(
      `removed the slots of runner ${entry.name} of run "${options.runId}", which is gone` +
        (jobs.length === 0 ? "" : ` (its Slurm jobs ${jobs.join(", ")} cancelled)`),
    );
  }
}
