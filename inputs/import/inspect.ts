/**
 * `ledgerbench import inspect`: Inspect AI eval logs, `.json` (one EvalLog
 * document) and `.eval` (a ZIP of `header.json`, `summaries.json`,
 * `reductions.json` and one `samples/{id}_epoch_{epoch}.json` per sample;
 * a crashed or unfinished log has `_journal/start.json` and
 * `_journal/summaries/{n}.json` instead of the header and summaries), as
 * imported attempts (issue 11).
 *
 * Read from Inspect AI's source at commit 499e615 (0.3.260, 22 August
 * 2026; MIT): `src/inspect_ai/log/_log.py` (EvalLog, EvalSpec, EvalDataset,
 * EvalConfig, EvalSample, EvalSampleSummary, EvalSampleLimit, sort_samples),
 * `log/_recorders/eval.py` (the ZIP layout, `_read_log`, `_read_header`),
 * `_eval/task/log.py` (TaskLogger: what `eval.dataset` records),
 * `_eval/task/util.py` (slice_dataset), `_util/constants.py`
 * (LOG_SCHEMA_VERSION), `model/_model_output.py` (ModelUsage), `scorer/_metric.py`
 * (value_to_float) and the providers under `model/_providers/`, plus the
 * commits named in the table. No code was copied.
 *
 * | Inspect | attempt field | rule |
 * |---|---|---|
 * | content starting with `PK` / with `{` | — | a `.eval` ZIP / a `.json` log, whatever the extension |
 * | `eval.run_id` | `run_id` | |
 * | `options.agentId` ?? `eval.model` | `agent_id` | |
 * | `eval.task` + `/` + `sample.id` | `task_id` | sample ids are per dataset (1, 2, 3...) and repeat across tasks and logs, so the task name qualifies them; an integer id in decimal, a string id as written (Inspect's `int \| str`), by one function (`sampleId`) for the samples and the planned tasks, so a sample is one task |
 * | `sample.epoch` | `attempt` | one attempt per sample and epoch |
 * | `eval.dataset.sample_ids` | `planned_tasks` | mapped as `task_id`; null when absent |
 * | `eval.config.limit` (a count or a `[start, end]` range) or `eval.config.sample_id`, selecting fewer samples than `eval.dataset.samples` | a warning | since Inspect 0.3.45 `sample_ids` names only the selection: it is the denominator, and the warning gives the dataset's size; when `sample_ids` names the whole dataset (0.3.43, 0.3.44) it is planned and the samples without an attempt are missing (`plannedTasks`) |
 * | `version` other than 1 or 2 (absent: 2, Inspect's default) | a warning | read by the version 2 rules (`KNOWN_LOG_VERSIONS`) |
 * | `eval.config.epochs` ?? 1 | `attempts_per_task` | |
 * | `sample.error` (non-null) | invalid `harness_error`, stop `error` (unless a limit names another) | the message kept in `notes`, cut to 500 characters (`noteText`) |
 * | the one scorer's value, or `options.scorer`'s | scored, `resolved` = value ≥ `passThreshold` (default 1: full credit only) | values as Inspect's `value_to_float`: `"C"` 1, `"P"` 0.5, `"I"`/`"N"` 0, booleans, finite numbers, and (case-insensitive) `yes`/`true` 1, `no`/`false` 0, numeric strings |
 * | several scorers and no `options.scorer`; a `--scorer` no sample or result holds | error | naming the scorers available |
 * | a value that is a list, a dict, null, NaN, ±Infinity or another string | invalid `verifier_fault` | the scorer's output cannot be read as a verdict: never the agent's fault |
 * | `sample.invalidation` (set by `invalidate_samples` after the run) | invalid `verifier_fault` | its author and reason in `notes`: the score is withdrawn, and whose fault is not said |
 * | no error, no score (or not the chosen scorer) | invalid `evidence_missing` | |
 * | `sample.limit.type` token, context / message, turn / time, working / cost, operator, custom; none | `stop_reason` token_cap / step_cap / wall_cap / error; completed | the limit kept in `notes` |
 * | `sample.model_usage` summed over models | `prompt_tokens` | `input_tokens` + `input_tokens_cache_read` + `input_tokens_cache_write` where `input_tokens` excludes the cache (`_inspect_usage.ts`, `inputIncludesCache`) |
 * | same | `completion_tokens` | `output_tokens`, which includes `reasoning_tokens` (OpenAI, Anthropic), + `reasoning_tokens` for Google before 0.3.245 and for Grok (`_inspect_usage.ts`, `outputExcludesReasoning`) |
 * | same, present / absent or empty | `tokens_reported_by` | `harness` / `not_recorded` with null tokens |
 * | sum of `model_usage.*.total_cost` | `reported_cost_usd` | null when no model reports one |
 * | `sample.total_time` (seconds) | `wall_ms` | rounded; null when absent or NaN |
 * | `event` = `model` / `tool` in `sample.events` (older logs: `sample.transcript.events`), outside scorer spans and steps | `model_calls` / `tool_calls` | null when the sample records no events |
 * | an old single `sample.score` | the one scorer | named `88F74D2C`, as Inspect's migration names it |
 * | `sample.started_at` / `completed_at` | `started_at` / `finished_at` | UTC ISO 8601 with `Z` (millisecond precision); null when absent |
 * | `status` other than `success` | a warning | the samples present are imported; planned samples without a record stay missing |
 * | `.eval`: a summary (`summaries.json`, else `_journal/summaries/*.json`) of a sample without a `samples/` entry | an attempt from the summary | its `error` and `limit` are strings there; no events: null calls |
 * | `sample.input`, `target`, `messages`, `output`, `events` (older logs: `transcript.events`), `attachments`, `events_data` | `transcript` | kept as the log holds them (`sampleTranscript`), stored beside the ledger by `import` for `view` and `export inspect`; none for a summary or a sample without messages and events |
 * | the position | `provenance.position` | `samples[3]` in a `.json` log; the entry name in a `.eval` log |
 * | two records of one sample and epoch | error | (a repeated `.eval` entry name is one record: its last version, as in Inspect) |
 * | an epoch above `attempts_per_task` | a warning | the attempt is kept |
 *
 * `sample.model_usage` counts every model call of the sample, the
 * scorer's too (a model-graded scorer's tokens are in it): when scorer
 * spans hold model calls, the attempt's notes say so.
 *
 * Bare `NaN` and `Infinity` are read (Python's `json` writes them; see
 * `parseJsonObject`'s `nonFinite`); every other strictness of the inputs
 * layer stays. Each sample is read through the few fields above, without a
 * schema library: a 100,000-sample `.json` log (84 MB) imported in 1.4
 * times the time of `JSON.parse` of the same bytes (1.4 s against 1.0 s),
 * most of it the strict parser's checks and the SHA-256; the same samples
 * as a `.eval` log (55 MB, one deflated entry per sample) in 0.97 times the
 * time of inflating and `JSON.parse`-ing every entry with fflate's
 * `unzipSync` (4.8 s against 5.0 s): inflating 100,000 small entries
 * dominates both (`bench/import_bench.ts`, December 2026). Keeping each
 * sample's conversation (`sampleTranscript`: one serialisation of its
 * messages and events) adds to that: a 5,000-sample `.json` log of 113 MB,
 * 22 KB of messages and events a sample, read in 1.4 s against 0.85 s
 * without, and `import` stores the 5,000 episode logs in 1.5 s more
 * (measured in process, December 2026).
 *
 * @module
 */
import type { StopReason } from "../../analysis/schema/records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import { displayId } from "../../analysis/untrusted_text.ts";
import { readInput } from "../input_file.ts";
import type {
  ImportBatch,
  ImportedAttempt,
  ImportedOutcome,
  ImportedTranscript,
} from "./imported_attempt.ts";
import {
  field,
  type Json,
  nonEmpty,
  object,
  type Place,
  problem,
  string,
} from "./_inspect_fields.ts";
import { type InspectLog, readInspectLog, type SampleRecord } from "./_inspect_log.ts";
import {
  checkScorerKnown,
  sampleScores,
  type ScoreChoice,
  scoreVerdict,
} from "./_inspect_score.ts";
import { inspectVersion, sampleUsage, type Version } from "./_inspect_usage.ts";
import { parseIsoTime } from "./_iso_time.ts";
import { noteText } from "./_notes.ts";
import { pythonJson } from "../../analysis/python_json.ts";

export {
  GOOGLE_OUTPUT_INCLUDES_REASONING_SINCE,
  INPUT_EXCLUDES_CACHE_SINCE,
} from "./_inspect_usage.ts";

/** Version written into every attempt's provenance; bump it when an attempt could read differently. */
export const INSPECT_IMPORTER_VERSION = "inspect/2";

/** How an Inspect log is read. */
export interface InspectImportOptions {
  /** The scorer whose value decides (required when a sample has several). */
  scorer?: string;
  /** The least value that counts as resolved (default 1: full credit only). */
  passThreshold?: number;
  /** The agent id of every attempt (default: the log's `eval.model`). */
  agentId?: string;
}

/** Everything a sample's attempt needs from the log's header. */
interface LogContext extends ScoreChoice {
  runId: string;
  agentId: string;
  task: string;
  model: string;
  version: Version | null;
  source: string;
  sha256: string;
}

/**
 * Reads one Inspect AI eval log (`.json` or `.eval`, told apart by content)
 * into imported attempts, one per sample and epoch, by the rules of the
 * module table. Task id = `eval.task/sample.id` (an integer id in decimal),
 * in the attempts and the planned tasks alike; the planned tasks are
 * `eval.dataset.sample_ids`, with a warning when `eval.config.limit` or
 * `sample_id` ran part of the dataset (see `plannedTasks`: since Inspect
 * 0.3.45 the log names only the selected samples, and `eval.dataset.samples`
 * counts the whole dataset); a log `version` other than 1 or 2 warns.
 *
 * @param path the log, as given (recorded as the provenance source)
 * @param options the scorer, the pass threshold, the agent id
 * @returns the attempts, the planned tasks, the epochs, the warnings
 * @throws {LedgerError} `io_error` (unreadable), `bad_encoding` (neither a
 *   ZIP nor JSON text), `bad_archive` (a ZIP, or an entry of it, that
 *   cannot be read), `malformed_json`,
 *   `duplicate_key`, `schema_violation` (a field the rules read has the
 *   wrong type, `eval.config.limit` among them, an unknown or missing
 *   scorer choice), each naming the file
 *   (`log.eval:samples/3_epoch_1.json` for a ZIP entry) and the field
 * @example
 * ```ts
 * import { importInspectLog } from "./inspect.ts";
 * const batch = await importInspectLog(
 *   "tests/fixtures/import/inspect/log_read_sample.json",
 *   {},
 * );
 * if (batch.attempts[0].task_id !== "popularity/1") throw new Error();
 * ```
 */
export async function importInspectLog(
  path: string,
  options: InspectImportOptions,
): Promise<ImportBatch> {
  const passThreshold = options.passThreshold ?? 1;
  if (!Number.isFinite(passThreshold)) {
    throw problem("schema_violation", path, "", `pass threshold must be a finite number`);
  }
  const bytes = await readInput(path);
  const log = readInspectLog(bytes, path);
  const spec = object(log.header.eval, log.headerPlace, "eval");
  const evalPlace = { ...log.headerPlace, prefix: `${log.headerPlace.prefix}eval.` };
  const task = string(spec.task, evalPlace, "task");
  const warnings: string[] = [];
  const context: LogContext = {
    runId: nonEmpty(spec.run_id, evalPlace, "run_id"),
    agentId: options.agentId ?? nonEmpty(spec.model, evalPlace, "model"),
    task,
    model: nonEmpty(spec.model, evalPlace, "model"),
    version: inspectVersion(spec, log.headerPlace.file, warnings),
    scorer: options.scorer,
    passThreshold,
    source: path,
    sha256: sha256Hex(bytes),
  };
  const attempts = log.samples.map((record) => sampleAttempt(record, context));
  checkScorerKnown(log, context, path);
  const attemptsPerTask = epochs(spec, evalPlace);
  uniqueAttempts(attempts, log.samples);
  versionWarning(log, warnings);
  statusWarnings(log, attempts.length, warnings);
  const plan = plannedTasks(spec, evalPlace, task, attempts);
  if (plan.warning !== null) warnings.push(plan.warning);
  const beyond = attempts.filter((attempt) => attempt.attempt > attemptsPerTask).length;
  if (beyond > 0) {
    warnings.push(
      `${log.headerPlace.file}: ${beyond} attempt(s) have an epoch beyond ` +
        `eval.config.epochs (${attemptsPerTask})`,
    );
  }
  return {
    attempts,
    planned_tasks: plan.planned,
    attempts_per_task: attemptsPerTask,
    warnings,
  };
}

/** The attempt of one sample record (see the module table). */
function sampleAttempt(record: SampleRecord, context: LogContext): ImportedAttempt {
  const sample = record.value;
  const place = record.place;
  const id = sampleId(sample.id, place);
  const epoch = sample.epoch;
  if (!Number.isInteger(epoch) || (epoch as number) < 1) {
    throw problem("schema_violation", place.file, field(place, "epoch"), "must be an integer ≥ 1");
  }
  const notes: string[] = [];
  const limit = sampleLimit(sample.limit, place, record.summary);
  if (limit.note !== null) notes.push(limit.note);
  const error = errorMessage(sample.error, place, record.summary);
  const invalidation = invalidationNote(sample.invalidation, place);
  let outcome: ImportedOutcome;
  if (error !== null) {
    outcome = { status: "invalid", invalid_reason: "harness_error" };
    notes.push(`Inspect error: ${noteText(error)}`);
  } else if (invalidation !== null) {
    outcome = { status: "invalid", invalid_reason: "verifier_fault" };
    notes.push(invalidation);
  } else {
    const verdict = scoreVerdict(sampleScores(sample), place, context);
    outcome = verdict.outcome;
    if (verdict.note !== null) notes.push(verdict.note);
  }
  const usage = sampleUsage(sample.model_usage, place, context.version);
  const events = sampleEvents(sample);
  const calls = eventCounts(events, place);
  if (calls.scorerModelCalls > 0) {
    notes.push(
      `model_usage includes the tokens of ${calls.scorerModelCalls} scorer model call(s)`,
    );
  }
  return {
    run_id: context.runId,
    agent_id: context.agentId,
    task_id: `${context.task}/${id}`,
    attempt: epoch as number,
    outcome,
    stop_reason: error !== null && limit.stop === "completed" ? "error" : limit.stop,
    prompt_tokens: usage?.prompt ?? null,
    completion_tokens: usage?.completion ?? null,
    tool_calls: calls.tool,
    model_calls: calls.model,
    wall_ms: wallMs(sample.total_time, place),
    started_at: utcTime(sample.started_at, place, "started_at"),
    finished_at: utcTime(sample.completed_at, place, "completed_at"),
    notes: notes.join("; "),
    provenance: {
      evidence_kind: "imported",
      format: "inspect",
      importer_version: INSPECT_IMPORTER_VERSION,
      source: context.source,
      source_sha256: context.sha256,
      position: place.position,
      tokens_reported_by: usage === null ? "not_recorded" : "harness",
      model: context.model,
      reported_cost_usd: usage?.cost ?? null,
    },
    ...(record.summary ? {} : sampleTranscript(sample, events)),
  };
}

/**
 * What a sample kept of its conversation (see the module table): its
 * `input`, `target`, `messages` and `output`, its events, `attachments`
 * (the texts that `attachment://` references in messages and events name)
 * and `events_data`, each as the log holds it and absent when the sample
 * has none; nothing when the sample has neither messages nor events.
 */
function sampleTranscript(sample: Json, events: unknown): { transcript?: ImportedTranscript } {
  const hasMessages = Array.isArray(sample.messages) && sample.messages.length > 0;
  if (!hasMessages && !Array.isArray(events)) return {};
  const members = {
    input: sample.input,
    target: sample.target,
    messages: sample.messages,
    output: sample.output,
    events,
    attachments: sample.attachments,
    events_data: sample.events_data,
  };
  const kept = Object.entries(members).filter(([, value]) => value !== undefined && value !== null);
  return { transcript: { format: "inspect", record: pythonJson(Object.fromEntries(kept)) } };
}

/** A sample's events; in logs before `events`, those of its `transcript` (`migrate_deprecated`). */
function sampleEvents(sample: Json): unknown {
  if (sample.events !== undefined) return sample.events;
  const transcript = sample.transcript;
  return typeof transcript === "object" && transcript !== null
    ? (transcript as Json).events
    : undefined;
}

function sampleId(id: unknown, place: Place): string {
  if (typeof id === "string" && id !== "") return id;
  if (Number.isInteger(id)) return String(id);
  throw problem(
    "schema_violation",
    place.file,
    field(place, "id"),
    "must be an integer or a string",
  );
}

/** Inspect's limit types and the stop reason each means (`EvalSampleLimitType`). */
const LIMIT_STOP: Readonly<Record<string, StopReason>> = {
  token: "token_cap",
  context: "token_cap",
  message: "step_cap",
  turn: "step_cap",
  time: "wall_cap",
  working: "wall_cap",
  cost: "error",
  operator: "error",
  custom: "error",
};

/** The stop reason and note of a sample's `limit` (a string, the type, in a summary). */
function sampleLimit(
  limit: unknown,
  place: Place,
  summary: boolean,
): { stop: StopReason; note: string | null } {
  if (limit === undefined || limit === null) return { stop: "completed", note: null };
  const type = summary && typeof limit === "string" ? limit : object(limit, place, "limit").type;
  if (typeof type !== "string") {
    throw problem("schema_violation", place.file, field(place, "limit.type"), "must be a string");
  }
  const value = summary ? undefined : (limit as Json).limit;
  const note = `Inspect limit: ${type}${typeof value === "number" ? ` ${value}` : ""}`;
  return { stop: LIMIT_STOP[type] ?? "error", note };
}

/** The message of a sample's `error` (an EvalError, or a string in a summary), or null. */
function errorMessage(error: unknown, place: Place, summary: boolean): string | null {
  if (error === undefined || error === null) return null;
  if (summary && typeof error === "string") return error;
  const message = object(error, place, "error").message;
  return typeof message === "string" ? message : "(no message)";
}

/**
 * The note of a sample invalidated after the run (`EvalSample.invalidation`,
 * a ProvenanceData of `log/_edit.py`: author, reason; eval sets retry such
 * samples), or null when it is not.
 */
function invalidationNote(invalidation: unknown, place: Place): string | null {
  if (invalidation === undefined || invalidation === null) return null;
  const { author, reason } = object(invalidation, place, "invalidation");
  const by = typeof author === "string" ? ` by ${noteText(author)}` : "";
  return `invalidated in Inspect${by}${typeof reason === "string" ? `: ${noteText(reason)}` : ""}`;
}

/** Scorer span types: their model and tool calls are the scorer's, not the agent's. */
const SCORER_SPANS = new Set(["scorer", "scorers"]);

/**
 * Model and tool events of a sample outside scorer spans (`span_begin` of
 * type `scorers` or `scorer`, and the spans inside them) and, in logs from
 * before spans, outside scorer steps (`step` events of type `scorer`,
 * `begin` to `end`); null: no events recorded.
 */
function eventCounts(
  events: unknown,
  place: Place,
): { model: number | null; tool: number | null; scorerModelCalls: number } {
  if (events === undefined || events === null) {
    return { model: null, tool: null, scorerModelCalls: 0 };
  }
  if (!Array.isArray(events)) {
    throw problem("schema_violation", place.file, field(place, "events"), "must be a list");
  }
  const scorerSpans = new Set<string>();
  let scorerSteps = 0;
  let model = 0;
  let tool = 0;
  let scorerModelCalls = 0;
  for (const event of events) {
    if (typeof event !== "object" || event === null) continue;
    const kind = event.event;
    if (kind === "span_begin") {
      if (SCORER_SPANS.has(event.type) || scorerSpans.has(event.parent_id)) {
        scorerSpans.add(event.id);
      }
      continue;
    }
    if (kind === "step" && SCORER_SPANS.has(event.type)) {
      scorerSteps += event.action === "begin" ? 1 : event.action === "end" ? -1 : 0;
      continue;
    }
    const scoring = scorerSteps > 0 ||
      (typeof event.span_id === "string" && scorerSpans.has(event.span_id));
    if (kind === "model") {
      if (scoring) scorerModelCalls++;
      else model++;
    } else if (kind === "tool" && !scoring) tool++;
  }
  return { model, tool, scorerModelCalls };
}

function wallMs(totalTime: unknown, place: Place): number | null {
  if (totalTime === undefined || totalTime === null) return null;
  if (typeof totalTime === "number" && Number.isNaN(totalTime)) return null;
  if (typeof totalTime !== "number" || !Number.isFinite(totalTime) || totalTime < 0) {
    throw problem(
      "schema_violation",
      place.file,
      field(place, "total_time"),
      "must be a number of seconds ≥ 0",
    );
  }
  return Math.round(totalTime * 1000);
}

/**
 * A sample's time as UTC ISO 8601 (`…Z`, milliseconds), or null when absent.
 *
 * Rule: the forms `_iso_time.ts` reads; a time without a zone cannot be
 * placed and is refused, as is a field out of range (`2026-02-30`, which
 * `Date.parse` rolled over into March) and anything else.
 */
function utcTime(value: unknown, place: Place, name: string): string | null {
  if (value === undefined || value === null) return null;
  const time = typeof value === "string" ? parseIsoTime(value) : null;
  if (time?.kind === "instant") return time.utc;
  throw problem(
    "schema_violation",
    place.file,
    field(place, name),
    time?.kind === "out_of_range"
      ? "must be a valid time: a field is out of range"
      : "must be an ISO 8601 time with a zone",
  );
}

function epochs(spec: Json, place: Place): number {
  const config = spec.config as Json | undefined;
  const value = typeof config === "object" && config !== null ? config.epochs : undefined;
  if (value === undefined || value === null) return 1;
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw problem(
      "schema_violation",
      place.file,
      field(place, "config.epochs"),
      "must be an integer ≥ 1",
    );
  }
  return value as number;
}

/** The ids the log names: `eval.dataset.sample_ids` mapped as task ids, or null when absent. */
function datasetSampleIds(spec: Json, place: Place, task: string): string[] | null {
  const dataset = spec.dataset as Json | undefined;
  const ids = typeof dataset === "object" && dataset !== null ? dataset.sample_ids : undefined;
  if (ids === undefined || ids === null) return null;
  if (!Array.isArray(ids)) {
    throw problem(
      "schema_violation",
      place.file,
      field(place, "dataset.sample_ids"),
      "must be a list",
    );
  }
  return ids.map((id, index) =>
    `${task}/${sampleId(id, { ...place, prefix: `${place.prefix}dataset.sample_ids.${index}` })}`
  );
}

/** `eval.dataset.samples`, the dataset's size, or null when absent. */
function datasetSize(spec: Json, place: Place): number | null {
  const dataset = spec.dataset as Json | undefined;
  const size = typeof dataset === "object" && dataset !== null ? dataset.samples : undefined;
  if (size === undefined || size === null) return null;
  if (Number.isInteger(size) && (size as number) >= 0) return size as number;
  throw problem(
    "schema_violation",
    place.file,
    field(place, "dataset.samples"),
    "must be a whole number ≥ 0",
  );
}

/**
 * What selected part of the dataset, as the warning says it
 * (`eval.config.limit is 10`), or null for a run over the whole dataset.
 * `sample_id` wins over `limit`, as in Inspect's `slice_dataset`.
 *
 * @throws {LedgerError} `schema_violation` for a `limit` that is neither a
 *   whole number nor a `[start, end]` pair of them
 */
function datasetSelection(spec: Json, place: Place): string | null {
  const config = spec.config as Json | undefined;
  if (typeof config !== "object" || config === null) return null;
  if (config.sample_id !== undefined && config.sample_id !== null) {
    return "eval.config.sample_id selects samples by id";
  }
  const limit = config.limit;
  if (limit === undefined || limit === null) return null;
  const whole = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
  if (whole(limit)) return `eval.config.limit is ${limit}`;
  if (Array.isArray(limit) && limit.length === 2 && limit.every(whole)) {
    return `eval.config.limit is [${limit[0]}, ${limit[1]}]`;
  }
  throw problem(
    "schema_violation",
    place.file,
    field(place, "config.limit"),
    "must be a whole number or a [start, end] pair of them",
  );
}

/**
 * The planned tasks of a log and the warning of a run over part of its
 * dataset.
 *
 * Rule: planned = `eval.dataset.sample_ids` as task ids (null when
 * absent). A run under `eval.config.limit` (a count, or a `[start, end]`
 * range) or `eval.config.sample_id` warns unless it selected the whole
 * dataset: when `sample_ids` names as many samples as `eval.dataset.samples`
 * counts, the task list plans them all and those without an attempt are
 * missing; else the denominator is the samples the log names (or, without
 * `sample_ids`, those that ran), and the warning says how many the dataset
 * has (`eval.dataset.samples`, or that it is not recorded). Source:
 * Inspect's `_eval/task/log.py` (`TaskLogger`) writes `samples` =
 * `len(dataset)`, the whole dataset, and `sample_ids` = the ids of
 * `slice_dataset(dataset, limit, sample_id)` (`_eval/task/util.py`), the
 * selection, since 0.3.45 (commit 3355df2, November 2024); 0.3.43 and
 * 0.3.44 (commit 6c96d92) wrote the whole dataset's ids, and earlier
 * releases none. Cost: O(samples).
 */
function plannedTasks(
  spec: Json,
  place: Place,
  task: string,
  attempts: ImportedAttempt[],
): { planned: string[] | null; warning: string | null } {
  const ids = datasetSampleIds(spec, place, task);
  const size = datasetSize(spec, place);
  const selection = datasetSelection(spec, place);
  if (selection === null) return { planned: ids, warning: null };
  const ran = new Set(attempts.map((attempt) => attempt.task_id));
  const file = place.file;
  if (ids !== null && size !== null && ids.length >= size) {
    const notRun = ids.filter((id) => !ran.has(id)).length;
    return {
      planned: ids,
      warning: notRun === 0 ? null : `${file}: ${selection}: eval.dataset.sample_ids names ` +
        `all ${size} samples of the dataset, which the task list plans: the ${notRun} ` +
        "without an attempt are missing",
    };
  }
  const selected = ids?.length ?? ran.size;
  if (size !== null && selected >= size) return { planned: ids, warning: null };
  const denominator = ids === null
    ? "the log names no sample ids (eval.dataset.sample_ids), so the denominator is the " +
      `${selected} sample(s) that ran`
    : `eval.dataset.sample_ids names only the ${selected} sample(s) the run selected, so ` +
      "they are the denominator";
  const dataset = size === null
    ? "the dataset's size is not recorded (eval.dataset.samples)"
    : `the dataset has ${size} samples (eval.dataset.samples): pass its task list to count the ` +
      `other ${size - selected} as missing`;
  return { planned: ids, warning: `${file}: ${selection}: ${denominator}; ${dataset}` };
}

/**
 * The log format versions Inspect has written and this importer reads:
 * `EvalLog.version`, 1 until July 2024, 2 since (commit 696fb05, released
 * in 0.3.18; `LOG_SCHEMA_VERSION` in `_util/constants.py` at 499e615).
 * Releases 0.3.195 to 0.3.199 wrote 3 when `INSPECT_LOG_FORMAT_V3` was set
 * (commit e1b3ff7; 15d0294, in 0.3.200, went back to 2), and Inspect's
 * `.json` reader refuses any version above 2 (`_validate_version`,
 * `log/_recorders/json.py`).
 */
const KNOWN_LOG_VERSIONS: ReadonlySet<unknown> = new Set([1, 2]);

/**
 * The warning of a log whose `version` this importer does not know (see
 * {@link KNOWN_LOG_VERSIONS}); an absent version is Inspect's default, 2.
 * The log is still read, by the version 2 rules.
 */
function versionWarning(log: InspectLog, warnings: string[]): void {
  const version = log.header.version;
  if (version === undefined || KNOWN_LOG_VERSIONS.has(version)) return;
  warnings.push(
    `${log.headerPlace.file}: version is ${displayId(JSON.stringify(version))}, not an ` +
      "Inspect log format version this importer knows (1, 2): read by the version 2 rules",
  );
}

/** Two records of the same sample and epoch: an error (Inspect itself keeps one per name). */
function uniqueAttempts(attempts: ImportedAttempt[], records: SampleRecord[]): void {
  const seen = new Set<string>();
  attempts.forEach((attempt, index) => {
    const key = `${attempt.task_id}\u0000${attempt.attempt}`;
    if (seen.has(key)) {
      const place = records[index].place;
      throw problem(
        "schema_violation",
        place.file,
        field(place, "id"),
        `repeats sample "${attempt.task_id}" epoch ${attempt.attempt}`,
      );
    }
    seen.add(key);
  });
}

/** The warning of a log whose status is not `success`, and of summaries read in place of samples. */
function statusWarnings(log: InspectLog, count: number, warnings: string[]): void {
  const status = log.header.status;
  if (status !== "success") {
    warnings.push(
      `${log.headerPlace.file}: the log's status is ${
        displayId(JSON.stringify(status ?? "started"))
      }, not ` +
        `"success": imported the ${count} attempt(s) it holds; planned samples without a ` +
        "record are missing",
    );
  }
  const summaries = log.samples.filter((record) => record.summary).length;
  if (summaries > 0) {
    warnings.push(
      `${log.headerPlace.file}: ${summaries} attempt(s) read from sample summaries ` +
        "(no samples/ entry): no event counts",
    );
  }
}
