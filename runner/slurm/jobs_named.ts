/**
 * The live jobs of a given name, from `squeue`.
 *
 * @module
 */
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { parseArrayTaskIds } from "./parse_array_task_ids.ts";
import { SlurmCommandError } from "./slurm_command_error.ts";

/** One line of `squeue`: a task of an array, the pending tasks of one, or a job that is no array. */
export interface LiveJob {
  /** The array's job id (`%F`), the one `submitJobArray` returned and `cancelJob` takes. */
  jobId: string;
  /** The task ids this line covers (`%K`, one id or a pending range); empty for a job that is no array. */
  taskIds: number[];
  /** Slurm's job state (`%T`), e.g. `PENDING`, `RUNNING`, `COMPLETING`. */
  state: string;
  /** The job's comment (`%k`); `""` when it has none. */
  comment: string;
}

/** Options of {@linkcode jobsNamed}. */
export interface JobsNamedOptions {
  /** Kill `squeue` after this many milliseconds (see `SLURM_COMMAND_DEADLINE_MS`). */
  deadlineMs?: number;
}

/**
 * Lists the jobs named `name` that Slurm has not finished (`squeue
 * --noheader --name=<name>`: pending, running, completing, suspended; a
 * finished job is no longer listed), whoever submitted them. Meant for
 * finding what a runner that died left on the cluster: submit with a job
 * name per run and the runner's identity as the comment, then cancel what
 * `jobsNamed` finds of a runner that is gone.
 *
 * @example
 * ```ts ignore
 * for (const job of await jobsNamed("ledgerbench-run1")) await cancelJob(job.jobId);
 * ```
 *
 * @param name the job name, one word, as given to `submitJobArray`
 * @param options the deadline
 * @returns one entry per line of squeue (a job array has several)
 * @throws {Error} when `name` is not one word
 * @throws {SlurmCommandError} when squeue cannot run, misses its deadline, fails,
 *   or prints a line it cannot read
 */
export async function jobsNamed(name: string, options: JobsNamedOptions = {}): Promise<LiveJob[]> {
  // deno-lint-ignore no-control-regex
  if (!/^[^\s\x00-\x1f\x7f,]{1,200}$/.test(name)) {
    throw new Error(
      `Cannot list the jobs named ${JSON.stringify(name)}: ` +
        "a job name here is 1 to 200 characters without whitespace, commas or control characters",
    );
  }
  // The comment last: it is free text and may hold the separator.
  const { command, stdout } = await runSlurmCommand(
    "squeue",
    ["--noheader", `--name=${name}`, "--format=%F|%K|%T|%k"],
    options,
  );
  return stdout.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const job = liveJobOf(line.trimEnd());
    if (job === undefined) {
      throw new SlurmCommandError(
        "unexpected_output",
        command,
        `printed ${JSON.stringify(line.slice(0, 200))}, not "jobid|taskids|STATE|comment"`,
      );
    }
    return job;
  });
}

/** One line of `squeue --format=%F|%K|%T|%k`; `undefined` when it is not one. */
function liveJobOf(line: string): LiveJob | undefined {
  const match = /^(\d{1,10})\|([^|]*)\|([A-Z][A-Z_]{0,39})\|(.*)$/.exec(line);
  if (!match) return undefined;
  let taskIds: number[];
  try {
    taskIds = match[2] === "N/A" ? [] : parseArrayTaskIds(match[2]);
  } catch {
    return undefined;
  }
  return {
    jobId: match[1],
    taskIds,
    state: match[3],
    comment: match[4] === "(null)" ? "" : match[4],
  };
}
