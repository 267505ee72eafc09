/**
 * Whether a Slurm controller answers, and why not when it does not.
 *
 * @module
 */
import { runSlurmCommand } from "./_run_slurm_command.ts";
import { SlurmCommandError, type SlurmCommandErrorCode } from "./slurm_command_error.ts";

/** The outcome of {@linkcode slurmAvailable}. */
export type SlurmAvailability =
  | {
    available: true;
    /** Slurm's version, e.g. `"22.05.8"`. */
    version: string;
    /** Each node and its state as `sinfo` prints it, e.g. `{ vm: "idle" }` (`down*`, `drained`, `mixed`, ...). */
    nodes: Record<string, string>;
  }
  | {
    available: false;
    /**
     * `not_found`: Slurm's client tools are not installed; `no_permission`:
     * Deno may not run them (a misconfigured caller, not an absent
     * cluster); `deadline`, `failed`, `unexpected_output`: no controller
     * answered (see `SlurmCommandErrorCode`).
     */
    code: SlurmCommandErrorCode;
    reason: string;
  };

/** Options of {@linkcode slurmAvailable}. */
export interface SlurmAvailableOptions {
  /** Give up after this many milliseconds; default 5000. */
  timeoutMs?: number;
}

/**
 * Probes the cluster: `sinfo --version`, then `sinfo --noheader
 * --format=%N|%T --Node`, which asks the controller for its nodes. Never
 * throws: `code` says why no cluster is usable and `reason` what Slurm said
 * (as `dockerAvailable` does for the Docker engine). A cluster whose nodes
 * are all down still answers; see `nodes`.
 *
 * @param options the timeout of each command
 * @returns the version and node states, or the code and reason the cluster is unavailable
 */
export async function slurmAvailable(
  options: SlurmAvailableOptions = {},
): Promise<SlurmAvailability> {
  const deadlineMs = options.timeoutMs ?? 5000;
  try {
    const version = await runSlurmCommand("sinfo", ["--version"], { deadlineMs });
    const listing = await runSlurmCommand(
      "sinfo",
      ["--noheader", "--Node", "--format=%N|%T"],
      { deadlineMs },
    );
    const nodes: Record<string, string> = {};
    for (const line of listing.stdout.split("\n")) {
      const [node, state] = line.trim().split("|");
      if (node && state) nodes[node] = state;
    }
    return {
      available: true,
      version: /(\d+\.\d+\.\d+)/.exec(version.stdout)?.[1] ?? version.stdout.trim(),
      nodes,
    };
  } catch (error) {
    return error instanceof SlurmCommandError
      ? { available: false, code: error.code, reason: error.message }
      : { available: false, code: "failed", reason: `Cannot probe Slurm: ${error}` };
  }
}
