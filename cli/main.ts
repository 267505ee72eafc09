/**
 * The `ledgerbench` command line: `deno task ledgerbench <command> [args]`.
 *
 * One file per subcommand (after denoland/deployctl); each exports `help` (an
 * example first) and `run`. Registering a command is one line in
 * {@link COMMANDS}; each module exports `summary`, `help` and `run`. Exit statuses are listed in `_command.ts` and in the help
 * text below.
 *
 * @module
 */
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import {
  type CommandModule,
  ExitCode,
  InputError,
  type Io,
  processIo,
  UsageError,
} from "./_command.ts";

/** Every subcommand, in the order `--help` lists them: one line each. */
export const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  summarize: () => import("./summarize.ts"),
  compare: () => import("./compare.ts"),
  censoring: () => import("./censoring.ts"),
  validate: () => import("./validate.ts"),
  sprt: () => import("./sprt.ts"),
  calibrate: () => import("./calibrate.ts"),
  plan: () => import("./plan.ts"),
  errata: () => import("./errata.ts"),
  freeze: () => import("./freeze.ts"),
  run: () => import("./run.ts"),
  reverify: () => import("./reverify.ts"),
  show: () => import("./show.ts"),
  demo: () => import("./demo.ts"),
  report: () => import("./report.ts"),
  "verify-report": () => import("./verify_report.ts"),
};

/** Help for `ledgerbench` itself. */
export async function mainHelp(): Promise<string> {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = [];
  for (const [name, load] of Object.entries(COMMANDS)) {
    lines.push(`  ${name.padEnd(width)}  ${(await load()).summary}`);
  }
  const list = lines.join("\n");
  return `ledgerbench: replayable analysis of agent evaluation ledgers.

Summarize the seed-001 sample ledger:
  deno task ledgerbench summarize ledgers/examples/sample_ledger.jsonl

Compare its two agents, as JSON (same ledger and seed, same bytes):
  deno task ledgerbench compare ledgers/examples/sample_ledger.jsonl --json

USAGE:
  deno task ledgerbench <COMMAND> [ARGS] [--json] [--help]

COMMANDS:
${list}

Every command prints a table by default and canonical JSON with --json
(sorted keys, 12 significant digits, the ledger's SHA-256, seeds and every
parameter recorded). "<COMMAND> --help" prints its help with examples.

EXIT STATUS:
  0  success, or --help
  1  usage error (unknown option, missing or malformed argument); help on stderr
  2  bad input: a ledger, errata, plan, price-table or pilot file could not be
     read, or an episode log is missing or altered (show); one line per
     problem: error: <file>:<line>: field "<f>": <message>
     (or error: <message> when the analysis refuses the data, e.g. rows that
     mix price tables)
  3  the check ran and said no (validate: ledger inconsistent with its plan;
     plan: projected spend exceeds the budget)
`;
}

/**
 * Runs the CLI with `args` and returns the exit status.
 *
 * @param args the command line after the script name
 * @param io where to write; defaults to the process's stdout and stderr
 */
export async function main(args: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stderr(`error: Missing command\n\n${await mainHelp()}`);
    return ExitCode.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(await mainHelp());
    return ExitCode.ok;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) {
    io.stderr(`error: Unknown command: "${name}"\n\n${await mainHelp()}`);
    return ExitCode.usage;
  }
  const command = await load();
  if (wantsHelp(rest)) {
    io.stdout(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n\n${command.help}`);
      return ExitCode.usage;
    }
    if (error instanceof LedgerError) {
      io.stderr(error.problems.map((problem) => `error: ${formatProblem(problem)}\n`).join(""));
      return ExitCode.badInput;
    }
    if (isRefusal(error)) {
      io.stderr(`error: ${(error as Error).message}\n`);
      return ExitCode.badInput;
    }
    throw error;
  }
}

/**
 * True for errors that reject the input rather than reveal a bug: an
 * {@link InputError}, or the `Error` and `RangeError` the analysis functions
 * throw on data they refuse (documented under their `@throws`).
 */
function isRefusal(error: unknown): boolean {
  if (error instanceof InputError || error instanceof RangeError) return true;
  return error instanceof Error && error.constructor === Error;
}

/** True when `--help` or `-h` appears before any `--` terminator. */
function wantsHelp(args: string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
