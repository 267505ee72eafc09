/**
 * `suite check`: before any model call is spent, every task's
 * verifier is proven against a known fix and against no change at all. For
 * each task two episodes run through the normal episode path
 * (`createEpisodeExecutor`, the Docker sandbox, the relay, the verifier in
 * its own container, the classification, the ledger), with two runner-owned
 * programs in place of an agent, neither of which makes a model call:
 *
 * - `oracle` runs the task's `solution/solve.sh` (mounted read-only at
 *   `/solution`, executed directly) on the workspace: it must be resolved;
 * - `no-change` exits at once: the untouched workspace must not be resolved.
 *
 * Any other outcome fails the task: a solution the verifier rejects, a
 * verifier that passes the untouched workspace, a verifier fault (a setup
 * that crashes: seed 000's 89-point incident, found here and not in a formal
 * batch), a harness fault. The results go beside the suite, never into it
 * (the suite's hash is unchanged): `<suite>.check/<time>/` holds, per task,
 * `tasks/<task_id>/plan.json` and `ledger.jsonl` (one batch per task, so a
 * verifier fault, which halts a batch, stops only its task's check), the
 * artifacts and episode logs, and `check.json`, the summary `freeze` reads
 * (`suiteCheckState`).
 *
 * Each failing problem of a verifier that ran (the oracle not resolved, the
 * untouched workspace resolved, a verifier fault) ends with the last lines
 * of the verifier's output, read from the episode's log
 * (`verifierOutputLines`: the last 5 non-empty lines of its stderr, else of
 * its stdout, each at most 200 characters, escaped), so the test run's own
 * failure is seen without rerunning anything.
 *
 * With `repeat` N > 1 each task's batch runs N times (each run its own
 * ledger beside the task's plan), and the task's entry counts every run's
 * verdicts with the flip rate and its exact interval (`repeatedCheck`): a
 * verdict that is unexpected in some run fails the task, marked "flaky"
 * when another run gave the expected one, so a flaky verifier is found
 * before it becomes an agent's failure.
 *
 * @module
 */
import { VERIFIER_IMAGE } from "./docker/build_images.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import type { Episode, Plan } from "../analysis/schema/records.ts";
import { isExecutableFile } from "../inputs/suite.ts";
import { describeError } from "./episode_row.ts";
import { openEpisodeLog } from "./episode_log_store.ts";
import { verifierOutputLines } from "./verifier_output_lines.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { imageDigest } from "./docker/image_digest.ts";
import { checkEnvironment } from "./environment_check.ts";
import { freezePlan, writePlan } from "./freeze_plan.ts";
import type { ProgressSink } from "./progress.ts";
import { runBatch } from "./run_batch.ts";
import { createEpisodeExecutor } from "./run_episode.ts";
import { newResultDir } from "./newest_results.ts";
import { createRunTempDir } from "./run_temp_dir.ts";
import { runnerVersion } from "./runner_version.ts";
import { createDockerSandbox } from "./sandbox/docker_sandbox.ts";
import { RUNNER_PROGRAM_AGENTS, type RunnerProgram } from "./sandbox/episode_sandbox.ts";
import {
  judgedTaskIds,
  stepPaths,
  type Suite,
  taskPaths,
} from "../analysis/schema/suite_manifest.ts";
import {
  prepareServiceEnvironments,
  prepareTaskEnvironments,
  prepareVerifierEnvironments,
} from "./task_environments.ts";
import { type ProgramVerdicts, repeatedCheck } from "../analysis/verifier_flips.ts";
import {
  CHECK_SUMMARY,
  type CheckEpisode,
  checksDir,
  type SuiteCheckSummary,
  type TaskCheck,
} from "./suite_check_state.ts";

/** The image the runner's programs run in for a task without its own environment. */
export const CHECK_IMAGE = "ledgerbench/base:latest";

/** The verifier image a check runs (`freeze`'s default). */

/** The check cannot start: an image it runs is absent. */
export class SuiteCheckError extends Error {
  /** @param message one sentence naming the image */
  constructor(message: string) {
    super(message);
    this.name = "SuiteCheckError";
  }
}

/** Options of {@link runSuiteCheck}. */
export interface SuiteCheckOptions {
  /** Where this runner's temporary files go; default the system's. */
  tempDir?: string;
  progress?: ProgressSink;
  /** Stops starting episodes. */
  signal?: AbortSignal;
  /** A line per environment built and per task checked, for the operator. */
  log?: (line: string) => void;
  /** The network of the environments' builds (`prepareTaskEnvironments`); default the engine's. */
  buildNetwork?: string;
  /**
   * How many times each task's oracle and untouched workspace run (default
   * 1): with more, each task's flip rate is measured (`repeatedCheck`) and
   * a verdict that flips fails the task.
   */
  repeat?: number;
  /** What the oracle of a task with an `agent_network` may reach, as a plan's agents would. */
  agentEgress?: Plan["agent_egress"];
}

/** The check with where it was written. */
export interface SuiteCheckOutcome {
  summary: SuiteCheckSummary;
  /** The check's directory (`<suite>.check/<time>`). */
  dir: string;
}

/**
 * Runs the check of a suite (see the module doc) on the local engine and
 * writes its plan, ledger and summary beside it.
 *
 * @param suite the loaded suite (`loadSuite`)
 * @param options temporary directory, progress, signal, log
 * @returns the summary and the check's directory
 * @throws {TaskEnvironmentError} when the build network is not one (a task
 *   whose environment cannot be prepared fails the check alone)
 * @throws {SuiteCheckError} when the check image or the verifier image is absent
 */
export async function runSuiteCheck(
  suite: Suite,
  options: SuiteCheckOptions = {},
): Promise<SuiteCheckOutcome> {
  const checkedAt = new Date().toISOString();
  // One plan over every task resolves the environment once; each task then
  // runs as its own one-task batch, so that a verifier fault (which halts a
  // batch, seed 000) stops only its own task's check. A task whose
  // environment cannot be prepared fails alone, the others are checked.
  const { plan, unprepared } = await freezeCheckPlan(suite, checkedAt, options);
  const dir = await newResultDir(checksDir(suite.dir), checkedAt);
  const repeat = options.repeat ?? 1;
  // A judged task is proven by `judge calibrate` against human labels, not by a program here.
  const judged = judgedTaskIds(suite.manifest);
  const missingOracles = await missingOracleScripts(suite);
  const runs = plan === null
    ? []
    : await runChecks(suite, plan, { dir, judged, repeat, missingOracles, options });
  const quotes = await verifierQuotes(runs.flatMap((run) => run.rows), `${dir}/artifacts`);
  const tasks = suite.manifest.tasks.map((task) => {
    const problem = unprepared.get(task.task_id);
    if (problem !== undefined) return unpreparedTaskCheck(task.task_id, problem);
    return judged.has(task.task_id)
      ? judgedTaskCheck(task.task_id)
      : taskCheck(task.task_id, { runs, quotes, repeat }, missingOracles.get(task.task_id));
  });
  const summary: SuiteCheckSummary = {
    schema_version: 1,
    suite_id: suite.manifest.suite_id,
    suite_sha256: suite.sha256,
    checked_at: checkedAt,
    passed: tasks.every((task) => task.passed),
    tasks,
  };
  await Deno.writeTextFile(`${dir}/${CHECK_SUMMARY}`, canonicalJson(summary), { createNew: true });
  return { summary, dir };
}

/**
 * Runs the check plan's tasks, each as its own one-task batch (`repeat`
 * times, each run its own ledger beside the task's plan) in the Docker
 * sandbox, the runner's programs in place of agents; judged tasks are left
 * to `judge calibrate`.
 *
 * @returns every task's runs
 */
async function runChecks(
  suite: Suite,
  plan: Plan,
  { dir, judged, repeat, missingOracles, options }: {
    dir: string;
    judged: ReadonlySet<string>;
    repeat: number;
    /** The tasks without an executable oracle ({@link missingOracleScripts}). */
    missingOracles: ReadonlyMap<string, string>;
    options: SuiteCheckOptions;
  },
): Promise<CheckRun[]> {
  await using temp = await createRunTempDir(options.tempDir);
  const environment = await checkEnvironment(plan, {
    suiteDir: suite.dir,
    runnerVersion: plan.environment.runner_version!,
    tempDir: temp.path,
    agentBundles: false,
  });
  const sandbox = createDockerSandbox({
    agentImages: environment.agentImages,
    verifierImage: environment.verifierImage!,
    tasks: environment.taskSettings,
    verifierKit: environment.verifierKit ?? undefined,
    tempDir: temp.path,
  });
  const runs: CheckRun[] = [];
  for (const [index, task] of plan.tasks.entries()) {
    if (judged.has(task.task_id)) {
      options.log?.(`task "${task.task_id}" is judged: proven by "judge calibrate", not here`);
      continue;
    }
    options.log?.(`checking task "${task.task_id}" (${index + 1} of ${plan.tasks.length})`);
    const taskDir = `${dir}/tasks/${task.task_id}`;
    await Deno.mkdir(taskDir, { recursive: true });
    const taskPlan: Plan = {
      ...plan,
      plan_id: `suite-check-${task.task_id}`,
      tasks: [task],
      // A task without an executable oracle runs only the no-change episode (and fails the check).
      agents: plan.agents.filter((agent) =>
        !missingOracles.has(task.task_id) || agent.agent_id !== RUNNER_PROGRAM_AGENTS.oracle
      ),
    };
    const frozen = await writePlan(`${taskDir}/plan.json`, taskPlan);
    for (let run = 1; run <= repeat; run++) {
      if (repeat > 1) options.log?.(`  run ${run} of ${repeat}`);
      const ledger = `${taskDir}/${checkLedgerName(run)}`;
      await runBatch(taskPlan, {
        runId: run === 1 ? taskPlan.plan_id : `${taskPlan.plan_id}-run-${run}`,
        ledger,
        progress: options.progress,
        signal: options.signal,
        execute: createEpisodeExecutor(sandbox, {
          plan: taskPlan,
          planSha256: frozen.sha256,
          suite: environment.suite,
          artifactsRoot: `${dir}/artifacts`,
          // No model call is expected; one would go nowhere and be a provider fault.
          upstream: () => ({ baseUrl: "http://127.0.0.1:9/v1", key: "suite-check-has-no-key" }),
          runnerVersion: plan.environment.runner_version!,
          verifierDigests: environment.verifierDigests,
          tempDir: temp.path,
          runnerPrograms: (agentId, taskId): RunnerProgram =>
            agentId === RUNNER_PROGRAM_AGENTS.oracle
              ? { kind: "oracle", solutionDir: taskPaths(suite.dir, taskId).solution }
              : { kind: "no_change" },
        }),
      });
      runs.push({ taskId: task.task_id, rows: (await loadLedger(ledger)).rows });
    }
  }
  return runs;
}

/**
 * The tasks whose oracle cannot run, each with the first script missing
 * or not executable: `solution/solve.sh`, or for a multi-step task each
 * step's (`stepPaths`).
 */
async function missingOracleScripts(suite: Suite): Promise<Map<string, string>> {
  const missing = new Map<string, string>();
  for (const task of suite.manifest.tasks) {
    const paths = taskPaths(suite.dir, task.task_id);
    const dirs = task.steps === undefined
      ? [paths.solution]
      : task.steps.map((step) => stepPaths(paths, step.name).solution);
    for (const dir of dirs) {
      if (!(await isExecutableFile(`${dir}/solve.sh`))) {
        missing.set(task.task_id, `${dir}/solve.sh`);
        break;
      }
    }
  }
  return missing;
}

/**
 * A judged task's entry: not run by the check, which proves
 * programs; its judge is held to human labels by `judge calibrate`, and
 * until that passes its episodes are not counted in formal scores.
 */
function judgedTaskCheck(taskId: string): TaskCheck {
  const skipped = {
    status: "missing" as const,
    resolved: null,
    invalid_reason: null,
    notes: 'judged by the LLM judge: proven by "judge calibrate"',
  };
  return { task_id: taskId, oracle: skipped, no_change: skipped, passed: true, problems: [] };
}

/**
 * The check's plan: the two runner programs, every task whose environment
 * could be prepared, the images resolved now; and, per task whose could
 * not, why (the plan is null when none could).
 */
async function freezeCheckPlan(
  suite: Suite,
  checkedAt: string,
  options: Pick<SuiteCheckOptions, "log" | "buildNetwork" | "agentEgress">,
): Promise<{ plan: Plan | null; unprepared: Map<string, string> }> {
  const program = await imageDigest(CHECK_IMAGE);
  const verifier = await imageDigest(VERIFIER_IMAGE);
  if (program === null || verifier === null) {
    throw new SuiteCheckError(
      `Cannot check the suite: image "${
        program === null ? CHECK_IMAGE : VERIFIER_IMAGE
      }" is not present (run containers/build_images.sh)`,
    );
  }
  const unprepared = new Map<string, string>();
  const prepare = {
    buildNetwork: options.buildNetwork,
    onTaskError: (taskId: string, error: Error) => {
      if (!unprepared.has(taskId)) unprepared.set(taskId, error.message);
    },
  };
  const lookup = (ref: string) => imageDigest(ref);
  const taskEnvironments = await prepareTaskEnvironments(suite, lookup, options.log, prepare);
  const verifierEnvironments = await prepareVerifierEnvironments(
    suite,
    lookup,
    options.log,
    prepare,
  );
  const serviceEnvironments = await prepareServiceEnvironments(
    suite,
    lookup,
    options.log,
    prepare,
  );
  const tasks = suite.manifest.tasks.filter((task) => !unprepared.has(task.task_id));
  if (tasks.length === 0) return { plan: null, unprepared };
  const plan = freezePlan({ ...suite, manifest: { ...suite.manifest, tasks } }, {
    plan_id: "suite-check",
    created_at: checkedAt,
    agents: Object.values(RUNNER_PROGRAM_AGENTS).map((agentId) => ({
      agent_id: agentId,
      image: CHECK_IMAGE,
      image_digest: program,
    })),
    order_seed: 0,
    price_table_id: "unpriced",
    task_environments: withoutTasks(taskEnvironments, unprepared),
    verifier_environments: withoutTasks(verifierEnvironments, unprepared),
    service_environments: withoutTasks(serviceEnvironments, unprepared),
    agent_egress: options.agentEgress,
    runner_version: await runnerVersion(),
    verifier_image: VERIFIER_IMAGE,
    verifier_image_digest: verifier,
  });
  return { plan, unprepared };
}

/** `environments` without the tasks of `left` (a task whose verifier's environment failed keeps neither). */
function withoutTasks<T>(
  environments: Record<string, T>,
  left: ReadonlyMap<string, string>,
): Record<string, T> {
  return Object.fromEntries(Object.entries(environments).filter(([id]) => !left.has(id)));
}

/** The entry of a task whose environment could not be prepared: failed, with why; nothing ran. */
function unpreparedTaskCheck(taskId: string, problem: string): TaskCheck {
  const missing = { status: "missing" as const, resolved: null, invalid_reason: null, notes: null };
  return {
    task_id: taskId,
    oracle: missing,
    no_change: missing,
    passed: false,
    problems: [`environment: ${problem}`],
  };
}

/**
 * Per episode id, the clause a failing problem ends with: the verifier's last
 * output lines from the episode's log (`verifierOutputLines`), or why they
 * cannot be read. A row without a log, or whose log holds no verifier output
 * (the verifier did not run), has none.
 */
async function verifierQuotes(
  rows: readonly Episode[],
  artifactsRoot: string,
): Promise<Map<string, string>> {
  const quotes = new Map<string, string>();
  for (const row of rows) {
    if (row.episode_log_digest === undefined) continue;
    try {
      const verifier = (await openEpisodeLog(artifactsRoot, row.episode_log_digest)).verifier;
      if (verifier !== undefined) quotes.set(row.episode_id, verifierOutputLines(verifier));
    } catch (error) {
      quotes.set(row.episode_id, `the verifier's output cannot be read: ${describeError(error)}`);
    }
  }
  return quotes;
}

/** One run of one task's check batch, and its rows (a task's runs in order). */
interface CheckRun {
  taskId: string;
  rows: readonly Episode[];
}

/** The check's runs, the verifier's output clause of each episode that has one, and the run count. */
interface CheckRows {
  runs: readonly CheckRun[];
  quotes: ReadonlyMap<string, string>;
  repeat: number;
}

/**
 * The ledger of a task's `run`-th check run, beside its plan: `ledger.jsonl`
 * for the first (the layout of a check that runs once), `ledger.run-<n>.jsonl`
 * after it.
 */
function checkLedgerName(run: number): string {
  return run === 1 ? "ledger.jsonl" : `ledger.run-${run}.jsonl`;
}

/**
 * One task's verdicts from the check's rows. Each program's first run gives
 * its `oracle`/`no_change` entry; with more than one run, `repeats` counts
 * every run's verdict (`repeatedCheck`) and a program whose verdict was
 * unexpected in some run is a problem, "flaky" when it was the expected one
 * in another.
 */
function taskCheck(
  taskId: string,
  { runs, quotes, repeat }: CheckRows,
  missingOracle: string | undefined,
): TaskCheck {
  const hasOracle = missingOracle === undefined;
  // Per run, the program's row at this task (undefined: the batch halted first).
  const rowsOf = (agentId: string) =>
    runs.filter((run) => run.taskId === taskId).map((run) =>
      run.rows.find((r) => r.agent_id === agentId)
    );
  const episode = (row: Episode | undefined): CheckEpisode =>
    row === undefined ? { status: "missing", resolved: null, invalid_reason: null, notes: null } : {
      status: row.status,
      resolved: row.resolved,
      invalid_reason: row.invalid_reason,
      notes: row.notes,
    };
  const oracleRows = rowsOf(RUNNER_PROGRAM_AGENTS.oracle);
  const noChangeRows = rowsOf(RUNNER_PROGRAM_AGENTS.noChange);
  const problems: string[] = hasOracle ? [] : [
    `no oracle: "${missingOracle}" is not an executable file, ` +
    "so the verifier cannot be proven",
  ];
  /** Why one run's episode is not what `want` says, or null when it is. */
  const describe = (what: string, row: Episode | undefined, want: boolean) => {
    const e = episode(row);
    if (e.status === "missing") {
      return `${what}: no row (the task's batch halted at its first invalid episode)`;
    }
    const problem = e.status === "invalid"
      ? `${what}: invalid (${e.invalid_reason}): ${e.notes ?? ""}`
      : e.resolved === want
      ? null
      : want
      ? `${what}: the verifier did not resolve the oracle's solution`
      : `${what}: the verifier resolved the untouched workspace`;
    if (problem === null) return null;
    // The test run's own words, so the user sees its failure without rerunning it.
    const quote = row === undefined ? undefined : quotes.get(row.episode_id);
    return quote === undefined ? problem : `${problem}; ${quote}`;
  };
  const programs = [
    ...(hasOracle ? [{ what: "oracle", rows: oracleRows, want: true }] : []),
    { what: "no-change", rows: noChangeRows, want: false },
  ];
  for (const { what, rows, want } of programs) {
    const found = rows.map((row) => describe(what, row, want));
    const first = found.find((problem) => problem !== null);
    if (first === undefined || first === null) continue;
    if (repeat === 1) {
      problems.push(first);
      continue;
    }
    const wrong = found.filter((problem) => problem !== null).length;
    problems.push(
      `${wrong < repeat ? "flaky: " : ""}${first} (in ${wrong} of ${repeat} runs)`,
    );
  }
  const verdicts = (rows: (Episode | undefined)[]): ProgramVerdicts => ({
    resolved: rows.filter((row) => row?.status === "scored" && row.resolved === true).length,
    not_resolved: rows.filter((row) => row?.status === "scored" && row.resolved === false).length,
    no_verdict: rows.filter((row) => row === undefined || row.status !== "scored").length,
  });
  return {
    task_id: taskId,
    oracle: episode(oracleRows[0]),
    no_change: episode(noChangeRows[0]),
    passed: problems.length === 0,
    problems,
    ...(repeat === 1 ? {} : {
      repeats: repeatedCheck(hasOracle ? verdicts(oracleRows) : null, verdicts(noChangeRows)),
    }),
  };
}
