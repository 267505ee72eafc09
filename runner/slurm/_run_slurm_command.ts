/**
 * Runs one Slurm client command under a deadline (private to this folder).
 *
 * @module
 */
import { SlurmCommandError } from "./slurm_command_error.ts";

/**
 * Deadline of one Slurm command: six times Slurm's default `MessageTimeout`
 * of 10 s, the time a client waits for the controller before it retries
 * (slurm.conf(5)); `sbatch` itself retries a busy controller for a while.
 */
export const SLURM_COMMAND_DEADLINE_MS = 60_000;

/** Options of {@linkcode runSlurmCommand}. */
export interface RunSlurmCommandOptions {
  /** Text written to the command's stdin (then closed); stdin is empty otherwise. */
  stdin?: string;
  /** Variables added to the inherited environment of the command. */
  env?: Record<string, string>;
  /** Kill the command after this many milliseconds; default {@linkcode SLURM_COMMAND_DEADLINE_MS}. */
  deadlineMs?: number;
}

/** What a command that exited 0 printed. */
export interface SlurmCommandOutput {
  /** The command line, for messages. */
  command: string;
  stdout: string;
  /** stderr on one line (warnings of a command that succeeded). */
  stderr: string;
}

/**
 * Runs `command` with `args` (never through a shell), feeds it `stdin`, and
 * kills it with SIGKILL at the deadline.
 *
 * @param command the program, e.g. `"sbatch"`
 * @param args its arguments
 * @param options stdin, environment, deadline
 * @returns the command line, stdout and stderr of a command that exited 0
 * @throws {SlurmCommandError} `not_found`, `no_permission`, `deadline`, or
 *   `failed` (a non-zero exit, with Slurm's stderr in the message)
 */
export async function runSlurmCommand(
  command: string,
  args: readonly string[],
  options: RunSlurmCommandOptions = {},
): Promise<SlurmCommandOutput> {
  const line = commandLine(command, args);
  const deadlineMs = options.deadlineMs ?? SLURM_COMMAND_DEADLINE_MS;
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(command, {
      args: [...args],
      stdin: options.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      env: options.env,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SlurmCommandError(
        "not_found",
        line,
        `cannot run: "${command}" is not on PATH (install Slurm's client tools, see .ci/install_slurm.sh)`,
      );
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new SlurmCommandError(
        "no_permission",
        line,
        `may not run: ${oneLine(String((error as Error).message))} (run Deno with --allow-run)`,
      );
    }
    throw error;
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch {
      // It exited between the deadline and the kill.
    }
  }, deadlineMs);
  try {
    const output = child.output();
    if (options.stdin !== undefined) {
      const writer = child.stdin.getWriter();
      try {
        await writer.write(new TextEncoder().encode(options.stdin));
        await writer.close();
      } catch {
        // The command exited without reading all of stdin: its exit status says why.
      }
    }
    const result = await output;
    const decoder = new TextDecoder();
    const stderr = oneLine(decoder.decode(result.stderr));
    if (timedOut) {
      throw new SlurmCommandError(
        "deadline",
        line,
        `did not finish within ${deadlineMs} ms and was killed: the Slurm controller is lost or stalled`,
        { exitCode: null, stderr },
      );
    }
    if (result.code !== 0) {
      throw new SlurmCommandError(
        "failed",
        line,
        `exited with status ${result.code}: ${stderr === "" ? "(nothing on stderr)" : stderr}`,
        { exitCode: result.code, stderr },
      );
    }
    return { command: line, stdout: decoder.decode(result.stdout), stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** The command line as a person would type it, for messages. */
function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args]
    .map((word) => /^[\w@%+=:,./\[\]-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
}

/** Text on one line, at most 1,000 characters (stderr can be long). */
function oneLine(text: string): string {
  const line = text.split(/\r?\n/).map((part) => part.trim()).filter((part) => part !== "")
    .join("; ");
  return line.length > 1000 ? `${line.slice(0, 1000)}…` : line;
}
