/**
 * `ledgerbench suite check SUITE` (issue 12): every task's oracle must be
 * resolved and an untouched workspace must not, both run in the Docker
 * sandbox through the normal episode path with zero model calls
 * (runner/suite_check.ts). The subcommand of `suite.ts`.
 *
 * @module
 */
import { lineText } from "../analysis/untrusted_text.ts";
import { plural } from "../report/format.ts";
import { numberOption, parseCommandArgs, rangeText, textOption } from "./_args.ts";
import type { RepeatedCheck } from "../analysis/verifier_flips.ts";
import { fitTable, outputWidth, TableContext, WIDTH_OPTION } from "./_table_layout.ts";
import { ExitCode, InputError, type Io } from "./_command.ts";
import { emit } from "./_output.ts";
import { nextStep } from "./_next_step.ts";
import { dirname, join } from "node:path";
import { AGENT_NETWORK_OPTIONS, agentEgressOption } from "./_agent_network.ts";
import { loadSuite } from "../inputs/suite.ts";

/**
 * `--repeat`: 1..100 runs of each program per task (each run is two
 * episodes per task; a hundred finds a flip rate of a few percent).
 */
const REPEAT_RANGE = { min: 1, max: 100, integer: true };

/** The help lines of `suite check`, for `suite --help`. */
export const CHECK_HELP = `  check SUITE     Prove every task's verifier before a run: the oracle
                  (solution/solve.sh, run in the task's sandbox with /solution
                  mounted) must be resolved and an agent that changes nothing must
                  not, both through the normal episode path with zero model calls.
                  The check's plan, ledger and check.json go beside the suite, in
                  SUITE.check/<time>/; "freeze" refuses a suite whose last check
                  failed or is older than the suite (--without-suite-check REASON
                  overrides, and the plan records it). Exit 3 when a task fails.
                  --build-network MODE as for freeze (the RUN steps' network when
                  an environment is built; "host" on an engine without a bridge).
                  --repeat N (${rangeText(REPEAT_RANGE)}, default 1) runs each task's
                  oracle and untouched workspace N times: a verdict that differs
                  between runs fails the task as "flaky", with each task's flip rate
                  (unexpected verdicts over all runs) and its exact 95% interval;
                  freeze --accept-flaky TASK records a flaky task by name instead.
                  --agent-allow-host HOST, --agent-allow-any-public-host and
                  --agent-no-network as for freeze (what the oracle of a task that
                  asks for the internet may reach; its requests are recorded).`;

/**
 * Runs `suite check SUITE [--json]`: prints one line per task (`ok` or
 * `FAIL` with its problems) and where the check was written.
 *
 * @param args the arguments after `check`
 * @param io where to write
 * @returns 0 when every task passed, 3 when one failed or no engine answers
 * @throws {InputError} when the suite, an image or an environment is missing
 */
export async function runCheck(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    "build-network": { type: "string" },
    repeat: { type: "string" },
    ...AGENT_NETWORK_OPTIONS,
    ...WIDTH_OPTION,
  }, { required: ["SUITE"] });
  const width = outputWidth(values);
  const [suiteDir] = positionals;
  const { BuildNetwork, BUILD_NETWORK_FORM } = await import("../runner/task_environments.ts");
  const buildNetwork = textOption(values, {
    name: "build-network",
    schema: BuildNetwork,
    form: BUILD_NETWORK_FORM,
  });
  const repeat = numberOption(values, { name: "repeat", range: REPEAT_RANGE });
  const suite = await loadSuite(suiteDir);
  const agentEgress = agentEgressOption(values, suite);
  for (const warning of agentEgress.warnings) io.stderr(`warning: ${warning}\n`);
  const { dockerAvailable } = await import("../runner/docker/docker_available.ts");
  const engine = await dockerAvailable();
  if (!engine.available) {
    io.stderr(
      `error: Cannot check the suite: ${engine.reason} (the check runs in the Docker sandbox)\n`,
    );
    return ExitCode.refused;
  }
  const { runSuiteCheck, SuiteCheckError } = await import("../runner/suite_check.ts");
  const { TaskEnvironmentError } = await import("../runner/task_environments.ts");
  let outcome;
  try {
    outcome = await runSuiteCheck(suite, {
      log: (line) => io.stderr(`${line}\n`),
      buildNetwork,
      repeat,
      agentEgress: agentEgress.record,
    });
  } catch (error) {
    if (error instanceof TaskEnvironmentError || error instanceof SuiteCheckError) {
      throw new InputError(error.message);
    }
    throw error;
  }
  const { summary, dir } = outcome;
  emit(io, {
    json: values.json === true,
    width,
    payload: { ...summary, dir },
    render: () => {
      const failed = summary.tasks.filter((task) => !task.passed);
      const repeated = summary.tasks.some((task) => task.repeats !== undefined);
      return [
        fitTable(
          new TableContext(width),
          [
            { header: "task", id: true, key: true, keyed: true },
            { header: "oracle", priority: 1 },
            { header: "no change", priority: 1 },
            ...(repeated ? [{ header: "flips (95% exact)", priority: 2 }] : []),
            { header: "check", priority: 0 },
          ],
          summary.tasks.map((task) => [
            task.task_id,
            episodeWords(task.oracle),
            episodeWords(task.no_change),
            ...(repeated ? [flipWords(task.repeats)] : []),
            task.passed ? "ok" : task.repeats?.flipped ? "FLAKY" : "FAIL",
          ]),
        ).trimEnd(),
        ...failed.flatMap((task) =>
          task.problems.map((problem) => lineText(`${task.task_id}: ${problem}`))
        ),
        `${summary.passed ? "passed" : "FAILED"}: ${
          plural(summary.tasks.length - failed.length, "task")
        } of ${summary.tasks.length} proven; suite ${summary.suite_sha256}`,
        `written: ${dir}`,
        ...(summary.passed
          ? [
            nextStep({
              command: ["freeze"],
              options: [
                ["--suite", suiteDir],
                ["--out", join(dirname(suiteDir), "plan.json")],
                ["--agent", "ID=IMAGE"],
              ],
            }, width),
          ]
          : [""]),
      ].join("\n");
    },
  });
  return summary.passed ? ExitCode.ok : ExitCode.refused;
}

/** A task's unexpected verdicts over its runs and the exact interval of their rate: `1/10 (0.3–44.5%)`. */
function flipWords(repeats: RepeatedCheck | undefined): string {
  if (repeats === undefined) return "";
  const percent = (x: number) => `${(100 * x).toFixed(1)}`;
  return `${repeats.unexpected}/${repeats.verdicts} ` +
    `(${percent(repeats.flip_rate.lower)}–${percent(repeats.flip_rate.upper)}%)`;
}

function episodeWords(
  episode: { status: string; resolved: boolean | null; invalid_reason: string | null },
): string {
  if (episode.status === "invalid") return `invalid (${episode.invalid_reason})`;
  if (episode.status === "missing") return "no row";
  return episode.resolved ? "resolved" : "not resolved";
}
