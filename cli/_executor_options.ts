/**
 * `run`'s executor options (issue 24): `--executor local|slurm` and the
 * `--slurm-*` options of a Slurm run, parsed into the runner's
 * `ExecutorChoice` (runner/run_plan.ts).
 *
 * @module
 */
import type { SlotUpstreamOptions } from "../analysis/schema/executor_slot.ts";
import type { ExecutorChoice } from "../runner/run_plan.ts";
import { slurmCommandsClient } from "../runner/executor/slurm_commands_client.ts";
import { type NumberOption, numberOption, stringOption } from "./_args.ts";
import { UsageError } from "./_command.ts";

/** The executors `--executor` names. */
export const EXECUTORS = ["local", "slurm"] as const;
/** One of {@link EXECUTORS}. */
export type ExecutorName = typeof EXECUTORS[number];

/** `--slurm-time`: minutes per slot. */
const SLURM_TIME: NumberOption = {
  name: "slurm-time",
  range: { min: 1, max: 525_600, integer: true },
};

/** The options, for `run`'s option table. */
export const EXECUTOR_OPTIONS = {
  executor: { type: "string" },
  "slurm-partition": { type: "string" },
  "slurm-account": { type: "string" },
  "slurm-time": { type: "string" },
  "slurm-arg": { type: "string", multiple: true },
  "slurm-dir": { type: "string" },
} as const;

/** Their help lines. */
export const EXECUTOR_HELP =
  `  --executor local|slurm  Where episodes run (default local: this machine).
                       slurm: each slot a task of a Slurm job array, run by
                       "ledgerbench slot" on its node with the node's own
                       engine (Docker or Podman), relay and sandbox; rows come
                       back through --slurm-dir and this process alone
                       appends them. --parallel is the number of slots queued
                       or running at once. The node reads the key from its
                       environment (Slurm keeps a job's environment, visible
                       to you and the administrators) or, better, from the
                       file LEDGERBENCH_UPSTREAM_KEY_FILE names (chmod 600)
  --slurm-partition P  sbatch --partition
  --slurm-account A    sbatch --account
  --slurm-time MIN     Time limit per slot in minutes (default: the plan's
                       longest wall cap + 30); not longer than that cap is
                       refused: Slurm must never cut an episode before its cap
  --slurm-arg ARG      A further sbatch argument, e.g. --slurm-arg=--qos=low (repeat)
  --slurm-dir DIR      The shared directory every node sees at the same path
                       (default: slurm/ beside the ledger; the ledger's
                       directory, the plan, the suite and this checkout must
                       be on the shared file system too)`;

/**
 * The executor `--executor` names.
 *
 * @param values the parsed options
 * @returns the executor, `local` when absent
 * @throws {UsageError} for another name
 */
export function executorOption(values: Record<string, unknown>): ExecutorName {
  const given = stringOption(values as never, "executor") ?? "local";
  if (!(EXECUTORS as readonly string[]).includes(given)) {
    throw new UsageError(
      `Option "--executor" must be one of ${EXECUTORS.map((name) => `"${name}"`).join(", ")}, ` +
        `got "${given}"`,
    );
  }
  return given as ExecutorName;
}

/**
 * Refuses `--slurm-*` options on a local run (they would be ignored).
 *
 * @param values the parsed options
 * @throws {UsageError} naming the first one given
 */
export function refuseSlurmOptions(values: Record<string, unknown>): void {
  for (const name of Object.keys(EXECUTOR_OPTIONS)) {
    if (name.startsWith("slurm-") && values[name] !== undefined) {
      throw new UsageError(`Option "--${name}" needs "--executor slurm"`);
    }
  }
}

/**
 * The Slurm executor the options describe, over the real Slurm commands.
 *
 * @param values the parsed options
 * @param run the ledger (its directory holds `slurm/` by default) and the upstream options
 * @returns the runner's executor choice
 * @throws {UsageError} for a bad `--slurm-time`
 */
export function slurmExecutorChoice(
  values: Record<string, string | string[] | boolean | undefined>,
  run: { ledger: string; upstreams: SlotUpstreamOptions },
): ExecutorChoice {
  const ledgerDir = run.ledger.includes("/")
    ? run.ledger.slice(0, run.ledger.lastIndexOf("/")) || "/"
    : ".";
  const dir = stringOption(values, "slurm-dir") ?? `${ledgerDir}/slurm`;
  return {
    kind: "slurm",
    dir: dir.startsWith("/") ? dir : `${Deno.cwd()}/${dir}`,
    client: slurmCommandsClient(),
    submit: {
      partition: stringOption(values, "slurm-partition"),
      account: stringOption(values, "slurm-account"),
      timeLimitMinutes: numberOption(values, SLURM_TIME),
      extraArgs: (values["slurm-arg"] as string[] | undefined) ?? [],
    },
    upstreams: run.upstreams,
    workerCommand: [
      Deno.execPath(),
      "run",
      "--allow-all",
      new URL("./main.ts", import.meta.url).pathname,
      "slot",
    ],
  };
}
