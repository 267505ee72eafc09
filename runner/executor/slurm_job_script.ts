/**
 * The job name and job script of a Slurm run's arrays (issue 24): every
 * array task runs `ledgerbench slot` on the request of its index.
 *
 * @module
 */

/**
 * The job name of a run's arrays, `ledgerbench-<run id>` with every
 * character but letters, digits, `.`, `_` and `-` written `_` (a name is one
 * word to Slurm), at most 64 characters: `squeue --name` finds a run's jobs.
 *
 * @param runId the run id
 * @returns the job name
 */
export function slurmJobName(runId: string): string {
  return `ledgerbench-${runId.replace(/[^A-Za-z0-9._-]/g, "_")}`.slice(0, 64);
}

/** A shell word: single-quoted, each `'` written as `'\''`. */
function shellWord(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The job script of a wave: it runs the worker on the request of its array
 * index. It names no key, and nothing secret is in it (Slurm keeps the
 * script, and `scontrol write batch_script` prints it to the job's owner).
 *
 * @param command the worker's command before the request's path
 * @param requestPrefix the requests' path before the index (`…/wave-0/slot-`)
 * @param runId the run, named in a comment
 * @param wave the wave's number, named in a comment
 * @returns the script
 */
export function slotJobScript(
  command: readonly string[],
  requestPrefix: string,
  runId: string,
  wave: number,
): string {
  return [
    "#!/bin/sh",
    `# ledgerbench: one episode slot of run ${JSON.stringify(runId)}, wave ${wave};`,
    "# the row comes back beside the request, in slot-<index>.result.json",
    `exec ${command.map(shellWord).join(" ")} ${
      shellWord(requestPrefix)
    }"$SLURM_ARRAY_TASK_ID"'.json'`,
    "",
  ].join("\n");
}
