/**
 * The shape every subcommand shares (after denoland/deployctl): a `help` text
 * that opens with an example, and a `run` that returns the exit status.
 *
 * Exit statuses (documented in `ledgerbench --help`):
 *
 * | status | meaning |
 * |---|---|
 * | 0 | success (`--help` included) |
 * | 1 | usage error: unknown option, missing or malformed argument; help goes to stderr |
 * | 2 | bad input: a ledger, errata, plan, price-table or pilot file failed to read (each problem printed as `error: <file>:<line>: field "<f>": <msg>`), or the analysis refused the data (`error: <message>`, e.g. rows that mix price tables) |
 * | 3 | the check ran and said no: `validate` found the ledger inconsistent with its plan, `plan` refused an infeasible budget |
 *
 * @module
 */

/** Exit statuses of the CLI. */
export const ExitCode = {
  ok: 0,
  usage: 1,
  badInput: 2,
  refused: 3,
} as const;
export type ExitCode = typeof ExitCode[keyof typeof ExitCode];

/** Exit status of a batch interrupted by the operator with Ctrl-C (128 + SIGINT). */
export const INTERRUPTED = 130;

/**
 * Exit status of a batch (`run`) or a slot (`slot`) stopped by SIGTERM
 * (128 + SIGTERM). Here, not in `run.ts`, so that a Slurm task's `slot`
 * does not load the `run` command's modules (about 1.5 s of each slot's start).
 */
export const TERMINATED = 143;

/** Where a command writes; the real CLI binds these to stdout and stderr. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * A subcommand module: its help text and its entry point (its one-line
 * summary is registered in `main.ts`, so that `--help` loads no module).
 */
export interface CommandModule {
  /** Help text, an example first; printed by `--help`. */
  help: string;
  /**
   * Runs the command with the arguments after its name.
   *
   * @returns the exit status
   * @throws {UsageError} on a usage error (status 1, help on stderr)
   * @throws {LedgerError} on bad input (status 2)
   */
  run(args: string[], io: Io): Promise<number>;
}

/** A usage error: the arguments, not the input files, are at fault. */
export class UsageError extends Error {
  /** @param message sentence case, no final period */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Bad input that is not a line of a file: e.g. a pilot without usable
 * episodes. Exit status 2, printed as `error: <message>`.
 */
export class InputError extends Error {
  /** @param message sentence case, no final period; name the file when there is one */
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

/** Binds an {@link Io} to the process's stdout and stderr. */
export function processIo(): Io {
  const encoder = new TextEncoder();
  return {
    stdout: (text) => writeAll(Deno.stdout, encoder.encode(text)),
    stderr: (text) => writeAll(Deno.stderr, encoder.encode(text)),
  };
}

function writeAll(target: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += target.writeSync(bytes.subarray(written));
}

/** A command's subcommands, by their name (the command's first argument). */
export type Subcommands = Record<string, (args: string[], io: Io) => Promise<number>>;

/**
 * Runs the subcommand the first argument names (`suite import`, `judge
 * calibrate`), with the arguments after it.
 *
 * @param subcommands the command's subcommands
 * @param args the command's arguments
 * @param io where to write
 * @returns the subcommand's exit status
 * @throws {UsageError} when no subcommand, or an unknown one, is named
 */
export function runSubcommand(subcommands: Subcommands, args: string[], io: Io): Promise<number> {
  const [name, ...rest] = args;
  const expected = Object.keys(subcommands).map((s) => `"${s}"`).join(", ");
  if (name === undefined) throw new UsageError(`Missing subcommand: expected ${expected}`);
  if (!Object.hasOwn(subcommands, name)) {
    throw new UsageError(`Unknown subcommand "${name}": expected ${expected}`);
  }
  return subcommands[name](rest, io);
}
