/**
 * Ledger rows as a Harbor job directory (`ledgerbench export harbor`): the
 * pure half, rows in, the job's files (path and text) out;
 * `runner/write_harbor_job.ts` writes them.
 *
 * Read from Harbor's source (`harbor-framework/harbor`, mirrored in
 * `wrongbutworks/harbor` at commit 7d91dbf, upstream 39b85872, version
 * 0.22.0). What `harbor view DIR` needs: `src/harbor/cli/view.py`
 * (`_detect_folder_type`: DIR is a jobs folder when a subdirectory holds a
 * `config.json`), `src/harbor/viewer/scanner.py` (`JobScanner`: each
 * subdirectory a job; its trials the subdirectories holding `config.json`
 * or `result.json`; each file validated by its pydantic model, a file that
 * fails left out with a warning) and `src/harbor/viewer/server.py` (a
 * trial's reward is `verifier_result.rewards["reward"]`, its error
 * `exception_info.exception_type`, its tokens `compute_token_cost_totals`,
 * its trajectory `agent/trajectory.json`, its verifier output
 * `verifier/reward.json` and `test-stdout.txt`). The fields those models
 * require (no default), all written:
 *
 * | file | model (source) | required fields |
 * |---|---|---|
 * | `<job>/config.json` | `JobConfig` (`models/job/config.py`) | none; `tasks[]` a `TaskConfig` with `path` or `name` (`models/trial/config.py`) |
 * | `<job>/result.json` | `JobResult` (`models/job/result.py`) | `id` (UUID), `started_at`, `n_total_trials`, `stats` (`JobStats`, every field defaulted) |
 * | `<trial>/config.json` | `TrialConfig` (`models/trial/config.py`) | `task` |
 * | `<trial>/result.json` | `TrialResult` (`models/trial/result.py`) | `task_name`, `trial_name`, `trial_uri`, `task_id` (`LocalTaskId` `path` or `PackageTaskId` `org`, `name`: `models/task/id.py`), `task_checksum`, `config`, `agent_info` (`AgentInfo`: `name`, `version`; `ModelInfo`: `name`); `exception_info` (`ExceptionInfo`): `exception_type`, `exception_message`, `exception_traceback`, `occurred_at` |
 * | `<trial>/agent/trajectory.json` | `Trajectory` (`models/trajectories/`) | see `_atif_trajectory.ts` |
 * | `<trial>/verifier/reward.txt` | read by `verifier/verifier.py` as a float | |
 *
 * One job per ledger, not per agent: `JobConfig.agents` is a list, the job
 * result's `stats.evals` is keyed by agent, model and dataset, and the
 * viewer's task table groups a job's trials by agent and model, so one
 * Harbor job holds several agents (as `harbor run -a A -a B` does).
 *
 * | ledger | Harbor | rule |
 * |---|---|---|
 * | the run id (one run), else the ledger's file name without `.jsonl` | the job's directory and `job_name` | `import harbor` reads `job_name` back as the run |
 * | `agent_id` | `agent_info.name`, and `model_info.name` when the id is `<name>/<model>` with `<model>` the provenance's model | `import harbor` reads `<name>/<model>` (or the name) back as the agent |
 * | `task_id` | `task_name`; `task_id` and the config's task: `{"path": id}`, or `{"name": id}` (a package task) for an id holding `/` | |
 * | a row | one trial directory `<task>__<7 hex>`, as `TrialConfig.generate_trial_name` names them (the first 7 hex digits of the SHA-256 of the ledger's hash and the episode id) | |
 * | scored, `resolved` | `verifier_result.rewards.reward` 1 / 0, `verifier/reward.txt` | `import harbor` resolves a reward of at least 1 |
 * | scored, stopped at a cap or by an error | `exception_info` of the first type `HARBOR_EXCEPTION_MAPPING` maps to a scored row with that stop reason (`AgentTimeoutError` for `wall_cap`...) | as Harbor records an agent timeout it still verified |
 * | invalid | `exception_info`, no reward: the first type the mapping sends, without a reward, to the row's invalid reason and stop reason, else to its reason (`AgentTimeoutError` for a `verifier_fault` at `wall_cap`, `VerifierTimeoutError` for one that completed); a reason it has no type for, `<Reason>Error` (unknown to the mapping: `harness_error`, still invalid) | message `invalid (<reason>)` and the notes |
 * | `prompt_tokens`, `completion_tokens`, `provenance.reported_cost_usd` | `agent_result.n_input_tokens`, `n_output_tokens`, `cost_usd` | each only where recorded: a null stays absent, never 0 |
 * | `started_at`, `finished_at`, `wall_ms` | `started_at`, `finished_at`; `agent_execution` from `started_at` for `wall_ms` | when recorded; the agent phase is placed at the row's start |
 * | the plan's, the task list's or else the ledger's tasks; attempts per task | the job config's `tasks`, `n_attempts` | the denominator: a task without a trial is missing on import |
 * | an imported Harbor row's trajectory | `agent/trajectory.json` | as the source held it |
 * | a runner row's model calls, an imported Inspect sample's messages | `agent/trajectory.json` (`atifTrajectory`) | |
 * | the row itself | the trial's `config.json` `agent.kwargs.ledgerbench` | episode id, run, attempt, ledger line, status, reasons, notes, provenance, the errata that changed it |
 *
 * Not written: the task's files and checksum (`task_checksum` is `""`), the
 * verifier's output, `lock.json`, Harbor's metrics (its `mean` counts a
 * trial without a reward as 0, which a ledger never does), and times the row
 * does not record (`occurred_at` and the job's `started_at` then 1970-01-01,
 * never the clock). `trial_uri` is the trial's path inside the jobs
 * folder (`<job>/<trial>`, not a `file://` URI), so the same ledger gives
 * the same bytes wherever it is written.
 *
 * @module
 */
import type { Episode, InvalidReason, StopReason } from "../analysis/schema/records.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { HARBOR_EXCEPTION_MAPPING, type HarborExceptionMapping } from "../inputs/import/harbor.ts";
import type { TranscriptMessage } from "../viewer/transcript.ts";
import { atifTrajectory } from "./_atif_trajectory.ts";
import { uniqueFileName } from "./_export_names.ts";
import { type ExportContext, type ExportRow, rowMetadata } from "./_export_row.ts";

/** A row's conversation for Harbor: an imported trajectory's text, messages, or none. */
export type HarborConversation =
  | { kind: "atif"; text: string }
  | { kind: "messages"; messages: TranscriptMessage[] }
  | null;

/** One job directory: its name and its files (path inside it, text), in order. */
export interface HarborJobFiles {
  name: string;
  trials: number;
  files: [string, string][];
}

type Obj = Record<string, unknown>;

/** The time written where the rows record none (never the clock). */
const NO_TIME = "1970-01-01T00:00:00.000Z";

/** What Harbor records as an agent's version when the row names none. */
const NO_VERSION = "unknown";

/**
 * One Harbor job directory of the rows, by the rules of the module table.
 * Deterministic: the same rows and context give the same files, each
 * object's members in the order Harbor's models declare them, JSON indented
 * by 4 as Harbor writes it (`model_dump_json(indent=4)`); ids are UUIDs
 * made from the ledger's SHA-256, never random. O(rows + the size of their
 * conversations).
 *
 * @param rows the rows to export, errata applied, in ledger order
 * @param context the ledger, the errata and the denominator
 * @returns the job's name and files
 * @example
 * ```ts
 * import { harborJob } from "./_harbor_export.ts";
 * import { Episode } from "../analysis/schema/records.ts";
 * const row = Episode.parse({
 *   run_id: "r", agent_id: "a", task_id: "t1", seed: 1, resolved: true, prompt_tokens: 10,
 *   completion_tokens: null, tool_calls: 0, wall_ms: 1500, price_table_id: "p",
 * });
 * const job = harborJob([{ row, line: 1, corrections: [], conversation: null }], {
 *   ledger: { path: "l.jsonl", sha256: "0".repeat(64) },
 *   errata: null,
 *   denominator: { source: "ledger", file: null, tasks: ["t1"], attempts_per_task: null },
 * });
 * const [, text] = job.files.find(([path]) => path.endsWith("/result.json"))!;
 * const result = JSON.parse(text);
 * if (job.name !== "r" || result.verifier_result.rewards.reward !== 1) throw new Error();
 * if (JSON.stringify(result.agent_result) !== '{"n_input_tokens":10}') throw new Error();
 * ```
 */
export function harborJob(
  rows: readonly ExportRow<HarborConversation>[],
  context: ExportContext,
): HarborJobFiles {
  const runs = [...new Set(rows.map(({ row }) => row.run_id))];
  const jobName = runs.length === 1
    ? runs[0]
    : context.ledger.path.replace(/^.*\//, "").replace(/\.jsonl$/, "");
  const name = uniqueFileName(jobName, new Set());
  const jobId = uuidOf(`job ${context.ledger.sha256}`);
  const taken = new Set<string>();
  const files: [string, string][] = [];
  const trials: Obj[] = [];
  for (const entry of rows) {
    const trial = trialFiles(entry, { job: name, jobId, context, taken });
    files.push(...trial.files);
    trials.push(trial.result);
  }
  const agents = [...new Map(rows.map(({ row }) => [row.agent_id, agentOf(row)])).values()];
  const config = {
    job_name: jobName,
    n_attempts: context.denominator.attempts_per_task ?? mostAttempts(rows),
    agents: agents.map((agent) => ({
      name: agent.name,
      ...(agent.model === null ? {} : { model_name: agent.model }),
    })),
    tasks: context.denominator.tasks.map(taskConfig),
  };
  return {
    name,
    trials: rows.length,
    files: [
      ["config.json", json(config)],
      ["result.json", json(jobResult(jobId, rows, trials))],
      ...files,
    ],
  };
}

/** The most rows one agent has of one task (the job's `n_attempts` without a plan or task list). */
function mostAttempts(rows: readonly ExportRow<unknown>[]): number {
  const counts = new Map<string, number>();
  for (const { row } of rows) {
    const key = JSON.stringify([row.agent_id, row.task_id]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return Math.max(1, ...counts.values());
}

/** Harbor's JSON text of a value: indented by 4, as pydantic's `model_dump_json(indent=4)`. */
function json(value: unknown): string {
  return JSON.stringify(value, null, 4);
}

/**
 * A UUID made from text: the first 32 hex digits of its SHA-256, with the
 * version 8 (custom) and variant bits of RFC 9562 §5.8.
 */
function uuidOf(text: string): string {
  const hex = sha256Hex(text).slice(0, 32).split("");
  hex[12] = "8";
  hex[16] = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The Harbor agent of a row: `<name>/<model>` split when the provenance names the model. */
function agentOf(row: Episode): { name: string; model: string | null } {
  const model = row.provenance?.model ?? null;
  if (model !== null && row.agent_id.endsWith(`/${model}`)) {
    const name = row.agent_id.slice(0, -model.length - 1);
    if (name !== "") return { name, model };
  }
  return { name: row.agent_id, model: null };
}

/** A task's `TaskConfig`: a package task (`org/name`) for an id holding `/`, else a local path. */
function taskConfig(taskId: string): Obj {
  return taskId.includes("/") ? { name: taskId } : { path: taskId };
}

/** A task's `task_id` (`PackageTaskId` or `LocalTaskId`), as `TaskConfig.get_task_id` makes it. */
function taskIdOf(taskId: string): Obj {
  const slash = taskId.indexOf("/");
  return slash < 0
    ? { path: taskId }
    : { org: taskId.slice(0, slash), name: taskId.slice(slash + 1), ref: null };
}

/**
 * The exception type a row is exported with, or null: see the module
 * table (scored: a stop at a cap or by an error; invalid: its reason).
 */
function exceptionType(
  row: { status: Episode["status"]; invalid_reason: InvalidReason | null; stop_reason: StopReason },
): string | null {
  const entries = Object.entries(HARBOR_EXCEPTION_MAPPING);
  if (row.status === "scored") {
    if (row.stop_reason === "completed") return null;
    const found = entries.find(([, m]) =>
      m.status === "scored" && m.stop_reason === row.stop_reason
    );
    return found?.[0] ?? null;
  }
  // the row each type gives without a reward: an invalid type's, or a scored type's verifier fault
  const invalidAs = ([, m]: [string, HarborExceptionMapping]) =>
    m.status === "invalid"
      ? { reason: m.invalid_reason, stop: m.stop_reason }
      : m.without_reward === "verifier_fault"
      ? { reason: "verifier_fault", stop: m.stop_reason }
      : null;
  const found =
    entries.find((entry) =>
      invalidAs(entry)?.reason === row.invalid_reason && invalidAs(entry)?.stop === row.stop_reason
    ) ?? entries.find((entry) => invalidAs(entry)?.reason === row.invalid_reason);
  if (found !== undefined) return found[0];
  const words = (row.invalid_reason ?? "invalid").split("_");
  return words.map((word) => word[0].toUpperCase() + word.slice(1)).join("") + "Error";
}

/** The files of one trial and its result. */
function trialFiles(
  entry: ExportRow<HarborConversation>,
  job: { job: string; jobId: string; context: ExportContext; taken: Set<string> },
): { files: [string, string][]; result: Obj } {
  const { row } = entry;
  const key = `${job.context.ledger.sha256}\u0000${row.episode_id}`;
  const short = row.task_id.slice(row.task_id.lastIndexOf("/") + 1).slice(0, 32)
    .replace(/[_-]+$/, "");
  const trialName = uniqueFileName(`${short}__${sha256Hex(key).slice(0, 7)}`, job.taken);
  const agent = agentOf(row);
  const config = {
    task: taskConfig(row.task_id),
    trial_name: trialName,
    agent: {
      name: agent.name,
      ...(agent.model === null ? {} : { model_name: agent.model }),
      kwargs: { ledgerbench: rowMetadata(entry, job.context) },
    },
    job_id: job.jobId,
  };
  const usage = {
    ...(row.prompt_tokens === null ? {} : { n_input_tokens: row.prompt_tokens }),
    ...(row.completion_tokens === null ? {} : { n_output_tokens: row.completion_tokens }),
    ...(row.provenance?.reported_cost_usd == null
      ? {}
      : { cost_usd: row.provenance.reported_cost_usd }),
  };
  const type = exceptionType(row);
  const reason = row.status === "invalid"
    ? `invalid (${row.invalid_reason})`
    : `stopped: ${row.stop_reason}`;
  const result = {
    id: uuidOf(`trial ${key}`),
    task_name: row.task_id,
    trial_name: trialName,
    trial_uri: `${job.job}/${trialName}`,
    task_id: taskIdOf(row.task_id),
    source: null,
    task_checksum: "",
    config,
    agent_info: {
      name: agent.name,
      version: NO_VERSION,
      model_info: agent.model === null ? null : { name: agent.model },
    },
    agent_result: Object.keys(usage).length === 0 ? null : usage,
    verifier_result: row.status === "scored" ? { rewards: { reward: row.resolved ? 1 : 0 } } : null,
    exception_info: type === null ? null : {
      exception_type: type,
      exception_message: row.notes === "" ? reason : `${reason}: ${row.notes}`,
      exception_traceback: "",
      occurred_at: row.finished_at ?? row.started_at ?? NO_TIME,
    },
    started_at: row.started_at,
    finished_at: row.finished_at,
    agent_execution: row.started_at === null || row.wall_ms === null ? null : {
      started_at: row.started_at,
      finished_at: new Date(Date.parse(row.started_at) + row.wall_ms).toISOString(),
    },
  };
  const files: [string, string][] = [
    [`${trialName}/config.json`, json(config)],
    [`${trialName}/result.json`, json(result)],
  ];
  const trajectory = trajectoryText(entry.conversation, agent);
  if (trajectory !== null) files.push([`${trialName}/agent/trajectory.json`, trajectory]);
  if (row.status === "scored") {
    files.push([`${trialName}/verifier/reward.txt`, row.resolved ? "1" : "0"]);
  }
  return { files, result };
}

/** The trial's `agent/trajectory.json`: an imported one as it was, else the messages as ATIF. */
function trajectoryText(
  conversation: HarborConversation,
  agent: { name: string; model: string | null },
): string | null {
  if (conversation === null) return null;
  if (conversation.kind === "atif") return conversation.text;
  const trajectory = atifTrajectory(conversation.messages, {
    name: agent.name,
    version: NO_VERSION,
    model_name: agent.model,
  });
  return trajectory === null ? null : json(trajectory);
}

/** The job's `result.json` (`JobResult`): counts and token sums over the trials. */
function jobResult(
  jobId: string,
  rows: readonly ExportRow<HarborConversation>[],
  trials: readonly Obj[],
): Obj {
  const started = rows.flatMap(({ row }) => row.started_at ?? []).sort();
  const finished = rows.flatMap(({ row }) => row.finished_at ?? []).sort();
  const sum = (pick: (row: Episode) => number | null | undefined) =>
    rows.reduce<number | null>((total, { row }) => {
      const value = pick(row);
      return value == null ? total : (total ?? 0) + value;
    }, null);
  return {
    id: jobId,
    started_at: started[0] ?? NO_TIME,
    updated_at: finished.at(-1) ?? started.at(-1) ?? NO_TIME,
    finished_at: finished.at(-1) ?? null,
    n_total_trials: rows.length,
    stats: {
      n_completed_trials: rows.length,
      n_errored_trials: trials.filter((trial) => trial.exception_info !== null).length,
      n_running_trials: 0,
      n_pending_trials: 0,
      n_cancelled_trials: 0,
      n_retries: 0,
      evals: {},
      n_input_tokens: sum((row) => row.prompt_tokens),
      n_cache_tokens: null,
      n_output_tokens: sum((row) => row.completion_tokens),
      cost_usd: sum((row) => row.provenance?.reported_cost_usd),
    },
  };
}
