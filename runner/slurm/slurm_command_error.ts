/**
 * The one error of the Slurm client: a command that could not run, missed
 * its deadline, failed, or answered what the client cannot read.
 *
 * @module
 */

/**
 * Why a Slurm command gave no usable answer:
 * - `not_found`: the program is not on `PATH` (Slurm's client tools are not
 *   installed here);
 * - `no_permission`: Deno may not run it (the caller lacks `--allow-run`);
 * - `deadline`: it did not finish within its deadline and was killed (the
 *   controller is lost or stalled); an `sbatch` killed so may still have
 *   submitted its job;
 * - `failed`: it exited non-zero (Slurm's message is in `stderr`);
 * - `unexpected_output`: it succeeded but printed what the client cannot parse.
 */
export type SlurmCommandErrorCode =
  | "not_found"
  | "no_permission"
  | "deadline"
  | "failed"
  | "unexpected_output";

/** A Slurm command that gave no usable answer; `code` says why, the message says it in one line. */
export class SlurmCommandError extends Error {
  /** Why (see {@linkcode SlurmCommandErrorCode}). */
  readonly code: SlurmCommandErrorCode;
  /** The command line, e.g. `scontrol show job -o 42`. */
  readonly command: string;
  /** The command's exit code; `null` when it did not exit by itself. */
  readonly exitCode: number | null;
  /** What the command wrote on stderr, on one line. */
  readonly stderr: string;

  /**
   * @param code why the command gave no usable answer
   * @param command the command line
   * @param detail the rest of the message (what went wrong)
   * @param result the exit code and stderr, when the command ran
   */
  constructor(
    code: SlurmCommandErrorCode,
    command: string,
    detail: string,
    result: { exitCode: number | null; stderr: string } = { exitCode: null, stderr: "" },
  ) {
    super(`Slurm command "${command}" ${detail}`);
    this.name = "SlurmCommandError";
    this.code = code;
    this.command = command;
    this.exitCode = result.exitCode;
    this.stderr = result.stderr;
  }
}
