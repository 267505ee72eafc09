/**
 * Runs the `ledgerbench` CLI for the CLI integration tests and captures
 * stdout, stderr and the exit status: as a subprocess ({@linkcode cli}, the
 * same `deno run` permissions as the `ledgerbench` task in deno.json), or in
 * this test process ({@linkcode cliInProcess}: `main` of `cli/main.ts` with
 * captured output, no fresh Deno start) for behaviour that is not the
 * process's own (exit of the real binary, signals, piping stay subprocesses).
 *
 * With `LEDGERBENCH_CLI_START_LOG=FILE`, every run appends one line to FILE:
 * `fresh` or `in-process`, a tab, the arguments (to count the fresh starts).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { main } from "../cli/main.ts";

/** The repository root. */
export const ROOT = new URL("..", import.meta.url).pathname;

/** What one CLI run produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@linkcode cliCommand}. */
export interface CliOptions {
  /** Variables added to the inherited environment (after `NO_COLOR=1`). */
  env?: Record<string, string>;
}

/**
 * The command `deno run --allow-all cli/main.ts ...args` from the repository
 * root, as the `ledgerbench` task runs it (the runner's commands drive
 * Docker), with piped stdout and stderr and `NO_COLOR=1`: to spawn (and
 * signal) the CLI, or to run it with a changed environment.
 */
export function cliCommand(args: readonly string[], options: CliOptions = {}): Deno.Command {
  logStart("fresh", args);
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "cli/main.ts", ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  });
}

/** Runs {@linkcode cliCommand} to its end and decodes stdout and stderr. */
export function cli(...args: string[]): Promise<CliResult> {
  return cliWithEnv({}, ...args);
}

/**
 * {@linkcode cli} with variables added to the inherited environment (the
 * egress resolution of a test, an engine's `DOCKER_HOST`).
 *
 * @param env the variables
 * @param args the CLI's arguments
 * @returns what the CLI printed and its exit status
 */
export async function cliWithEnv(
  env: Record<string, string>,
  ...args: string[]
): Promise<CliResult> {
  const output = await cliCommand(args, { env }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The variable naming the file that {@linkcode cliCommand} and {@linkcode cliInProcess} log runs to. */
export const START_LOG_VARIABLE = "LEDGERBENCH_CLI_START_LOG";

function logStart(kind: "fresh" | "in-process", args: readonly string[]): void {
  const file = Deno.env.get(START_LOG_VARIABLE);
  if (file) Deno.writeTextFileSync(file, `${kind}\t${args.join(" ")}\n`, { append: true });
}

/**
 * {@linkcode cli} without a fresh Deno: `main` of `cli/main.ts` in this
 * process, as the subprocess would run it: from the repository root, with
 * `NO_COLOR=1`, stdout and stderr captured (and not terminals, as when
 * piped; `console` output included), an uncaught error as exit status 1
 * with `error: Uncaught ...` on stderr. Runs one at a time (the working
 * directory, the environment and `console` are the process's).
 *
 * @param args the CLI's arguments
 * @returns what the CLI printed and its exit status
 */
export function cliInProcess(...args: string[]): Promise<CliResult> {
  return cliInProcessWithEnv({}, ...args);
}

/**
 * {@linkcode cliInProcess} with variables set in the environment for the
 * run (restored after it), as {@linkcode cliWithEnv} adds them.
 *
 * @param env the variables
 * @param args the CLI's arguments
 * @returns what the CLI printed and its exit status
 */
export function cliInProcessWithEnv(
  env: Record<string, string>,
  ...args: string[]
): Promise<CliResult> {
  const result = inProcessQueue.then(() => runInProcess(env, args));
  inProcessQueue = result.catch(() => undefined);
  return result;
}

let inProcessQueue: Promise<unknown> = Promise.resolve();

async function runInProcess(env: Record<string, string>, args: string[]): Promise<CliResult> {
  logStart("in-process", args);
  let stdout = "";
  let stderr = "";
  const restore: (() => void)[] = [];
  const replace = <T extends object, K extends keyof T>(target: T, key: K, value: T[K]) => {
    const own = Object.hasOwn(target, key);
    const before = target[key];
    target[key] = value;
    restore.push(() => {
      if (own) target[key] = before;
      else delete target[key];
    });
  };
  const line = (values: unknown[]) =>
    values.map((v) => typeof v === "string" ? v : Deno.inspect(v)).join(" ") + "\n";
  try {
    for (const [name, value] of Object.entries({ NO_COLOR: "1", ...env })) {
      const before = Deno.env.get(name);
      Deno.env.set(name, value);
      restore.push(() => before === undefined ? Deno.env.delete(name) : Deno.env.set(name, before));
    }
    const cwd = Deno.cwd();
    if (cwd !== ROOT.replace(/\/$/, "")) {
      Deno.chdir(ROOT);
      restore.push(() => Deno.chdir(cwd));
    }
    // stdout and stderr piped: no terminal
    replace(Deno.stdout, "isTerminal", () => false);
    replace(Deno.stderr, "isTerminal", () => false);
    replace(console, "log", (...values: unknown[]) => void (stdout += line(values)));
    replace(console, "info", (...values: unknown[]) => void (stdout += line(values)));
    replace(console, "error", (...values: unknown[]) => void (stderr += line(values)));
    replace(console, "warn", (...values: unknown[]) => void (stderr += line(values)));
    const code = await main(args, {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
    });
    return { code, stdout, stderr };
  } catch (error) {
    // what Deno prints for an uncaught error, and its exit status
    const text = error instanceof Error ? error.stack ?? String(error) : String(error);
    return { code: 1, stdout, stderr: `${stderr}error: Uncaught (in promise) ${text}\n` };
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}

/** Hex SHA-256 of a file, computed independently of the code under test. */
export async function fileSha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

/** The seed-001 sample ledger, relative to the root (as the CLI records it). */
export const SAMPLE = "ledgers/examples/sample_ledger.jsonl";

/** One seed-001 style row as an object, with overrides. */
export function row(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    run_id: "r1",
    agent_id: "a",
    task_id: "t1",
    seed: 7,
    resolved: true,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "local-0",
    ...overrides,
  };
}

/** Writes rows (objects or raw lines) as the JSONL file `path` and returns `path`. */
export async function writeJsonl(
  path: string,
  rows: (Record<string, unknown> | string)[],
): Promise<string> {
  const text = rows.map((r) => (typeof r === "string" ? r : JSON.stringify(r)) + "\n").join("");
  await Deno.writeTextFile(path, text);
  return path;
}

/**
 * `freeze` of `suite` into `plan` for `agents` (id → image), order seed 1,
 * through the real CLI, with `extra` options after.
 *
 * @param suite the suite directory
 * @param plan the plan file to write
 * @param agents agent id → image reference
 * @param extra further options (e.g. `--model ID=MODEL`)
 * @returns what the CLI printed and its exit status
 */
export function freezeCli(
  suite: string,
  plan: string,
  agents: Record<string, string>,
  ...extra: string[]
): Promise<CliResult> {
  return cli(
    "freeze",
    "--without-agent-check",
    "the test freezes plans without an agent check",
    "--suite",
    suite,
    "--out",
    plan,
    "--order-seed",
    "1",
    ...Object.entries(agents).flatMap(([id, image]) => ["--agent", `${id}=${image}`]),
    ...extra,
  );
}

/**
 * `run` of `plan` on `suite` into `ledger` through the real CLI, each agent
 * answered by its scripted provider (`scripts`: agent id → script, written
 * as JSON beside the ledger).
 *
 * @param paths the plan, the suite and the ledger (and variables for the CLI's environment)
 * @param scripts agent id → provider script (the relay's `--provider-script` input)
 * @param extra further options (e.g. `--judge-provider-script FILE`)
 * @returns what the CLI printed and its exit status
 */
export async function runCli(
  paths: {
    plan: string;
    suite: string;
    ledger: string;
    env?: Record<string, string>;
    /** Upstream kinds by agent, for its `--provider-script ID=KIND+FILE` (absent: openai). */
    kinds?: Record<string, string>;
  },
  scripts: Record<string, unknown>,
  ...extra: string[]
): Promise<CliResult> {
  const flags: string[] = [];
  for (const [agent, script] of Object.entries(scripts)) {
    const file = `${paths.ledger}.${agent}.script.json`;
    await Deno.writeTextFile(file, JSON.stringify(script));
    const kind = paths.kinds?.[agent];
    flags.push("--provider-script", `${agent}=${kind === undefined ? "" : `${kind}+`}${file}`);
  }
  return cliWithEnv(
    paths.env ?? {},
    "run",
    "--plan",
    paths.plan,
    "--suite",
    paths.suite,
    "--ledger",
    paths.ledger,
    ...flags,
    ...extra,
  );
}
