/**
 * The `ledgerbench` command line: `deno task ledgerbench <command> [args]`.
 *
 * One file per subcommand (after denoland/deployctl); each exports `help` (an
 * example first) and `run`. Registering a command is one entry in
 * {@link COMMANDS}: its one-line summary and a lazy import of its module, so
 * that a command's dependencies load only when it runs. Exit statuses are
 * listed in `_command.ts` and in the help text below.
 *
 * @module
 */
import {
  type CommandModule,
  ExitCode,
  InputError,
  type Io,
  processIo,
  UsageError,
} from "./_command.ts";

/** A registered subcommand: its line in the command list, and its module's file. */
export interface CommandEntry {
  /** One line for the command list of `ledgerbench --help`. */
  summary: string;
  /** The command's module, beside this one; only the command that runs is loaded. */
  file: string;
}

/**
 * Imports a command's module by a computed specifier: Deno builds the module graph of every literal `import("...")`
 * at start, which loaded all the commands' dependencies (zod, vega,
 * dockerode...) for `--help` too. Each command module is type-checked on
 * its own (`deno check .`), not through this file.
 */
function loadCommand(entry: CommandEntry): Promise<CommandModule> {
  return import(new URL(`./${entry.file}`, import.meta.url).href);
}

/**
 * Every subcommand, in the order `--help` lists them, with its one-line
 * summary: the one place the summaries live, so that `--help` loads no
 * command module (issue 10: loading all of them took about 2 s).
 */
export const COMMANDS: Record<string, CommandEntry> = {
  summarize: {
    summary: "Per-agent rates, intervals, tokens/seconds/cost per resolved",
    file: "summarize.ts",
  },
  compare: {
    summary: "Seed-001 comparison rule, pairwise matrix, paired comparison",
    file: "compare.ts",
  },
  censoring: {
    summary: "Score over all vs completed tasks, censoring rate, allowed claim",
    file: "censoring.ts",
  },
  validate: {
    summary: "Check a ledger against its plan: tasks, stop reasons, caps, chain",
    file: "validate.ts",
  },
  sprt: {
    summary: "Replay a ledger through the pre-registered SPRT",
    file: "sprt.ts",
  },
  calibrate: {
    summary: "Exact and Monte Carlo operating characteristic of the SPRT",
    file: "calibrate.ts",
  },
  coverage: {
    summary: "How often the printed rate intervals cover, at each agent's n (own error)",
    file: "coverage.ts",
  },
  plan: {
    summary: "Project spend from a pilot and refuse an infeasible budget",
    file: "plan.ts",
  },
  errata: {
    summary: "Append a correction to an errata file (never the ledger)",
    file: "errata.ts",
  },
  freeze: {
    summary: "Freeze a plan (suite hash, order, images, caps, rules) before a run",
    file: "freeze.ts",
  },
  agent: {
    summary: "Check agents before a batch: one scripted episode each, no metered call refused",
    file: "agent_check.ts",
  },
  run: {
    summary: "Run or resume a frozen plan's batch in Docker, one ledger row per attempt",
    file: "run.ts",
  },
  reverify: {
    summary: "Re-verify stored artifacts with zero model calls; append errata",
    file: "reverify.ts",
  },
  show: {
    summary: "Show one episode: its row, each model call and the output tails",
    file: "show.ts",
  },
  view: {
    summary: "Browse episodes in a local page: filters, transcripts, side by side",
    file: "view.ts",
  },
  slot: {
    summary: "Run one episode slot of a cluster run on this node (what Slurm array tasks run)",
    file: "slot.ts",
  },
  demo: {
    summary: "Build images, run the demo suite for two agents in Docker, summarize",
    file: "demo.ts",
  },
  report: {
    summary: "Replayable report: Markdown, HTML, figures and summary.json",
    file: "report.ts",
  },
  import: {
    summary: "Import Inspect logs, SWE-bench reports, Harbor jobs or tables into a ledger",
    file: "import.ts",
  },
  export: {
    summary: "Export a ledger as Inspect AI .eval logs or a Harbor job, with transcripts",
    file: "export.ts",
  },
  suite: {
    summary: "Import Harbor / Terminal-Bench tasks as a suite; prove every verifier (check)",
    file: "suite.ts",
  },
  judge: {
    summary: "Calibrate the LLM judge against human labels (agreement, kappa, swap consistency)",
    file: "judge.ts",
  },
  "verify-report": {
    summary: "Check a report against the ledger it names (SHA-256, every byte)",
    file: "verify_report.ts",
  },
};

/** Help for `ledgerbench` itself, built from {@link COMMANDS} without loading any command. */
export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) =>
    `  ${name.padEnd(width)}  ${entry.summary}`
  );
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
    io.stderr(`error: Missing command\n\n${mainHelp()}`);
    return ExitCode.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(mainHelp());
    return ExitCode.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (entry === undefined) {
    io.stderr(`error: Unknown command: "${name}"\n\n${mainHelp()}`);
    return ExitCode.usage;
  }
  const command = await loadCommand(entry);
  if (wantsHelp(rest)) {
    io.stdout(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // Loaded only on this path: its wording rules load node:crypto, which --help does not need.
    const { formatProblem, LedgerError } = await import(LEDGER_ERROR) as LedgerErrorModule;
    const { lineText } = await import(UNTRUSTED_TEXT) as UntrustedTextModule;
    // A message may quote an id from a ledger: one line, no control or bidi character.
    if (error instanceof UsageError) {
      io.stderr(`error: ${lineText(error.message)}\n\n${command.help}`);
      return ExitCode.usage;
    }
    if (error instanceof LedgerError) {
      io.stderr(error.problems.map((problem) => `error: ${formatProblem(problem)}\n`).join(""));
      return ExitCode.badInput;
    }
    if (isRefusal(error)) {
      io.stderr(`error: ${lineText((error as Error).message)}\n`);
      return ExitCode.badInput;
    }
    throw error;
  }
}

/** The bad-input error module (`LedgerError`), loaded by a computed specifier only when a command failed. */
const LEDGER_ERROR = new URL("../analysis/ledger_error.ts", import.meta.url).href;
type LedgerErrorModule = typeof import("../analysis/ledger_error.ts");
/** The rule for showing untrusted text, loaded the same way. */
const UNTRUSTED_TEXT = new URL("../analysis/untrusted_text.ts", import.meta.url).href;
type UntrustedTextModule = typeof import("../analysis/untrusted_text.ts");

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
