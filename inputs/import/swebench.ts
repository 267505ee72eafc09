/**
 * The `swebench` importer of `ledgerbench import` (issue 11): the SWE-bench
 * harness's final report (`<model>.<run_id>.json`), optionally checked
 * against the per-instance `report.json` tree and the predictions file.
 *
 * Read from `SWE-bench/SWE-bench` at commit 7a21e05 (release 5.0.2, August
 * 2026): `swebench/harness/reporting.py` (`make_run_report`),
 * `swebench/harness/grading.py` (`get_eval_report`,
 * `get_eval_tests_report`), `swebench/harness/infra_failure.py`,
 * `swebench/harness/run_evaluation.py` (`run_instance`,
 * `get_dataset_from_preds`); and the release 4.1.0 report for comparison.
 * What the harness guarantees and this importer relies on:
 *
 * - Every dataset instance of the run lands in exactly one of
 *   `incomplete_ids` (no prediction), `empty_patch_ids` (a prediction whose
 *   `model_patch` is `""` or null), `resolved_ids`, `unresolved_ids` (a
 *   readable `report.json` says `resolved` true or false) and `error_ids`
 *   (no `report.json`, an empty one, invalid JSON or a missing key), and
 *   `total_instances` counts them. Releases before 2.0.3 wrote neither
 *   `incomplete_ids` nor `empty_patch_ids`; a report trimmed by hand or
 *   written by another tool may count instances it does not name.
 * - `infra_failure_ids` and `ambiguous_failure_ids` exist since release
 *   5.0.0 and are advisory overlays: a classification of the unresolved and
 *   error ids by signatures in their logs ("a flagged instance stays in
 *   `unresolved_ids` / `error_ids`"), with the signature in
 *   `failure_reasons`. An unreleased commit before 5.0.0 (0fdcbfa, June
 *   2026) wrote `infra_failure_ids` as an outcome list of its own instead;
 *   both forms are read.
 * - The report's file name is the model name with `/` written as `__`,
 *   a dot, the run id and `.json`.
 * - No report holds tokens, tool calls, times or the agent's stop reason.
 * - An instance is named by one string everywhere: its `instance_id`
 *   (`<owner>__<repo>-<number>`, `astropy__astropy-12907`), the same in
 *   every id list, the predictions and the report tree's directory names
 *   (`run_instance` writes `<run_id>/<model>/<instance_id>/`). So a task id
 *   is the instance id as written, in the rows and the planned tasks alike,
 *   and the predictions and the tree are matched on it exactly.
 * - `schema_version` is 2 since release 2.0.10 (commit 44482e2, July 2024,
 *   "Add schema version to report card") and still 2 at 5.0.2; reports
 *   before it have none. Any other value is a version this importer does
 *   not know: it warns and reads the report by the version 2 rules.
 *
 * @module
 */
import { basename, join } from "node:path";
import { z } from "zod";
import { LedgerError } from "../../analysis/ledger_error.ts";
import type { Provenance } from "../../analysis/schema/records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import { openInput, readInput } from "../input_file.ts";
import { fieldProblem, parseJsonFile } from "../json_file.ts";
import { parseLine, scanJsonl } from "../jsonl.ts";
import { parseJsonObject } from "../../analysis/schema/strict_json.ts";
import type { ImportBatch, ImportedAttempt, ImportedOutcome } from "./imported_attempt.ts";

/** Written into every row's provenance; bump it when a mapping below changes. */
export const SWEBENCH_IMPORTER_VERSION = "1.0.0";

/** Options of {@link importSwebenchReport}. */
export interface SwebenchImportOptions {
  /** The agent id of every row; default: the predictions' model, else the model in the file name. */
  agentId?: string;
  /** The run id of every row; default: the run id in the file name. */
  runId?: string;
  /** The `logs/run_evaluation/<run_id>/<model>/` directory, to cross-check each `report.json`. */
  reportTree?: string;
  /** The predictions JSONL (`instance_id`, `model_name_or_path`, `model_patch`), to cross-check. */
  predictions?: string;
}

/** What one outcome list of the final report means for a row. */
export interface SwebenchListMapping {
  outcome: ImportedOutcome;
  /** What the row's notes say about the list. */
  note: string;
}

/**
 * The id lists of a final report that decide a row, and their mapping.
 * `incomplete_ids` has none: an incomplete instance has no attempt and is
 * missing (planned, without a row). The agent's stop reason is never
 * reported: every row says `completed` (the agent handed in its patch).
 *
 * | list | status | resolved / invalid reason | note |
 * |---|---|---|---|
 * | `resolved_ids` | scored | resolved | |
 * | `unresolved_ids` | scored | not resolved | |
 * | `empty_patch_ids` | scored | not resolved | empty patch |
 * | `error_ids` | invalid | `harness_error` | the harness left no usable report.json |
 * | `infra_failure_ids` | invalid | `harness_error` | infrastructure failure (and its signature) |
 * | `ambiguous_failure_ids` | invalid | `harness_error` | ambiguous failure (and its signature) |
 *
 * The last two win over `unresolved_ids` / `error_ids`, which also hold
 * their ids. An ambiguous failure is a signature that "can come from
 * either a broken environment or a bad patch" (`infra_failure.py`): when it
 * cannot be told whose fault a failure is, it is not counted against the
 * agent, so it is invalid.
 */
export const SWEBENCH_LIST_MAPPING = {
  resolved_ids: { outcome: { status: "scored", resolved: true }, note: "" },
  unresolved_ids: { outcome: { status: "scored", resolved: false }, note: "" },
  empty_patch_ids: { outcome: { status: "scored", resolved: false }, note: "empty patch" },
  error_ids: {
    outcome: { status: "invalid", invalid_reason: "harness_error" },
    note: "harness error: the evaluation left no usable report.json",
  },
  infra_failure_ids: {
    outcome: { status: "invalid", invalid_reason: "harness_error" },
    note: "infrastructure failure",
  },
  ambiguous_failure_ids: {
    outcome: { status: "invalid", invalid_reason: "harness_error" },
    note: "ambiguous failure (a broken environment or a bad patch; not counted against the agent)",
  },
} as const satisfies Record<string, SwebenchListMapping>;

type MappedList = keyof typeof SWEBENCH_LIST_MAPPING;

/** The lists that partition the run's instances (each id in at most one). */
const OUTCOME_LISTS = [
  "resolved_ids",
  "unresolved_ids",
  "empty_patch_ids",
  "error_ids",
  "incomplete_ids",
] as const;
/** The advisory classifications of unresolved and error ids (release 5.0.0). */
const OVERLAY_LISTS = ["infra_failure_ids", "ambiguous_failure_ids"] as const;
/** Lists that name ids without deciding an outcome. */
const OTHER_LISTS = ["submitted_ids", "completed_ids"] as const;
/** Every id list, in the order planned tasks are collected. */
const ALL_LISTS = [
  "resolved_ids",
  "unresolved_ids",
  "empty_patch_ids",
  "error_ids",
  "infra_failure_ids",
  "ambiguous_failure_ids",
  "incomplete_ids",
  ...OTHER_LISTS,
] as const;
type ListName = typeof ALL_LISTS[number];

/** The final report's `schema_version`s this importer reads (absent: before release 2.0.10). */
const KNOWN_SCHEMA_VERSIONS: ReadonlySet<number> = new Set([2]);

/** Count fields that must equal the length of their list when both are present. */
const COUNTED_LISTS = [
  "submitted",
  "completed",
  "resolved",
  "unresolved",
  "empty_patch",
  "error",
  "infra_failure",
  "ambiguous_failure",
] as const;

const IdList = z.array(z.string().min(1)).default([]);
const Count = z.number().int().nonnegative().optional();

/**
 * The fields of a final report this importer reads; other keys
 * (`unstopped_containers`, `unremoved_images`...) are ignored.
 * `resolved_ids` is required: a file without it is not a final report.
 */
const FinalReport = z.object({
  schema_version: z.number().int().optional(),
  total_instances: Count,
  submitted_instances: Count,
  completed_instances: Count,
  resolved_instances: Count,
  unresolved_instances: Count,
  empty_patch_instances: Count,
  error_instances: Count,
  infra_failure_instances: Count,
  ambiguous_failure_instances: Count,
  resolved_ids: z.array(z.string().min(1)),
  unresolved_ids: IdList,
  empty_patch_ids: IdList,
  error_ids: IdList,
  incomplete_ids: IdList,
  infra_failure_ids: IdList,
  ambiguous_failure_ids: IdList,
  submitted_ids: IdList,
  completed_ids: IdList,
  failure_reasons: z.record(z.string(), z.string()).default({}),
});
type FinalReport = z.infer<typeof FinalReport>;

/** `tests_status` of a per-instance report: per category, the tests that passed and failed. */
const TestsStatus = z.record(
  z.string(),
  z.object({ success: z.array(z.string()), failure: z.array(z.string()) }),
);

/** One instance's entry in `<instance_id>/report.json` (`grading.py` `get_eval_report`). */
const InstanceReport = z.object({
  patch_is_None: z.boolean().optional(),
  patch_exists: z.boolean().optional(),
  patch_successfully_applied: z.boolean().optional(),
  resolved: z.boolean(),
  infra_failure: z.boolean().optional(),
  infra_failure_reason: z.string().optional(),
  tests_status: TestsStatus.optional(),
});
type InstanceReport = z.infer<typeof InstanceReport>;

/** A per-instance report file: an object keyed by the instance id. */
const InstanceReportFile = z.record(z.string(), InstanceReport);

/** One line of the predictions file; other keys are ignored. */
const Prediction = z.object({
  instance_id: z.string().min(1),
  model_name_or_path: z.string().min(1).nullable().optional(),
  model_patch: z.string().nullable().optional(),
});

/** Where an id sits in the report: its list and index. */
interface Place<List extends ListName = ListName> {
  list: List;
  index: number;
}

/** The place of a row: a list that decides an outcome. */
type RowPlace = Place<MappedList>;

/** `resolved_ids[4]`. */
function placeText(place: Place): string {
  return `${place.list}[${place.index}]`;
}

/** The first place of every id in every list, and the planned tasks in collection order. */
interface IdIndex {
  places: Map<string, Map<ListName, number>>;
  planned: string[];
}

/**
 * Indexes every id list, refusing an id written twice in one list.
 *
 * @throws {LedgerError} `schema_violation` naming both indexes
 */
function indexIds(report: FinalReport, file: string): IdIndex {
  const places = new Map<string, Map<ListName, number>>();
  const planned: string[] = [];
  for (const list of ALL_LISTS) {
    report[list].forEach((id, index) => {
      let lists = places.get(id);
      if (lists === undefined) {
        lists = new Map();
        places.set(id, lists);
        planned.push(id);
      }
      const earlier = lists.get(list);
      if (earlier !== undefined) {
        fieldProblem(
          file,
          `${list}[${index}]`,
          `instance ${JSON.stringify(id)} is listed twice (also ${list}[${earlier}])`,
        );
      }
      lists.set(list, index);
    });
  }
  return { places, planned };
}

/**
 * Checks each `<name>_instances` count against the length of `<name>_ids`.
 *
 * @throws {LedgerError} `schema_violation` on the count
 */
function checkCounts(report: FinalReport, file: string): void {
  for (const name of COUNTED_LISTS) {
    const count = report[`${name}_instances`];
    const ids = report[`${name}_ids`];
    if (count !== undefined && count !== ids.length) {
      fieldProblem(
        file,
        `${name}_instances`,
        `is ${count} but ${name}_ids holds ${ids.length} ids`,
      );
    }
  }
}

/**
 * The list that decides an id's row, or null when it has no attempt
 * (incomplete, or named only in `submitted_ids` / `completed_ids`).
 *
 * Rules: the outcome lists are disjoint; an overlay id is in neither
 * overlay twice and, when it is also in an outcome list, that list is
 * `unresolved_ids` or `error_ids` (release 5.0.0); the overlay decides.
 *
 * @throws {LedgerError} `schema_violation` naming both places of a contradiction
 */
function decidingPlace(id: string, lists: Map<ListName, number>, file: string): RowPlace | null {
  const outcome = OUTCOME_LISTS.filter((list) => lists.has(list));
  const overlay = OVERLAY_LISTS.filter((list) => lists.has(list));
  const clash = clashOf(outcome, overlay);
  if (clash !== null) {
    const [first, second] = clash.map((list) => ({ list, index: lists.get(list)! }));
    fieldProblem(
      file,
      placeText(second),
      `instance ${JSON.stringify(id)} is also in ${placeText(first)}: ` +
        "an instance has one outcome",
    );
  }
  const list: MappedList | "incomplete_ids" | undefined = overlay.length > 0
    ? overlay[0]
    : outcome[0];
  if (list === undefined || list === "incomplete_ids") return null;
  return { list, index: lists.get(list)! };
}

/** Two lists of one id that contradict each other, or null. */
function clashOf(outcome: ListName[], overlay: ListName[]): [ListName, ListName] | null {
  if (outcome.length > 1) return [outcome[0], outcome[1]];
  if (overlay.length > 1) return [overlay[0], overlay[1]];
  const beside = outcome[0];
  const allowed = beside === undefined || beside === "unresolved_ids" || beside === "error_ids";
  return overlay.length === 1 && !allowed ? [beside, overlay[0]] : null;
}

/** What the file name says: the model (as written, `/` as `__`) and the run id. */
interface NameParts {
  model: string | null;
  runId: string | null;
  /** A note when the split was a guess. */
  warning: string | null;
}

/**
 * Splits `<model>.<run_id>.json` (`reporting.py`: the model with `/` as
 * `__`, a dot, the run id).
 *
 * Rules, first match: the given run id ends the stem; the predictions'
 * model (with `/` as `__`) starts it; else the stem splits at its last dot
 * (model names hold dots, `gpt-4.1`, run ids seldom), with a warning when
 * it has several; a stem without a dot names neither.
 */
function splitFileName(path: string, runId?: string, model?: string): NameParts {
  const name = basename(path);
  const stem = name.endsWith(".json") ? name.slice(0, -".json".length) : name;
  if (runId !== undefined && stem.endsWith(`.${runId}`) && stem.length > runId.length + 1) {
    return { model: stem.slice(0, -(runId.length + 1)), runId, warning: null };
  }
  const written = model?.replaceAll("/", "__");
  if (written !== undefined && stem.startsWith(`${written}.`) && stem.length > written.length + 1) {
    return { model: written, runId: stem.slice(written.length + 1), warning: null };
  }
  const dot = stem.lastIndexOf(".");
  if (dot <= 0 || dot === stem.length - 1) return { model: null, runId: null, warning: null };
  const parts = { model: stem.slice(0, dot), runId: stem.slice(dot + 1) };
  const warning = runId === undefined && stem.indexOf(".") !== dot
    ? `${path}: the file name splits into model ${JSON.stringify(parts.model)} and run id ` +
      `${JSON.stringify(parts.runId)} at its last dot; pass the run id if it holds a dot`
    : null;
  return { ...parts, warning };
}

/** The predictions file, read: one entry per instance id. */
interface Predictions {
  file: string;
  byId: Map<string, { line: number; patch: string | null }>;
  model: string | null;
}

/**
 * Reads the predictions JSONL: one object per line, each instance once,
 * one model name throughout.
 *
 * @throws {LedgerError} `io_error`, the line codes of `parseLine`, or
 *   `schema_violation` for a repeated instance or a second model
 */
async function readPredictions(file: string): Promise<Predictions> {
  const byId = new Map<string, { line: number; patch: string | null }>();
  const seen: { model: { name: string; line: number } | null } = { model: null };
  await scanJsonl(await openInput(file), (bytes, line, text) => {
    const parsed = parseLine(Prediction, { bytes, file, line, text });
    if (!parsed.ok) throw new LedgerError([parsed.problem]);
    const { instance_id, model_name_or_path, model_patch } = parsed.value;
    const earlier = byId.get(instance_id);
    if (earlier !== undefined) {
      throw lineProblem(
        file,
        line,
        "instance_id",
        `repeats the prediction of line ${earlier.line}`,
      );
    }
    byId.set(instance_id, { line, patch: model_patch ?? null });
    if (model_name_or_path == null) return;
    const model = seen.model;
    if (model === null) seen.model = { name: model_name_or_path, line };
    else if (model.name !== model_name_or_path) {
      throw lineProblem(
        file,
        line,
        "model_name_or_path",
        `is ${JSON.stringify(model_name_or_path)} but line ${model.line} says ` +
          `${JSON.stringify(model.name)}: one import is one agent`,
      );
    }
  });
  return { file, byId, model: seen.model?.name ?? null };
}

function lineProblem(file: string, line: number, field: string, message: string): LedgerError {
  return new LedgerError([{ code: "schema_violation", file, line, field, message }]);
}

/**
 * Checks the predictions against the report: an empty patch is empty, a
 * graded instance had a patch, an incomplete instance had no prediction.
 *
 * @returns a warning when predictions name instances the report does not
 * @throws {LedgerError} `schema_violation` naming both files
 */
function checkPredictions(
  predictions: Predictions,
  index: IdIndex,
  reportFile: string,
): string | null {
  for (const [id, lists] of index.places) {
    const prediction = predictions.byId.get(id);
    for (const list of OUTCOME_LISTS) {
      const at = lists.get(list);
      if (at === undefined) continue;
      const where = `${reportFile} lists it in ${list}[${at}]`;
      const empty = prediction !== undefined && (prediction.patch ?? "") === "";
      if (list === "incomplete_ids") {
        if (prediction !== undefined) {
          throw lineProblem(
            predictions.file,
            prediction.line,
            "instance_id",
            `predicts ${JSON.stringify(id)}, but ${where} (instances without a prediction)`,
          );
        }
      } else if (prediction === undefined) {
        fieldProblem(
          predictions.file,
          "",
          `holds no prediction of ${JSON.stringify(id)}; ${where}`,
        );
      } else if (empty !== (list === "empty_patch_ids")) {
        throw lineProblem(
          predictions.file,
          prediction.line,
          "model_patch",
          `${empty ? "is empty" : "is not empty"}, but ${where}`,
        );
      }
    }
  }
  const unnamed = [...predictions.byId.keys()].filter((id) => !index.places.has(id)).length;
  return unnamed === 0
    ? null
    : `${predictions.file}: ${unnamed} predictions name instances the report does not name`;
}

/** Counts of one `tests_status`: `FAIL_TO_PASS 2 passed 1 failed, PASS_TO_PASS 40 passed 0 failed`. */
function testsNote(status: Record<string, { success: string[]; failure: string[] }>): string {
  const parts = Object.entries(status)
    .filter(([, tests]) => tests.success.length + tests.failure.length > 0)
    .map(([name, tests]) =>
      `${name} ${tests.success.length} passed ${tests.failure.length} failed`
    );
  return parts.length === 0 ? "" : `tests: ${parts.join(", ")}`;
}

/**
 * Reads `<tree>/<id>/report.json` and checks it against the final report's
 * verdict; returns what it adds to the row's notes, or null when absent.
 *
 * Rules (`reporting.py`): an id in `resolved_ids` / `unresolved_ids` has a
 * readable report whose `resolved` is true / false; an id in `error_ids`
 * has none that is readable (empty, not JSON, or without the id or its
 * `resolved`); ids of other lists are read for their test counts only.
 *
 * @throws {LedgerError} the JSON codes, or `schema_violation` naming both files
 */
async function treeNote(
  tree: string,
  id: string,
  place: RowPlace,
  lists: Map<ListName, number>,
  reportFile: string,
): Promise<string | null> {
  const file = join(tree, id, "report.json");
  try {
    await Deno.stat(file);
  } catch {
    return null;
  }
  const bytes = await readInput(file);
  const errorAt = lists.get("error_ids");
  if (errorAt !== undefined) {
    const usable = usableReport(bytes, id);
    if (usable === null) return "report.json unreadable";
    fieldProblem(
      file,
      `${id}.resolved`,
      `grades the instance (resolved: ${usable.resolved}), but ${reportFile} lists it in ` +
        `error_ids[${errorAt}] (no usable report.json)`,
    );
  }
  const entry = parseJsonFile(bytes, InstanceReportFile, file).value[id];
  if (entry === undefined) fieldProblem(file, "", `holds no report of ${JSON.stringify(id)}`);
  for (const [list, resolved] of [["resolved_ids", true], ["unresolved_ids", false]] as const) {
    const at = lists.get(list);
    if (at !== undefined && entry.resolved !== resolved) {
      fieldProblem(
        file,
        `${id}.resolved`,
        `is ${entry.resolved}, but ${reportFile} lists the instance in ${list}[${at}]`,
      );
    }
  }
  return [
    entry.patch_successfully_applied === false && place.list !== "empty_patch_ids"
      ? "patch did not apply"
      : "",
    testsNote(entry.tests_status ?? {}),
  ].filter((note) => note !== "").join("; ");
}

/** The entry `make_run_report` would grade from these bytes, or null when it lists the id as an error. */
function usableReport(bytes: Uint8Array, id: string): InstanceReport | null {
  const parsed = parseJsonObject(bytes, "the file");
  if (!parsed.ok) return null;
  const entry = parsed.value[id];
  const result = InstanceReport.safeParse(entry);
  return result.success ? result.data : null;
}

/** The notes of a row: the list's note, the signature, the other list, the tree's findings. */
function rowNotes(
  id: string,
  place: RowPlace,
  lists: Map<ListName, number>,
  report: FinalReport,
  fromTree: string | null,
): string {
  const list = place.list;
  const reason = report.failure_reasons[id];
  const also = OUTCOME_LISTS.find((other) => other !== list && lists.has(other));
  return [
    SWEBENCH_LIST_MAPPING[list].note + (reason === undefined ? "" : `: ${reason}`),
    also === undefined ? "" : `also in ${also}[${lists.get(also)}]`,
    fromTree ?? "",
  ].filter((note) => note !== "").join("; ");
}

/** Who and what the rows belong to. */
interface RunIdentity {
  runId: string;
  agentId: string;
  model: string | null;
  warnings: string[];
}

/**
 * The run id, agent id and model of every row.
 *
 * Rules: run id = `options.runId`, else the file name's run id, else
 * `swebench-<first 12 hex of the file's SHA-256>` (with a warning); agent
 * id = `options.agentId`, else the predictions' `model_name_or_path`, else
 * the file name's model with `__` read back as `/`; the model (provenance)
 * is the predictions' or the file name's, whatever the agent id.
 *
 * @throws {LedgerError} `schema_violation` when no agent id can be found
 */
function runIdentity(
  path: string,
  sha256: string,
  options: SwebenchImportOptions,
  predictionsModel: string | null,
): RunIdentity {
  const parts = splitFileName(path, options.runId, predictionsModel ?? undefined);
  const warnings = parts.warning === null ? [] : [parts.warning];
  const model = predictionsModel ?? parts.model?.replaceAll("__", "/") ?? null;
  let runId = options.runId ?? parts.runId;
  if (runId === null) {
    runId = `swebench-${sha256.slice(0, 12)}`;
    warnings.push(`${path}: the file name names no run id; rows get run id ${runId}`);
  }
  const agentId = options.agentId ?? model;
  if (agentId === null) {
    fieldProblem(
      path,
      "",
      'the file name is not "<model>.<run_id>.json" and no predictions name the model: ' +
        "pass an agent id",
    );
  }
  return { runId, agentId, model, warnings };
}

/** The warning of a `schema_version` this importer does not know (see the module doc), or null. */
function versionWarning(report: FinalReport, file: string): string | null {
  const version = report.schema_version;
  return version === undefined || KNOWN_SCHEMA_VERSIONS.has(version)
    ? null
    : `${file}: schema_version is ${version}, not a SWE-bench report version this importer ` +
      "knows (2, or none before release 2.0.10): read by the version 2 rules";
}

/**
 * The warning when `total_instances` exceeds the ids the report names.
 *
 * @throws {LedgerError} `schema_violation` when it is below the ids the outcome lists name
 */
function totalWarning(report: FinalReport, index: IdIndex, file: string): string | null {
  const total = report.total_instances;
  if (total === undefined) return null;
  const decided = new Set(OUTCOME_LISTS.flatMap((list) => report[list])).size;
  if (total < decided) {
    fieldProblem(
      file,
      "total_instances",
      `is ${total} but the outcome lists name ${decided} instances`,
    );
  }
  const unnamed = total - index.planned.length;
  return unnamed > 0
    ? `${file}: total_instances is ${total} but the report names ${index.planned.length} ` +
      `instance ids: ${unnamed} dataset instances are not named; pass the dataset's task list`
    : null;
}

/**
 * Imports a SWE-bench final report: one attempt per instance id with an
 * outcome, mapped by {@link SWEBENCH_LIST_MAPPING}; an incomplete instance
 * (or one named only in `submitted_ids` / `completed_ids`) is planned but
 * missing.
 *
 * Rules: task id = the instance id as written (one string in every list,
 * the predictions and the report tree: see the module doc); planned tasks
 * = every id the report names, first seen in the order resolved,
 * unresolved, empty patch, error, infrastructure failure, ambiguous
 * failure, incomplete, submitted, completed; rows follow that order. A
 * `schema_version` other than 2 (or none) warns. An id twice in one list, in two outcome lists, or an overlay id
 * outside `unresolved_ids` / `error_ids` is an error naming both places;
 * so is a `<name>_instances` count that differs from its list. Tokens,
 * tool calls, model calls, wall time and times are null (not recorded),
 * `tokens_reported_by` `not_recorded`, the stop reason `completed`,
 * `attempt` 1. With `reportTree`, each instance's `report.json` is checked
 * against the final report and adds its test counts to the notes; with
 * `predictions`, every list is checked against the patches. Source:
 * SWE-bench 5.0.2 `reporting.py` (see the module doc). Cost: O(ids +
 * predictions), one file read per instance with a tree.
 *
 * @param path the final report, as given (recorded in provenance)
 * @param options agent and run id, report tree, predictions
 * @returns the batch: attempts, planned tasks, warnings
 * @throws {LedgerError} `io_error`, the JSON codes of `parseJsonFile`,
 *   `schema_violation` for the contradictions above and for a report tree
 *   or predictions file that disagrees with the report (naming both files)
 * @example
 * ```ts
 * import { importSwebenchReport } from "./swebench.ts";
 * const batch = await importSwebenchReport(
 *   "tests/fixtures/import/swebench/lite_v2/princeton-nlp__SWE-Llama-13b.lite_v2.json",
 *   {},
 * );
 * if (batch.attempts[0].agent_id !== "princeton-nlp/SWE-Llama-13b") throw new Error("agent");
 * if (batch.attempts[0].run_id !== "lite_v2") throw new Error("run");
 * ```
 */
export async function importSwebenchReport(
  path: string,
  options: SwebenchImportOptions,
): Promise<ImportBatch> {
  const bytes = await readInput(path);
  const sha256 = sha256Hex(bytes);
  const report = parseJsonFile(bytes, FinalReport, path).value;
  checkCounts(report, path);
  const index = indexIds(report, path);
  const decided = index.planned.map((id) => ({
    id,
    place: decidingPlace(id, index.places.get(id)!, path),
  }));
  const predictions = options.predictions === undefined
    ? null
    : await readPredictions(options.predictions);
  const identity = runIdentity(path, sha256, options, predictions?.model ?? null);
  const warnings = [
    ...identity.warnings,
    versionWarning(report, path),
    totalWarning(report, index, path),
    predictions === null ? null : checkPredictions(predictions, index, path),
  ];
  const attempts: ImportedAttempt[] = [];
  let treeMissing = 0;
  for (const { id, place } of decided) {
    if (place === null) continue;
    const lists = index.places.get(id)!;
    const fromTree = options.reportTree === undefined
      ? null
      : await treeNote(options.reportTree, id, place, lists, path);
    const graded = lists.has("resolved_ids") || lists.has("unresolved_ids");
    if (options.reportTree !== undefined && fromTree === null && graded) treeMissing++;
    attempts.push({
      run_id: identity.runId,
      agent_id: identity.agentId,
      task_id: id,
      attempt: 1,
      outcome: SWEBENCH_LIST_MAPPING[place.list].outcome,
      stop_reason: "completed",
      prompt_tokens: null,
      completion_tokens: null,
      tool_calls: null,
      model_calls: null,
      wall_ms: null,
      started_at: null,
      finished_at: null,
      notes: rowNotes(id, place, lists, report, fromTree),
      provenance: provenance(path, sha256, placeText(place), identity.model),
    });
  }
  if (treeMissing > 0) {
    warnings.push(
      `${options.reportTree}: ${treeMissing} graded instances (resolved or unresolved) ` +
        "have no report.json",
    );
  }
  const onlyNamed =
    decided.filter(({ id, place }) =>
      place === null && !index.places.get(id)!.has("incomplete_ids")
    ).length;
  if (onlyNamed > 0) {
    warnings.push(
      `${path}: ${onlyNamed} instance ids appear only in submitted_ids or completed_ids: ` +
        "no outcome, counted missing",
    );
  }
  return {
    attempts,
    planned_tasks: index.planned,
    attempts_per_task: 1,
    warnings: warnings.filter((warning): warning is string => warning !== null),
  };
}

function provenance(
  source: string,
  sha256: string,
  position: string,
  model: string | null,
): Provenance {
  return {
    evidence_kind: "imported",
    format: "swebench",
    importer_version: SWEBENCH_IMPORTER_VERSION,
    source,
    source_sha256: sha256,
    position,
    tokens_reported_by: "not_recorded",
    model,
    reported_cost_usd: null,
  };
}
