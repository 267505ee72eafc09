/**
 * The `harbor` importer of `ledgerbench import` (issue 11): a Harbor (or
 * Terminal-Bench 2) job directory, one row per trial.
 *
 * Read from Harbor's source (`harbor-framework/harbor`, formerly
 * `laude-institute/harbor`) as mirrored in `wrongbutworks/harbor` at
 * upstream commit 39b85872 (version 0.22.0, 21 August 2026), compared with
 * version 0.3.0 (commit 5f5618b, April 2026, mirrored in
 * `xuanZH424/evolving-skills`):
 *
 * - `src/harbor/models/trial/result.py`: `TrialResult` (`task_name`,
 *   `trial_name`, `agent_info`, `agent_result`, `verifier_result`,
 *   `exception_info`, `started_at`, `finished_at`, the `TimingInfo`
 *   phases, `step_results` of multi-step trials and
 *   `compute_token_cost_totals`); `models/agent/context.py`
 *   (`n_input_tokens` "including cache", `n_cache_tokens`,
 *   `n_output_tokens`, `cost_usd`); `models/verifier/result.py` (`rewards`,
 *   a name → number map or null).
 * - `src/harbor/models/job/config.py` (`job_name`, `n_attempts`, `tasks`,
 *   `datasets[].task_names`, `retry.max_retries` and its default
 *   `exclude_exceptions`) and `models/job/result.py` (`id`,
 *   `n_total_trials`).
 * - `src/harbor/trial/trial.py`, `single_step.py`, `queue.py`: only the
 *   first exception is kept; an `AgentTimeoutError` or a
 *   `NonZeroAgentExitCodeError` (and its subclasses) is caught and the
 *   verifier still runs; any other exception ends the trial unverified; a
 *   retried trial's directory is deleted before the retry.
 * - Exception types: `trial/errors.py`, `agents/installed/base.py`,
 *   `verifier/verifier.py`, `llms/base.py`, `environments/base.py`.
 * - A trial's agent trajectory, `<trial>/agent/trajectory.json` (the
 *   agent's logs directory, `models/trial/paths.py`; the Agent Trajectory
 *   Interchange Format, `models/trajectories/`, read at commit 7d91dbf): kept
 *   as the file holds it as the row's transcript (`import` stores it beside
 *   the ledger; `view` shows its steps as messages); one that is not a JSON
 *   object is a warning, and the row keeps none.
 *
 * Times are written by pydantic from `datetime.now(timezone.utc)`
 * (`...Z`); a time without a zone cannot be placed and is left out.
 *
 * Task ids (see `harborTaskIds`): a task is its name without its registry
 * org, `org/name` and `name` being one task. Harbor names one task in two
 * forms: a trial's `task_name` is `Task.name` (`models/task/task.py`), the
 * `[task] name` of its `task.toml` when it has one (`PackageInfo`,
 * `models/task/config.py`, always `org/name`: `ORG_NAME_PATTERN` in
 * `constants.py`), else its directory's name; the job config names a local
 * or git task by its `path` (`LocalTaskId.get_name`, `GitTaskId.get_name`:
 * the directory's name), a package task by `org/name`
 * (`TaskConfig.get_task_id`, `PackageTaskId.get_name`), and a dataset's
 * `task_names` match those names (`DatasetConfig._filter_task_ids`). Harbor
 * itself drops the org where a task's name must be short: `Task.short_name`
 * ("Task name without registry org prefix") and the trial directory's name
 * (`TrialConfig.generate_trial_name`, `get_name().split("/")[-1]`).
 *
 * No file this importer reads carries a format version (`TrialResult`,
 * `JobConfig` and `JobResult` have none; `agent_info.version` is the
 * agent's, a dataset's `version` the dataset's; only the job's `lock.json`,
 * which is not read, has a `schema_version`): there is none to check.
 *
 * @module
 */
import { basename, join } from "node:path";
import { z } from "zod";
import { ioError } from "../../analysis/ledger_error.ts";
import type { InvalidReason, StopReason } from "../../analysis/schema/records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import { displayId } from "../../analysis/untrusted_text.ts";
import { pathExists, readInput } from "../input_file.ts";
import { fieldProblem, parseJsonFile } from "../json_file.ts";
import { parseJsonObject } from "../../analysis/schema/strict_json.ts";
import { type IsoInstant, parseIsoTime } from "./_iso_time.ts";
import { noteText } from "./_notes.ts";
import type { ImportBatch, ImportedAttempt, ImportedOutcome } from "./imported_attempt.ts";

/** Written into every row's provenance; bump it when a mapping below changes. */
export const HARBOR_IMPORTER_VERSION = "1.2.0";

/** Options of {@link importHarborJob}. */
export interface HarborImportOptions {
  /** The agent id of every row; default `<agent_info.name>/<model_info.name>`. */
  agentId?: string;
  /** A trial is resolved when its reward is at least this; default 1. */
  passThreshold?: number;
  /** The reward that decides resolved when a trial reports several and none is named `reward`. */
  rewardKey?: string;
}

/** How one exception type maps to a row. */
export type HarborExceptionMapping =
  | {
    status: "scored";
    stop_reason: StopReason;
    /**
     * The row when the trial has no reward: `not_resolved` when Harbor ends
     * the trial unverified after this exception, `verifier_fault` when it
     * runs the verifier after it (then a missing reward is the verifier's
     * failure, whose own exception Harbor did not keep).
     */
    without_reward: "not_resolved" | "verifier_fault";
  }
  | { status: "invalid"; invalid_reason: InvalidReason; stop_reason: StopReason };

const verifierFault = {
  status: "invalid",
  invalid_reason: "verifier_fault",
  stop_reason: "completed",
} as const;
const providerFault = {
  status: "invalid",
  invalid_reason: "provider_fault",
  stop_reason: "error",
} as const;
const rateLimited = {
  status: "invalid",
  invalid_reason: "provider_fault",
  stop_reason: "rate_limited",
} as const;
const harnessError = {
  status: "invalid",
  invalid_reason: "harness_error",
  stop_reason: "error",
} as const;

/**
 * The one mapping from a trial's `exception_info.exception_type` to its
 * row (Harbor 0.22.0 names; the source file of each type in brackets).
 * A scored row's verdict is its reward against the pass threshold; its
 * stop reason other than `completed` makes it censored.
 *
 * | exception type | row | stop reason | without a reward |
 * |---|---|---|---|
 * | `AgentTimeoutError` [trial/errors.py] | scored | `wall_cap` | invalid `verifier_fault` (Harbor verifies after a timeout) |
 * | `ContextLengthExceededError`, `OutputLengthExceededError` [llms/base.py] | scored | `token_cap` | not resolved (the trial ends unverified) |
 * | `ContextWindowExceededError`, `OutputTokenExceededError` [agents/installed/base.py] | scored | `token_cap` | invalid `verifier_fault` |
 * | `NonZeroAgentExitCodeError` (the agent crashed), `AgentSafetyRefusalError` (a refusal: "a real reward 0 outcome") | scored | `error` | invalid `verifier_fault` |
 * | `VerifierTimeoutError`, `RewardFileNotFoundError`, `RewardFileEmptyError`, `VerifierOutputParseError`, `AddTestsDirError`, `DownloadVerifierDirError` [verifier/verifier.py] | invalid `verifier_fault` | `completed` | |
 * | `ApiUsageLimitError`, `ApiRateLimitError` | invalid `provider_fault` | `rate_limited` | |
 * | `AgentAuthenticationError`, `ModelNotFoundError`, `ApiError`, `ApiInternalServerError`, `ApiOverloadedError`, `ApiConnectionClosedError`, `ApiResponseStalledError`, `ApiProviderResourceNotFoundError`, `UnknownApiError` | invalid `provider_fault` | `error` | |
 * | `EnvironmentStartTimeoutError`, `AgentSetupTimeoutError`, `HealthcheckError`, `SandboxBuildFailedError`, `NetworkConnectionError`, `CancelledError` | invalid `harness_error` | `error` | |
 * | any other type | invalid `harness_error` | `error` | |
 *
 * No exception: scored and `completed` with a reward, invalid
 * `verifier_fault` without one (Harbor's own mean counts a missing reward
 * as 0; a row here never does). An invalid row keeps its reward, if any,
 * in its notes only.
 */
export const HARBOR_EXCEPTION_MAPPING: Readonly<Record<string, HarborExceptionMapping>> = Object
  .freeze({
    AgentTimeoutError: {
      status: "scored",
      stop_reason: "wall_cap",
      without_reward: "verifier_fault",
    },
    ContextLengthExceededError: {
      status: "scored",
      stop_reason: "token_cap",
      without_reward: "not_resolved",
    },
    OutputLengthExceededError: {
      status: "scored",
      stop_reason: "token_cap",
      without_reward: "not_resolved",
    },
    ContextWindowExceededError: {
      status: "scored",
      stop_reason: "token_cap",
      without_reward: "verifier_fault",
    },
    OutputTokenExceededError: {
      status: "scored",
      stop_reason: "token_cap",
      without_reward: "verifier_fault",
    },
    NonZeroAgentExitCodeError: {
      status: "scored",
      stop_reason: "error",
      without_reward: "verifier_fault",
    },
    AgentSafetyRefusalError: {
      status: "scored",
      stop_reason: "error",
      without_reward: "verifier_fault",
    },
    VerifierTimeoutError: verifierFault,
    RewardFileNotFoundError: verifierFault,
    RewardFileEmptyError: verifierFault,
    VerifierOutputParseError: verifierFault,
    AddTestsDirError: verifierFault,
    DownloadVerifierDirError: verifierFault,
    ApiUsageLimitError: rateLimited,
    ApiRateLimitError: rateLimited,
    AgentAuthenticationError: providerFault,
    ModelNotFoundError: providerFault,
    ApiError: providerFault,
    ApiInternalServerError: providerFault,
    ApiOverloadedError: providerFault,
    ApiConnectionClosedError: providerFault,
    ApiResponseStalledError: providerFault,
    ApiProviderResourceNotFoundError: providerFault,
    UnknownApiError: providerFault,
    EnvironmentStartTimeoutError: harnessError,
    AgentSetupTimeoutError: harnessError,
    HealthcheckError: harnessError,
    SandboxBuildFailedError: harnessError,
    NetworkConnectionError: harnessError,
    CancelledError: harnessError,
  });

/** The row of an exception type the table does not name. */
const UNKNOWN_EXCEPTION: HarborExceptionMapping = harnessError;

const Count = z.number().int().nonnegative().nullable().optional();
const Time = z.string().nullable().optional();
const Timing = z.object({ started_at: Time, finished_at: Time }).nullable().optional();
const AgentContext = z.object({
  n_input_tokens: Count,
  n_cache_tokens: Count,
  n_output_tokens: Count,
  cost_usd: z.number().nonnegative().nullable().optional(),
}).nullable().optional();
const VerifierResult = z.object({
  rewards: z.record(z.string(), z.number()).nullable().optional(),
}).nullable().optional();
const ExceptionInfo = z.object({
  exception_type: z.string().min(1),
  exception_message: z.string(),
}).nullable().optional();

/** The fields of a trial's `result.json` this importer reads; other keys are ignored. */
const TrialResult = z.object({
  task_name: z.string().min(1),
  trial_name: z.string().min(1),
  agent_info: z.object({
    name: z.string().min(1),
    model_info: z.object({ name: z.string().min(1) }).nullable().optional(),
  }),
  agent_result: AgentContext,
  verifier_result: VerifierResult,
  exception_info: ExceptionInfo,
  started_at: Time,
  finished_at: Time,
  agent_execution: Timing,
  step_results: z.array(z.object({ agent_result: AgentContext, agent_execution: Timing }))
    .nullable().optional(),
});
type TrialResult = z.infer<typeof TrialResult>;

/** The fields of the job's `config.json` this importer reads. */
const JobConfig = z.object({
  job_name: z.string().min(1).optional(),
  n_attempts: z.number().int().positive().default(1),
  tasks: z.array(
    z.object({ path: z.string().nullable().optional(), name: z.string().nullable().optional() }),
  )
    .default([]),
  datasets: z.array(z.object({
    task_names: z.array(z.string()).nullable().optional(),
    exclude_task_names: z.array(z.string()).nullable().optional(),
    n_tasks: z.number().int().nullable().optional(),
  })).default([]),
  retry: z.object({ max_retries: z.number().int().nonnegative().optional() }).optional(),
  verifier: z.object({ disable: z.boolean().optional() }).optional(),
  /** The retry settings of configs older than 0.3.0 (`JobConfig` still migrates them). */
  orchestrator: z.object({
    retry: z.object({ max_retries: z.number().int().nonnegative().optional() }).optional(),
  }).optional(),
});
type JobConfig = z.infer<typeof JobConfig>;

/** The fields of the job's `result.json` this importer reads. */
const JobResult = z.object({
  id: z.string().min(1).optional(),
  n_total_trials: z.number().int().nonnegative().optional(),
});

/** A trial read from its directory. */
interface Trial {
  dir: string;
  file: string;
  sha256: string;
  result: TrialResult;
  /** Epoch microseconds of `started_at`, or null. */
  started: number | null;
  /** The agent's trajectory (`agent/trajectory.json`) as the file holds it; null: none read. */
  trajectory: string | null;
}

/** What parsing a time found: an instant, nothing, or a time without a zone. */
type Instant = IsoInstant | null | "zoneless";

/**
 * Reads an ISO 8601 time as pydantic writes it (`2026-08-21T10:15:30.123456Z`,
 * or with an offset `+02:00`; the forms of `_iso_time.ts`), keeping the
 * microseconds for durations.
 *
 * @throws {LedgerError} `schema_violation` when the text is not such a time
 */
function parseInstant(text: string | null | undefined, file: string, field: string): Instant {
  if (text === null || text === undefined) return null;
  const time = parseIsoTime(text);
  if (time.kind === "malformed") {
    fieldProblem(file, field, `${JSON.stringify(text)} is not an ISO 8601 time`);
  }
  if (time.kind === "out_of_range") {
    fieldProblem(file, field, `${JSON.stringify(text)} is not a valid time`);
  }
  return time.kind === "zoneless" ? "zoneless" : time;
}

/** Counts the times without a zone, which are left out. */
interface TimeLog {
  zoneless: number;
}

function instantOrNull(instant: Instant, log: TimeLog): IsoInstant | null {
  if (instant !== "zoneless") return instant;
  log.zoneless++;
  return null;
}

/**
 * The duration of a phase in milliseconds, or null when a bound is absent.
 *
 * @throws {LedgerError} `schema_violation` when it ends before it starts
 */
function phaseMs(
  phase: { started_at?: string | null; finished_at?: string | null } | null | undefined,
  file: string,
  field: string,
  log: TimeLog,
): number | null {
  const start = instantOrNull(parseInstant(phase?.started_at, file, `${field}.started_at`), log);
  const end = instantOrNull(parseInstant(phase?.finished_at, file, `${field}.finished_at`), log);
  if (start === null || end === null) return null;
  if (end.micros < start.micros) {
    fieldProblem(file, `${field}.finished_at`, `is before ${field}.started_at`);
  }
  return Math.round((end.micros - start.micros) / 1000);
}

/**
 * The agent's wall time: the `agent_execution` phase, or for a multi-step
 * trial without one the sum of its steps' phases (null when any is absent).
 */
function agentWallMs(result: TrialResult, file: string, log: TimeLog): number | null {
  if (result.agent_execution != null || !result.step_results?.length) {
    return phaseMs(result.agent_execution, file, "agent_execution", log);
  }
  let total = 0;
  for (const [index, step] of result.step_results.entries()) {
    const ms = phaseMs(step.agent_execution, file, `step_results.${index}.agent_execution`, log);
    if (ms === null) return null;
    total += ms;
  }
  return total;
}

/** Token counts and cost as the agent reported them; null: not reported. */
interface AgentUsage {
  input: number | null;
  cache: number | null;
  output: number | null;
  cost: number | null;
}

/**
 * The agent's usage: `agent_result`, or for a multi-step trial without one
 * the sum over its steps, each field null when no context reports it
 * (Harbor's `TrialResult.compute_token_cost_totals`).
 */
function agentUsage(result: TrialResult): AgentUsage {
  const contexts = result.agent_result != null
    ? [result.agent_result]
    : (result.step_results ?? []).flatMap((step) => step.agent_result ?? []);
  const sum = (
    pick: (context: NonNullable<typeof contexts[number]>) => number | null | undefined,
  ) =>
    contexts.reduce<number | null>((total, context) => {
      const value = pick(context);
      return value == null ? total : (total ?? 0) + value;
    }, null);
  return {
    input: sum((context) => context.n_input_tokens),
    cache: sum((context) => context.n_cache_tokens),
    output: sum((context) => context.n_output_tokens),
    cost: sum((context) => context.cost_usd),
  };
}

/** The deciding reward and the notes on the others; null reward: none reported. */
interface Reward {
  value: number | null;
  note: string;
}

/**
 * The reward that decides resolved.
 *
 * Rule: `options.rewardKey` when given (it must be reported); else the
 * key `reward` (what `reward.txt` becomes, `verifier.py`); else the only
 * key; several keys without `reward` are an error, since Harbor itself
 * averages each key apart (`metrics/base.py`) and names none as the
 * verdict. An empty or null map is no reward.
 *
 * @throws {LedgerError} `schema_violation` on `verifier_result.rewards`
 */
function pickReward(result: TrialResult, file: string, rewardKey?: string): Reward {
  const rewards = result.verifier_result?.rewards ?? {};
  const keys = Object.keys(rewards);
  if (keys.length === 0) return { value: null, note: "" };
  const note = keys.length > 1
    ? `rewards: ${keys.map((key) => `${key}=${rewards[key]}`).join(", ")}`
    : "";
  const key = rewardKey ??
    (Object.hasOwn(rewards, "reward") ? "reward" : keys.length === 1 ? keys[0] : null);
  if (key === null) {
    fieldProblem(
      file,
      "verifier_result.rewards",
      `holds several rewards (${keys.join(", ")}) and none named "reward": pass the reward key`,
    );
  }
  if (!Object.hasOwn(rewards, key)) {
    fieldProblem(file, "verifier_result.rewards", `holds no reward ${JSON.stringify(key)}`);
  }
  return { value: rewards[key], note };
}

/** A row's verdict, stop reason and notes from its exception and reward. */
interface Verdict {
  outcome: ImportedOutcome;
  stop_reason: StopReason;
  notes: string[];
}

/**
 * `<type>: <message>`, the message cut by {@link noteText} (500
 * characters); the type alone when the message
 * is empty (Harbor raises `ContextLengthExceededError` without one).
 */
function exceptionNote(exception: { exception_type: string; exception_message: string }): string {
  const message = exception.exception_message;
  if (message === "") return exception.exception_type;
  return `${exception.exception_type}: ${noteText(message)}`;
}

/**
 * Applies {@link HARBOR_EXCEPTION_MAPPING} to one trial.
 *
 * @param threshold resolved when the reward is at least this
 */
function verdictOf(
  exception: { exception_type: string; exception_message: string } | null | undefined,
  reward: number | null,
  threshold: number,
): Verdict {
  const notes = exception == null ? [] : [exceptionNote(exception)];
  const mapping: HarborExceptionMapping = exception == null
    ? { status: "scored", stop_reason: "completed", without_reward: "verifier_fault" }
    : Object.hasOwn(HARBOR_EXCEPTION_MAPPING, exception.exception_type)
    ? HARBOR_EXCEPTION_MAPPING[exception.exception_type]
    : UNKNOWN_EXCEPTION;
  if (mapping.status === "invalid") {
    if (reward !== null) notes.push(`reward ${reward} not scored`);
    return {
      outcome: { status: "invalid", invalid_reason: mapping.invalid_reason },
      stop_reason: mapping.stop_reason,
      notes,
    };
  }
  if (reward !== null) {
    return {
      outcome: { status: "scored", resolved: reward >= threshold },
      stop_reason: mapping.stop_reason,
      notes,
    };
  }
  if (mapping.without_reward === "not_resolved") {
    notes.push("no reward: the trial ended unverified");
    return {
      outcome: { status: "scored", resolved: false },
      stop_reason: mapping.stop_reason,
      notes,
    };
  }
  notes.push("no reward (Harbor's mean counts it as 0; not scored here)");
  return {
    outcome: { status: "invalid", invalid_reason: "verifier_fault" },
    stop_reason: mapping.stop_reason,
    notes,
  };
}

/** `<agent_info.name>/<model_info.name>`, or the agent's name when no model is recorded. */
function naturalAgentId(result: TrialResult): string {
  const model = result.agent_info.model_info?.name;
  return model === undefined ? result.agent_info.name : `${result.agent_info.name}/${model}`;
}

/** The names of the job directory's subdirectories, sorted (code unit order). */
async function subdirectories(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) if (entry.isDirectory) names.push(entry.name);
  } catch (error) {
    throw ioError(dir, error);
  }
  return names.sort();
}

/**
 * Reads every trial directory (a subdirectory holding `result.json`).
 *
 * @returns the trials in directory-name order, and how many subdirectories hold no result
 */
async function readTrials(
  dir: string,
  warnings: string[],
): Promise<{ trials: Trial[]; unfinished: number }> {
  const trials: Trial[] = [];
  let unfinished = 0;
  for (const name of await subdirectories(dir)) {
    const file = join(dir, name, "result.json");
    if (!(await pathExists(file))) {
      unfinished++;
      continue;
    }
    const bytes = await readInput(file);
    const result = parseJsonFile(bytes, TrialResult, file).value;
    const started = parseInstant(result.started_at, file, "started_at");
    trials.push({
      dir: name,
      file,
      sha256: sha256Hex(bytes),
      result,
      started: started === "zoneless" || started === null ? null : started.micros,
      trajectory: await readTrajectory(join(dir, name, "agent", "trajectory.json"), warnings),
    });
  }
  return { trials, unfinished };
}

/**
 * A trial's agent trajectory, where Harbor's agents write it (`trajectory.json`
 * in the agent's logs directory, `<trial>/agent/`: `models/trial/paths.py`,
 * `agents/installed/*.py`), in the Agent Trajectory Interchange Format
 * (`models/trajectories/`): its text when it is one JSON object, else null
 * with a warning (the row does not depend on it); null when there is none.
 */
async function readTrajectory(file: string, warnings: string[]): Promise<string | null> {
  if (!(await pathExists(file))) return null;
  const bytes = await readInput(file);
  const parsed = parseJsonObject(bytes, "the file", undefined, { nonFinite: true });
  if (parsed.ok) return parsed.text;
  const p = parsed.problem;
  warnings.push(
    `${file}:${p.line}: ${p.field === "" ? "" : `field "${p.field}": `}${p.message}: ` +
      "the trial's row keeps no transcript",
  );
  return null;
}

/**
 * Numbers the trials of each agent and task (by task id) 1..n: by
 * `started_at` (earliest first; a trial without one last), then by trial
 * name.
 *
 * @returns the attempt number of each trial
 */
function attemptNumbers(
  trials: Trial[],
  agentOf: (trial: Trial) => string,
  taskId: (name: string) => string,
): Map<Trial, number> {
  const ordered = [...trials].sort((a, b) =>
    (a.started ?? Infinity) - (b.started ?? Infinity) ||
    (a.result.trial_name < b.result.trial_name
      ? -1
      : a.result.trial_name > b.result.trial_name
      ? 1
      : 0)
  );
  const counts = new Map<string, number>();
  const numbers = new Map<Trial, number>();
  for (const trial of ordered) {
    const key = JSON.stringify([agentOf(trial), taskId(trial.result.task_name)]);
    const next = (counts.get(key) ?? 0) + 1;
    counts.set(key, next);
    numbers.set(trial, next);
  }
  return numbers;
}

/** Whether a task-name filter is a glob pattern (`fnmatch`: `*`, `?`, `[`). */
function isGlob(name: string): boolean {
  return /[*?[]/.test(name);
}

/**
 * The task names the job config holds, as written, or null when it does
 * not name them all.
 *
 * Rule: each `tasks[]` entry by its `name` (a package task, `org/name`),
 * else the last component of its `path` (Harbor names a task by its
 * directory unless its `task.toml` names it); each dataset only when it
 * lists `task_names` without glob patterns, exclusions or an `n_tasks`
 * cut. {@link harborTaskIds} turns them into task ids.
 */
function configTaskNames(config: JobConfig): string[] | null {
  const names: string[] = [];
  for (const task of config.tasks) {
    const name = task.name ?? (task.path == null ? null : basename(task.path));
    if (name === null || name === "") return null;
    names.push(name);
  }
  for (const dataset of config.datasets) {
    const listed = dataset.task_names;
    if (
      !listed?.length || listed.some(isGlob) || dataset.exclude_task_names?.length ||
      dataset.n_tasks != null
    ) {
      return null;
    }
    for (const name of listed) names.push(name); // not a spread: a dataset may list any number
  }
  return names.length === 0 ? null : names;
}

/**
 * The task id of every Harbor task name of one job: a trial's
 * `task_name`, a config task's `name` or directory, a dataset's
 * `task_names`.
 *
 * Rule: a name's id is its short name, the part after its last `/`
 * (`terminal-bench/fix-git` is `fix-git`), so that a trial named
 * `org/name` and a config naming `name` are one planned task, never two.
 * Source: Harbor 0.22.0 names one task both ways (a trial by its
 * `task.toml`'s `[task] name`, `org/name`; the config by its directory;
 * see the module doc) and drops the org itself for a short name
 * (`Task.short_name`, `TrialConfig.generate_trial_name`). Exception: when
 * the job holds one short name under two orgs (`a/name`, `b/name`), each
 * of those keeps its org (one id for both would count two tasks as one),
 * and a bare `name` stays `name`. Cost: O(names).
 *
 * @param names every task name the job's trials and config hold
 * @returns the task id of any of those names
 */
function harborTaskIds(names: Iterable<string>): (name: string) => string {
  const shortName = (name: string) => name.slice(name.lastIndexOf("/") + 1);
  const qualified = new Map<string, Set<string>>();
  for (const name of names) {
    const short = shortName(name);
    if (short === name) continue;
    const forms = qualified.get(short) ?? new Set<string>();
    qualified.set(short, forms.add(name));
  }
  return (name) => {
    const short = shortName(name);
    return (qualified.get(short)?.size ?? 0) > 1 ? name : short;
  };
}

/**
 * The planned tasks (task ids, each once, in config order) and a warning:
 * the config's tasks when they name every trial's task; else null.
 */
function plannedTasks(
  named: string[] | null,
  trials: Trial[],
  configFile: string,
  taskId: (name: string) => string,
) {
  if (named === null) {
    return {
      planned: null,
      warning: `${configFile}: the job config does not name all its tasks (datasets without ` +
        "explicit task names); pass a task list to count missing tasks",
    };
  }
  const known = new Set(named.map(taskId));
  const stranger = trials.find((trial) => !known.has(taskId(trial.result.task_name)));
  if (stranger === undefined) return { planned: [...known], warning: null };
  return {
    planned: null,
    warning: `${stranger.file}: task_name "${displayId(stranger.result.task_name)}" is not ` +
      `among the tasks ${configFile} names; pass a task list to count missing tasks`,
  };
}

/**
 * The agent id of each trial: `options.agentId` for all, refused when the
 * job ran several agents (it would merge them), else
 * {@link naturalAgentId}.
 *
 * @throws {LedgerError} `schema_violation` naming the trial of a second agent
 */
function agentIds(trials: Trial[], agentId?: string): (trial: Trial) => string {
  if (agentId === undefined) return (trial) => naturalAgentId(trial.result);
  const first = trials[0];
  const other = trials.find((trial) =>
    naturalAgentId(trial.result) !== naturalAgentId(first.result)
  );
  if (other !== undefined) {
    fieldProblem(
      other.file,
      "agent_info",
      `is ${JSON.stringify(naturalAgentId(other.result))} but ${first.file} ran ` +
        `${
          JSON.stringify(naturalAgentId(first.result))
        }: one agent id for the whole job would merge agents`,
    );
  }
  return () => agentId;
}

/** One row from one trial. */
function attemptOf(
  trial: Trial,
  context: {
    runId: string;
    agentId: string;
    taskId: string;
    attempt: number;
    threshold: number;
    rewardKey?: string;
  },
  log: TimeLog,
): ImportedAttempt {
  const { result, file } = trial;
  const reward = pickReward(result, file, context.rewardKey);
  const verdict = verdictOf(result.exception_info, reward.value, context.threshold);
  const usage = agentUsage(result);
  const started = instantOrNull(parseInstant(result.started_at, file, "started_at"), log);
  const finished = instantOrNull(parseInstant(result.finished_at, file, "finished_at"), log);
  const steps = result.step_results?.length;
  const notes = [
    ...verdict.notes,
    reward.note,
    usage.cache === null ? "" : `cache tokens ${usage.cache} (included in prompt tokens)`,
    steps ? `multi-step trial (${steps} steps)` : "",
    context.taskId === result.task_name ? "" : `task_name ${noteText(result.task_name)}`,
  ];
  return {
    run_id: context.runId,
    agent_id: context.agentId,
    task_id: context.taskId,
    attempt: context.attempt,
    outcome: verdict.outcome,
    stop_reason: verdict.stop_reason,
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    tool_calls: null,
    model_calls: null,
    wall_ms: agentWallMs(result, file, log),
    started_at: started?.utc ?? null,
    finished_at: finished?.utc ?? null,
    notes: notes.filter((note) => note !== "").join("; "),
    provenance: {
      evidence_kind: "imported",
      format: "harbor",
      importer_version: HARBOR_IMPORTER_VERSION,
      source: file,
      source_sha256: trial.sha256,
      position: `${trial.dir}/result.json`,
      tokens_reported_by: usage.input === null && usage.output === null ? "not_recorded" : "agent",
      model: result.agent_info.model_info?.name ?? null,
      reported_cost_usd: usage.cost,
    },
    ...(trial.trajectory === null
      ? {}
      : { transcript: { format: "atif" as const, record: trial.trajectory } }),
  };
}

/** The job's warnings about trials Harbor planned or deleted that are not here. */
function jobWarnings(
  dir: string,
  config: JobConfig,
  totalTrials: number | undefined,
  found: number,
  unfinished: number,
): string[] {
  const warnings: string[] = [];
  if (config.verifier?.disable === true) {
    warnings.push(
      `${
        join(dir, "config.json")
      }: verifier.disable is true: no trial has a reward, none is scored`,
    );
  }
  if (unfinished > 0) {
    warnings.push(
      `${dir}: ${unfinished} trial directories hold no result.json (unfinished): missing`,
    );
  }
  if (totalTrials !== undefined && totalTrials > found) {
    warnings.push(
      `${join(dir, "result.json")}: n_total_trials is ${totalTrials} but ${found} trials have a ` +
        `result.json: ${totalTrials - found} missing`,
    );
  }
  const retries = config.retry?.max_retries ?? config.orchestrator?.retry?.max_retries ?? 0;
  if (retries > 0) {
    warnings.push(
      `${join(dir, "config.json")}: retry.max_retries is ${retries}: Harbor deletes a retried ` +
        "trial's directory, so the failed attempts it retried are not in the job",
    );
  }
  return warnings;
}

/**
 * Imports a Harbor job directory: one row per trial directory holding a
 * `result.json`, mapped by {@link HARBOR_EXCEPTION_MAPPING}.
 *
 * Rules: resolved = the deciding reward (see `pickReward`: `reward`, the
 * only key, or `options.rewardKey`) >= `passThreshold` (default 1);
 * agent id = `options.agentId` ?? `<agent_info.name>/<model_info.name>`
 * (the agent's name alone when no model is recorded); run id = the
 * config's `job_name`, else the job result's `id`, else the directory's
 * name; tokens as the agent reported them (`n_input_tokens`, which
 * includes cache reads, as prompt; `n_output_tokens` as completion;
 * `tokens_reported_by` `agent`, or null and `not_recorded` when neither is
 * reported); `reported_cost_usd` = `cost_usd`; wall = the
 * `agent_execution` phase; times in UTC (`Z`, to the millisecond); tool
 * and model calls null (not recorded). Task id = the task's name without
 * its registry org (`terminal-bench/fix-git` is `fix-git`), in the rows
 * and the planned tasks alike, so a task the trials name `org/name` and
 * the config `name` is one task (see `harborTaskIds`: Harbor's
 * `Task.short_name`; a short name held under two orgs keeps them; a
 * row's notes keep a `task_name` that differs from its id). Trials of one
 * agent and task are attempts 1..n by start time, then trial name; rows
 * are sorted by agent, task and attempt. Planned tasks: the config's, when
 * it names every trial's task (see `configTaskNames`); attempts per task:
 * `n_attempts`. Cost: O(trials) file reads.
 *
 * @param dir the job directory, as given
 * @param options agent id, pass threshold, reward key
 * @returns the batch: attempts, planned tasks, warnings
 * @throws {LedgerError} `io_error` (no such directory, no `config.json`),
 *   the JSON codes of `parseJsonFile`, `schema_violation` for a field
 *   Harbor would not write, several rewards without `reward`, a phase
 *   that ends before it starts, or an agent id given for a job of several
 *   agents
 * @example
 * ```ts
 * import { importHarborJob } from "./harbor.ts";
 * const batch = await importHarborJob("tests/fixtures/import/harbor/2026-08-22__10-00-00", {});
 * const timeout = batch.attempts.find((row) => row.provenance.position.startsWith("fix-git__Zq"));
 * if (timeout?.stop_reason !== "wall_cap") throw new Error("an agent timeout is a wall cap");
 * ```
 */
export async function importHarborJob(
  dir: string,
  options: HarborImportOptions,
): Promise<ImportBatch> {
  const configFile = join(dir, "config.json");
  const config = parseJsonFile(await readInput(configFile), JobConfig, configFile).value;
  const resultFile = join(dir, "result.json");
  const job = (await pathExists(resultFile))
    ? parseJsonFile(await readInput(resultFile), JobResult, resultFile).value
    : {};
  const trajectoryWarnings: string[] = [];
  const { trials, unfinished } = await readTrials(dir, trajectoryWarnings);
  const agentOf = agentIds(trials, options.agentId);
  const named = configTaskNames(config);
  const taskId = harborTaskIds([...trials.map((trial) => trial.result.task_name), ...named ?? []]);
  const numbers = attemptNumbers(trials, agentOf, taskId);
  const runId = config.job_name ?? job.id ?? basename(dir);
  const log: TimeLog = { zoneless: 0 };
  const attempts = trials.map((trial) =>
    attemptOf(trial, {
      runId,
      agentId: agentOf(trial),
      taskId: taskId(trial.result.task_name),
      attempt: numbers.get(trial)!,
      threshold: options.passThreshold ?? 1,
      rewardKey: options.rewardKey,
    }, log)
  ).sort(byAgentTaskAttempt);
  const { planned, warning } = plannedTasks(named, trials, configFile, taskId);
  const warnings = jobWarnings(dir, config, job.n_total_trials, trials.length, unfinished);
  if (warning !== null) warnings.push(warning);
  warnings.push(...trajectoryWarnings);
  const extra = attempts.filter((row) => row.attempt === config.n_attempts + 1).length;
  if (extra > 0) {
    warnings.push(
      `${dir}: ${extra} agent and task pairs have more trials than n_attempts ` +
        `(${config.n_attempts}); every trial is kept`,
    );
  }
  if (log.zoneless > 0) {
    warnings.push(`${dir}: ${log.zoneless} times without a time zone were left out (not recorded)`);
  }
  return { attempts, planned_tasks: planned, attempts_per_task: config.n_attempts, warnings };
}

function byAgentTaskAttempt(a: ImportedAttempt, b: ImportedAttempt): number {
  const key = (row: ImportedAttempt) => [row.agent_id, row.task_id];
  const [aAgent, aTask] = key(a);
  const [bAgent, bTask] = key(b);
  if (aAgent !== bAgent) return aAgent < bAgent ? -1 : 1;
  if (aTask !== bTask) return aTask < bTask ? -1 : 1;
  return a.attempt - b.attempt;
}
