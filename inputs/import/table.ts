/**
 * `ledgerbench import table`: results kept as a plain table (CSV, TSV or
 * JSONL), one attempt per row, read through a column mapping and value
 * mappings (issue 11). See {@link TABLE_IMPORT_HELP} for the syntax a user
 * writes and {@link importTable} for the rules.
 *
 * Task ids are the `task_id` cells as written: no trimming, no case
 * folding, no prefix dropped (a JSONL number as JavaScript writes it,
 * `12`). A table follows no harness's naming, so there is no rule of its
 * own to normalise by; the table declares no planned tasks, and the task
 * list given with it (`--tasks`) must spell the same ids. A table carries
 * no format version.
 *
 * @module
 */
import { LedgerError, type LedgerProblem } from "../../analysis/ledger_error.ts";
import { sha256Stream } from "../../analysis/sha256_hex.ts";
import {
  InvalidReason,
  type Provenance,
  StopReason,
  type TokensReportedBy,
} from "../../analysis/schema/records.ts";
import { openInput, readInput } from "../input_file.ts";
import { scanJsonl } from "../jsonl.ts";
import { decodeStrictText, parseJsonObject } from "../../analysis/schema/strict_json.ts";
import { CsvScanner, CsvSyntaxError } from "./_csv.ts";
import { parseIsoTime } from "./_iso_time.ts";
import type { ImportBatch, ImportedAttempt, ImportedOutcome } from "./imported_attempt.ts";

/** Version written into every row's provenance; bump it when a row could read differently. */
export const TABLE_IMPORTER_VERSION = "1.0.0";

/** The run id of rows whose run is named neither by an option nor by a column. */
export const DEFAULT_TABLE_RUN_ID = "imported";

/** The fields a column may be mapped to, in the order the help lists them. */
export const TABLE_FIELDS = [
  "agent_id",
  "task_id",
  "resolved",
  "attempt",
  "run_id",
  "invalid_reason",
  "stop_reason",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "tool_calls",
  "model_calls",
  "wall_ms",
  "wall_seconds",
  "cost_usd",
  "model",
  "started_at",
  "finished_at",
  "notes",
] as const;
/** A field a column may be mapped to. */
export type TableField = typeof TABLE_FIELDS[number];

/** Which source column (a CSV/TSV header name, a JSONL key) each field is read from. */
export type ColumnMap = Partial<Record<TableField, string>>;

/** What a verdict cell means: a scored or invalid outcome, or `missing` (the row is left out). */
export type Verdict = ImportedOutcome | { status: "missing" };

/**
 * Cell values mapped to what they mean, per field; the key `*` matches any
 * non-empty value that neither another key nor a built-in meaning matches,
 * the key `""` an empty cell.
 */
export interface ValueMap {
  resolved?: ReadonlyMap<string, Verdict>;
  stop_reason?: ReadonlyMap<string, StopReason>;
  invalid_reason?: ReadonlyMap<string, InvalidReason>;
}

/** The table formats; by default named by the file's extension. */
export type TableFormat = "csv" | "tsv" | "jsonl";

/** Options for {@link importTable}. */
export interface TableImportOptions {
  /** The column mapping ({@link parseColumnMap}). */
  columns: ColumnMap;
  /** Value mappings ({@link parseValueMap}); defaults for the verdict apply after them. */
  values?: ValueMap;
  /** The format; default: from the extension `.csv`, `.tsv` or `.jsonl`. */
  format?: TableFormat;
  /** One agent id for every row (instead of an `agent_id` column). */
  agentId?: string;
  /** One run id for every row (instead of a `run_id` column; default {@link DEFAULT_TABLE_RUN_ID}). */
  runId?: string;
  /** Who reported the token counts; required when a token column is mapped. */
  tokensReportedBy?: Exclude<TokensReportedBy, "not_recorded">;
}

/**
 * The text for the CLI's help: the mapping and value syntax, with the
 * defaults and what is refused. Kept here, beside the rules it describes.
 */
export const TABLE_IMPORT_HELP = `Table import (CSV, TSV or JSONL; one attempt per row)

  ledgerbench import table runs.csv --out ledger.jsonl \\
    --map agent_id=model,task_id=instance_id,resolved=resolved,model_calls=turns
  ledgerbench import table runs.tsv --out ledger.jsonl --agent-id my-agent \\
    --map task_id=task,resolved=outcome \\
    --values 'resolved=PASS:true,FAIL:false,ERROR:invalid/harness_error'

--map FIELD=COLUMN,...   which column (CSV/TSV header name, JSONL key) holds each field.
  Required: task_id, resolved, and agent_id unless --agent-id is given.
  Optional: attempt (default 1), run_id (default "imported", or --run-id), invalid_reason,
  stop_reason (default completed), prompt_tokens, completion_tokens, total_tokens, tool_calls,
  model_calls, wall_ms or wall_seconds, cost_usd, model, started_at, finished_at, notes.
  A column may feed several fields (agent_id=model,model=model). Column names cannot hold ",".
--values FIELD=VALUE:MEANING,...[;FIELD=...]   what the cells of resolved, stop_reason and
  invalid_reason mean. Meanings: resolved: true, false, invalid/REASON, missing (the row is
  left out and its task counts as missing); stop_reason: completed, step_cap, token_cap,
  wall_cap, rate_limited, error; invalid_reason: verifier_fault, evidence_missing,
  harness_error, workspace_tampered, provider_fault, unsupported_api.
  A VALUE matches a cell exactly (an empty VALUE an empty cell: resolved=:missing); a pair
  splits at its last ":"; values cannot hold "," or ";". Your values come first, then the
  built-in ones: resolved true/false, 1/0, yes/no (any case), the meaning names of stop_reason
  and invalid_reason, an empty stop_reason as completed; then "*" matches any other non-empty
  cell (resolved=PASS:true,*:false).
  A non-empty invalid_reason cell makes the row invalid whatever resolved says.
--agent-id ID, --run-id ID   one agent or run for every row, instead of a column.
--format csv|tsv|jsonl   default: the file's extension.
--tokens-reported-by harness|agent   who counted the tokens; required with a token column.

Cells: an empty cell in an optional column is "not recorded" (null, never 0). Counts are
whole numbers >= 0 written as digits; wall_seconds and cost_usd are decimals >= 0; times are
ISO 8601 with a zone (2026-01-05T10:00:00Z, +02:00). total_tokens may only be mapped without
prompt_tokens and completion_tokens: the total is kept in the row's notes and its tokens stay
"not recorded" (a total cannot be split honestly). A cell the mapping does not accept is an
error naming file, line and column; nothing is read as false or 0 silently.
Files: UTF-8 without a byte-order mark; CSV/TSV per RFC 4180 (quoted fields, "" for a quote,
line breaks inside quotes, CRLF), with a header row of unique names; JSONL one object per line.`;

const TOKEN_FIELDS: readonly TableField[] = ["prompt_tokens", "completion_tokens", "total_tokens"];

const DEFAULT_VERDICTS: ReadonlyMap<string, Verdict> = new Map<string, Verdict>([
  ["true", { status: "scored", resolved: true }],
  ["false", { status: "scored", resolved: false }],
  ["1", { status: "scored", resolved: true }],
  ["0", { status: "scored", resolved: false }],
  ["yes", { status: "scored", resolved: true }],
  ["no", { status: "scored", resolved: false }],
]);

/**
 * Parses a column mapping `FIELD=COLUMN,FIELD=COLUMN` (the `--map` flag).
 *
 * Rule: each field of {@link TABLE_FIELDS} at most once; a column name is
 * everything after the first `=` (it may hold `=`, not `,`) and is not
 * empty; `wall_ms` and `wall_seconds` exclude each other, and so do
 * `total_tokens` and `prompt_tokens`/`completion_tokens`. Which fields are
 * required depends on the options ({@link importTable} checks it).
 *
 * @param text the flag's value
 * @returns the mapping
 * @throws {Error} a one-line message naming the faulty entry
 * @example
 * ```ts
 * import { parseColumnMap } from "./table.ts";
 * const map = parseColumnMap("agent_id=model,task_id=instance_id,resolved=resolved");
 * if (map.task_id !== "instance_id" || map.attempt !== undefined) throw new Error();
 * ```
 */
export function parseColumnMap(text: string): ColumnMap {
  const map: ColumnMap = {};
  for (const entry of text.split(",")) {
    const equals = entry.indexOf("=");
    const field = (equals === -1 ? entry : entry.slice(0, equals)).trim();
    if (equals === -1 || equals === entry.length - 1) {
      throw new Error(`Cannot read the column map entry "${entry}": write FIELD=COLUMN`);
    }
    if (!(TABLE_FIELDS as readonly string[]).includes(field)) {
      throw new Error(
        `Cannot map "${field}": not a field (fields: ${TABLE_FIELDS.join(", ")})`,
      );
    }
    if (map[field as TableField] !== undefined) {
      throw new Error(`Cannot map "${field}" twice`);
    }
    map[field as TableField] = entry.slice(equals + 1);
  }
  if (map.wall_ms !== undefined && map.wall_seconds !== undefined) {
    throw new Error("Cannot map both wall_ms and wall_seconds: map one of them");
  }
  if (
    map.total_tokens !== undefined &&
    (map.prompt_tokens !== undefined || map.completion_tokens !== undefined)
  ) {
    throw new Error(
      "Cannot map total_tokens beside prompt_tokens or completion_tokens: map total_tokens only when the split is not recorded",
    );
  }
  return map;
}

/**
 * Parses value mappings `FIELD=VALUE:MEANING,VALUE:MEANING[;FIELD=...]`
 * (the `--values` flag); see {@link TABLE_IMPORT_HELP} for the meanings.
 *
 * Rule: fields `resolved`, `stop_reason`, `invalid_reason`, each at most
 * once; a pair is split at its last `:`, so a value may hold `:`; `*` is
 * the catch-all for any non-empty cell that neither a value nor a built-in
 * meaning matches, an empty value matches an empty cell (not for
 * `invalid_reason`: an empty one means valid); each value at most once per
 * field. A resolved meaning is
 * `true`, `false`, `invalid/REASON` (an {@link InvalidReason}) or
 * `missing`; the others are the schema's enum values.
 *
 * @param text the flag's value
 * @returns the mappings
 * @throws {Error} a one-line message naming the faulty pair
 * @example
 * ```ts
 * import { parseValueMap } from "./table.ts";
 * const values = parseValueMap("resolved=PASS:true,FAIL:false,ERROR:invalid/harness_error");
 * const error = values.resolved?.get("ERROR");
 * if (error?.status !== "invalid" || error.invalid_reason !== "harness_error") throw new Error();
 * ```
 */
export function parseValueMap(text: string): ValueMap {
  const values: ValueMap = {};
  for (const group of text.split(";")) {
    const equals = group.indexOf("=");
    const field = group.slice(0, equals).trim();
    if (equals === -1) {
      throw new Error(`Cannot read the value map "${group}": write FIELD=VALUE:MEANING,...`);
    }
    if (field !== "resolved" && field !== "stop_reason" && field !== "invalid_reason") {
      throw new Error(
        `Cannot map values of "${field}": only resolved, stop_reason and invalid_reason take value maps`,
      );
    }
    if (values[field] !== undefined) throw new Error(`Cannot map values of "${field}" twice`);
    const meaning = MEANINGS[field];
    const map = new Map<string, never>();
    for (const pair of group.slice(equals + 1).split(",")) {
      const colon = pair.lastIndexOf(":");
      if (colon === -1) {
        throw new Error(`Cannot read the value pair "${pair}" of ${field}: write VALUE:MEANING`);
      }
      const value = pair.slice(0, colon);
      if (value === "" && field === "invalid_reason") {
        throw new Error(
          "Cannot map an empty invalid_reason cell: an empty cell means the row is valid",
        );
      }
      const parsed = meaning(pair.slice(colon + 1));
      if (parsed === null) {
        throw new Error(
          `Cannot map ${field} value "${value}" to "${pair.slice(colon + 1)}": not one of ${
            MEANING_NAMES[field]
          }`,
        );
      }
      if (map.has(value)) throw new Error(`Cannot map ${field} value "${value}" twice`);
      map.set(value, parsed as never);
    }
    values[field] = map;
  }
  return values;
}

const MEANINGS = {
  resolved: (text: string): Verdict | null => {
    if (text === "true" || text === "false") return { status: "scored", resolved: text === "true" };
    if (text === "missing") return { status: "missing" };
    const reason = text.startsWith("invalid/")
      ? InvalidReason.safeParse(text.slice("invalid/".length))
      : null;
    return reason?.success ? { status: "invalid", invalid_reason: reason.data } : null;
  },
  stop_reason: (text: string): StopReason | null => StopReason.safeParse(text).data ?? null,
  invalid_reason: (text: string): InvalidReason | null =>
    InvalidReason.safeParse(text).data ?? null,
};

const MEANING_NAMES = {
  resolved: `true, false, missing, invalid/REASON (REASON: ${InvalidReason.options.join(", ")})`,
  stop_reason: StopReason.options.join(", "),
  invalid_reason: InvalidReason.options.join(", "),
};

/** One cell: a CSV/TSV field, or a JSONL member's scalar value; null when empty or absent. */
type Cell = string | number | boolean | null;

/** A field read from one source column, with how problems name that column. */
interface Slot {
  column: string;
  /** `column 3: ` for CSV/TSV, `` for JSONL (the key is the problem's field). */
  where: string;
}

/**
 * Imports a table of attempts: one row (CSV/TSV after the header, JSONL
 * line) per attempt, read through the column and value mappings, streamed
 * and hashed in one pass.
 *
 * Rules (issue 11; syntax and defaults in {@link TABLE_IMPORT_HELP}):
 * - the verdict: a `resolved` cell is looked up in the value map, then in
 *   the defaults true/false, 1/0, yes/no (any case; a JSON boolean reads as
 *   true/false), then under the map's `*`; a non-empty `invalid_reason` cell makes the row invalid
 *   whatever the verdict says; a verdict `missing` leaves the row out (its
 *   task then counts as missing; its other cells are not read) and is
 *   counted in a warning; anything else is an error, never false;
 * - an empty cell is "not recorded" (null) in an optional column and an
 *   error in a required one (agent_id, task_id, resolved, attempt);
 * - `total_tokens` goes to the row's notes (its prompt and completion
 *   tokens stay null and `tokens_reported_by` reads `not_recorded`), since a
 *   total cannot be split honestly; `tokens_reported_by` is the option on
 *   rows with a prompt or completion count, else `not_recorded`;
 * - `wall_seconds` is rounded to whole milliseconds; `cost_usd` becomes the
 *   provenance's reported cost, `model` its model; times (ISO 8601 with a
 *   zone, `T` or a space, seconds optional: `_iso_time.ts`) are normalised
 *   to UTC at millisecond precision, and a time without a zone is an error;
 * - task id = the `task_id` cell as written (see the module doc: a table
 *   follows no harness's naming, so nothing is normalised);
 * - two rows with the same run, agent, task and attempt are an error;
 * - run id: `options.runId`, else the `run_id` column, else
 *   {@link DEFAULT_TABLE_RUN_ID}; the batch declares no planned tasks (the
 *   user passes a task list) and one attempt per task.
 *
 * Cost: one pass over the file; memory O(attempts) plus one record.
 *
 * @param path the table, as given (recorded as the provenance's source)
 * @param options the mappings and constants
 * @returns the attempts, in file order
 * @throws {Error} (plain) when the options are unusable: a required field
 *   unmapped, a constant beside its column, no `tokensReportedBy` for a token
 *   column, a format that cannot be told
 * @throws {LedgerError} for every fault of the file, naming file, line and column
 * @example
 * ```ts
 * import { importTable, parseColumnMap } from "./table.ts";
 * const path = await Deno.makeTempFile({ suffix: ".csv" });
 * await Deno.writeTextFile(path, "model,instance,ok\na,t1,yes\na,t2,0\n");
 * const batch = await importTable(path, {
 *   columns: parseColumnMap("agent_id=model,task_id=instance,resolved=ok"),
 * });
 * if (batch.attempts.length !== 2 || batch.attempts[1].prompt_tokens !== null) throw new Error();
 * await Deno.remove(path);
 * ```
 */
export async function importTable(path: string, options: TableImportOptions): Promise<ImportBatch> {
  const format = options.format ?? formatOf(path);
  checkOptions(options);
  const builder = new RowBuilder(path, options);
  const sha256 = format === "jsonl"
    ? await readJsonl(path, builder)
    : await readDelimited(path, format === "csv" ? "," : "\t", builder);
  return builder.finish(sha256);
}

/** The format a path's extension names (any case). */
function formatOf(path: string): TableFormat {
  const extension = /\.([^./\\]+)$/.exec(path)?.[1].toLowerCase();
  if (extension === "csv" || extension === "tsv" || extension === "jsonl") return extension;
  throw new Error(
    `Cannot tell the table format of "${path}" from its name: name it with --format csv, tsv or jsonl`,
  );
}

/** Refuses options that cannot describe a table (plain errors: the CLI words them as usage errors). */
function checkOptions(options: TableImportOptions): void {
  const { columns } = options;
  const required: TableField[] = options.agentId === undefined
    ? ["agent_id", "task_id", "resolved"]
    : ["task_id", "resolved"];
  const absent = required.filter((field) => columns[field] === undefined);
  if (absent.length > 0) {
    throw new Error(
      `Cannot import a table without mapping ${absent.join(", ")} (--map FIELD=COLUMN)`,
    );
  }
  if (options.agentId !== undefined && columns.agent_id !== undefined) {
    throw new Error("Cannot take the agent id both from --agent-id and from a column: give one");
  }
  if (options.runId !== undefined && columns.run_id !== undefined) {
    throw new Error("Cannot take the run id both from --run-id and from a column: give one");
  }
  for (const [name, value] of [["agent id", options.agentId], ["run id", options.runId]]) {
    if (value === "") throw new Error(`Cannot use an empty ${name}`);
  }
  if (
    options.tokensReportedBy === undefined &&
    TOKEN_FIELDS.some((field) => columns[field] !== undefined)
  ) {
    throw new Error(
      "Cannot import token counts without saying who reported them: --tokens-reported-by harness or agent",
    );
  }
}

/** Turns cells into attempts, checking each against the mapping. */
class RowBuilder {
  readonly #path: string;
  readonly #options: TableImportOptions;
  readonly #attempts: ImportedAttempt[] = [];
  /** The episode ids of the rows read. */
  readonly #seen = new Set<string>();
  #missing = 0;
  #slots: Slot[] = [];
  #slotOf: Partial<Record<TableField, number>> = {};

  constructor(path: string, options: TableImportOptions) {
    this.#path = path;
    this.#options = options;
  }

  /**
   * Sets the slots: the mapped fields in {@link TABLE_FIELDS} order, each
   * with its column and how problems name it (`where(column)`).
   *
   * @returns the columns, in slot order (the order cells are passed to {@link add})
   */
  bind(where: (column: string) => string): string[] {
    const columns: string[] = [];
    for (const field of TABLE_FIELDS) {
      const column = this.#options.columns[field];
      if (column === undefined) continue;
      this.#slotOf[field] = this.#slots.length;
      this.#slots.push({ column, where: where(column) });
      columns.push(column);
    }
    return columns;
  }

  /** Throws the problem at `line` of the file. */
  fail(
    line: number,
    field: string,
    message: string,
    code: LedgerProblem["code"] = "schema_violation",
  ): never {
    throw new LedgerError([{ code, file: this.#path, line, field, message }]);
  }

  /** Adds the row at `line` whose cells are in slot order. */
  add(cells: Cell[], line: number): void {
    const verdict = this.#verdict(cells, line);
    if (verdict.status === "missing") {
      this.#missing++;
      return;
    }
    const options = this.#options;
    const run_id = options.runId ?? (this.#text(cells, "run_id", line) ?? DEFAULT_TABLE_RUN_ID);
    const agent_id = options.agentId ?? this.#required(cells, "agent_id", line);
    const task_id = this.#required(cells, "task_id", line);
    const attempt = this.#attempt(cells, line);
    const prompt_tokens = this.#count(cells, "prompt_tokens", line);
    const completion_tokens = this.#count(cells, "completion_tokens", line);
    const wallSeconds = this.#decimal(cells, "wall_seconds", line);
    // one hash operation per row: the set does not grow at a repeat, whose first row is then found
    const seen = this.#seen.size;
    if (this.#seen.add(`${run_id}/${agent_id}/${task_id}/${attempt}`).size === seen) {
      const earlier = this.#attempts.find((a) =>
        a.run_id === run_id && a.agent_id === agent_id && a.task_id === task_id &&
        a.attempt === attempt
      )!.provenance.position;
      this.fail(
        line,
        "",
        `a second row for run "${run_id}", agent "${agent_id}", task "${task_id}", attempt ${attempt} (the first is on ${earlier}); map an attempt column if these are repeated attempts`,
        "duplicate_episode_id",
      );
    }
    const reported = prompt_tokens !== null || completion_tokens !== null;
    const provenance: Provenance = {
      evidence_kind: "imported",
      format: "table",
      importer_version: TABLE_IMPORTER_VERSION,
      source: this.#path,
      source_sha256: "", // the file's, set by finish() once the whole file is read
      position: `line ${line}`,
      tokens_reported_by: reported ? options.tokensReportedBy! : "not_recorded",
      model: this.#text(cells, "model", line),
      reported_cost_usd: this.#decimal(cells, "cost_usd", line),
    };
    this.#attempts.push({
      run_id,
      agent_id,
      task_id,
      attempt,
      outcome: verdict,
      stop_reason: this.#stopReason(cells, line),
      prompt_tokens,
      completion_tokens,
      tool_calls: this.#count(cells, "tool_calls", line),
      model_calls: this.#count(cells, "model_calls", line),
      wall_ms: wallSeconds === null
        ? this.#count(cells, "wall_ms", line)
        : Math.round(wallSeconds * 1000),
      started_at: this.#time(cells, "started_at", line),
      finished_at: this.#time(cells, "finished_at", line),
      notes: this.#notes(cells, line),
      provenance,
    });
  }

  /** The notes cell, then the total tokens the row's fields cannot hold (see {@link importTable}). */
  #notes(cells: Cell[], line: number): string {
    const notes = this.#text(cells, "notes", line) ?? "";
    const total = this.#count(cells, "total_tokens", line);
    if (total === null) return notes;
    const said = `total tokens ${total} (reported by the ${this.#options.tokensReportedBy}; ` +
      "the split into prompt and completion is not recorded)";
    return notes === "" ? said : `${notes}; ${said}`;
  }

  /** The batch, once the whole file is read and hashed. */
  finish(sha256: string): ImportBatch {
    for (const attempt of this.#attempts) attempt.provenance.source_sha256 = sha256;
    const warnings: string[] = [];
    if (this.#missing > 0) {
      warnings.push(
        `${this.#missing} row(s) of ${this.#path} have a verdict mapped to missing: left out, their tasks count as missing`,
      );
    }
    if (this.#attempts.length === 0) warnings.push(`${this.#path} holds no attempts`);
    return { attempts: this.#attempts, planned_tasks: null, attempts_per_task: 1, warnings };
  }

  #cell(cells: Cell[], field: TableField): Cell {
    const slot = this.#slotOf[field];
    return slot === undefined ? null : cells[slot];
  }

  #problem(line: number, field: TableField, message: string): never {
    const slot = this.#slots[this.#slotOf[field]!];
    return this.fail(line, slot.column, `${slot.where}${message}`);
  }

  #verdict(cells: Cell[], line: number): Verdict {
    const reason = this.#cell(cells, "invalid_reason");
    if (reason !== null) {
      const found = meaningOf(
        this.#options.values?.invalid_reason,
        String(reason),
        builtInInvalidReason,
      );
      if (found === undefined) {
        this.#problem(
          line,
          "invalid_reason",
          `${
            quoted(reason)
          } is not an invalid reason (${MEANING_NAMES.invalid_reason}); map it with --values invalid_reason=VALUE:REASON`,
        );
      }
      return { status: "invalid", invalid_reason: found };
    }
    const cell = this.#cell(cells, "resolved");
    const key = cell === null ? "" : String(cell);
    const found = meaningOf(
      this.#options.values?.resolved,
      key,
      builtInVerdict,
    );
    if (found !== undefined) return found;
    return this.#problem(
      line,
      "resolved",
      cell === null
        ? "empty verdict: map empty cells with --values resolved=:MEANING (e.g. :missing)"
        : `${
          quoted(cell)
        } is not a verdict (accepted: true/false, 1/0, yes/no); map it with --values resolved=VALUE:MEANING`,
    );
  }

  #stopReason(cells: Cell[], line: number): StopReason {
    const cell = this.#cell(cells, "stop_reason");
    const found = meaningOf(
      this.#options.values?.stop_reason,
      cell === null ? "" : String(cell),
      builtInStopReason,
    );
    if (found !== undefined) return found;
    return this.#problem(
      line,
      "stop_reason",
      `${
        quoted(cell)
      } is not a stop reason (${MEANING_NAMES.stop_reason}); map it with --values stop_reason=VALUE:REASON`,
    );
  }

  #text(cells: Cell[], field: TableField, line: number): string | null {
    const cell = this.#cell(cells, field);
    if (cell === null || typeof cell === "string") return cell;
    if (typeof cell === "number") return String(cell);
    return this.#problem(line, field, `${quoted(cell)} is a boolean, not a text`);
  }

  #required(cells: Cell[], field: TableField, line: number): string {
    return this.#text(cells, field, line) ??
      this.#problem(line, field, `empty or absent: every row needs a ${field}`);
  }

  #attempt(cells: Cell[], line: number): number {
    if (this.#slotOf.attempt === undefined) return 1;
    const attempt = this.#count(cells, "attempt", line);
    if (attempt === null) {
      return this.#problem(line, "attempt", "empty or absent: every row needs an attempt");
    }
    if (attempt === 0) return this.#problem(line, "attempt", "attempt must be 1 or more");
    return attempt;
  }

  #count(cells: Cell[], field: TableField, line: number): number | null {
    const cell = this.#cell(cells, field);
    if (cell === null) return null;
    const value = typeof cell === "string" ? digitsValue(cell) : cell;
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
    return this.#problem(line, field, `${quoted(cell)} is not a whole number >= 0`);
  }

  #decimal(cells: Cell[], field: TableField, line: number): number | null {
    const cell = this.#cell(cells, field);
    if (cell === null) return null;
    const value = typeof cell === "string" ? decimalValue(cell) : cell;
    if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
    return this.#problem(line, field, `${quoted(cell)} is not a decimal number >= 0`);
  }

  #time(cells: Cell[], field: TableField, line: number): string | null {
    const cell = this.#cell(cells, field);
    if (cell === null) return null;
    const time = typeof cell === "string" ? parseIsoTime(cell) : null;
    if (time?.kind === "instant") return time.utc;
    if (time?.kind === "out_of_range") {
      return this.#problem(
        line,
        field,
        `${quoted(cell)} is not a valid time: a field is out of range`,
      );
    }
    return this.#problem(
      line,
      field,
      `${quoted(cell)} is not an ISO 8601 time with a zone (2026-01-05T10:00:00Z, +02:00)`,
    );
  }
}

const ZERO = 48;

/**
 * The value of a cell written as decimal digits only (no sign, point or
 * space), or -1. A loop rather than a regular expression: it runs on every
 * count cell.
 */
function digitsValue(text: string): number {
  if (text.length > 15) return /^[0-9]+$/.test(text) ? Number(text) : -1;
  let value = 0;
  for (let at = 0; at < text.length; at++) {
    const digit = text.charCodeAt(at) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return text.length === 0 ? -1 : value;
}

const POINT = 46;

/**
 * The value of a cell written as digits with at most one decimal point
 * between digits (`12`, `12.5`; not `.5`, `5.`, `1e3` or `-1`), or -1. A
 * loop rather than a regular expression: it runs on every decimal cell.
 */
function decimalValue(text: string): number {
  let point = -1;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === POINT && point === -1 && at > 0 && at < text.length - 1) point = at;
    else if (code < ZERO || code > ZERO + 9) return -1;
  }
  return text.length === 0 ? -1 : Number(text);
}

/** The built-in verdicts: true/false, 1/0, yes/no in any case. */
function builtInVerdict(key: string): Verdict | undefined {
  return DEFAULT_VERDICTS.get(key.toLowerCase());
}

/** The built-in stop reasons: their names, and completed for an empty cell. */
function builtInStopReason(key: string): StopReason | undefined {
  return key === "" ? "completed" : StopReason.safeParse(key).data;
}

/** The built-in invalid reasons: their names. */
function builtInInvalidReason(key: string): InvalidReason | undefined {
  return InvalidReason.safeParse(key).data;
}

/**
 * What a cell means: the user's value for it, else the built-in meaning,
 * else the user's `*` catch-all (a non-empty cell only), else undefined.
 */
function meaningOf<T>(
  map: ReadonlyMap<string, T> | undefined,
  key: string,
  builtIn: (key: string) => T | undefined,
): T | undefined {
  return map?.get(key) ?? builtIn(key) ?? (key === "" ? undefined : map?.get("*"));
}

/** A cell quoted for a message, shortened past 60 characters. */
function quoted(cell: Cell): string {
  const text = String(cell);
  return `"${text.length > 60 ? `${text.slice(0, 60)}…` : text}"`;
}

/** Reads a CSV or TSV file into `builder`; returns the file's SHA-256. */
async function readDelimited(
  path: string,
  delimiter: "," | "\t",
  builder: RowBuilder,
): Promise<string> {
  const hash = sha256Stream();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const scanner = new CsvScanner(delimiter);
  let indexes: number[] | null = null;
  let width = 0;
  /** One row's cells, reused: {@link RowBuilder.add} keeps none of them. */
  const cells: Cell[] = [];
  const visit = (fields: string[], line: number) => {
    if (indexes === null) {
      indexes = bindHeader(fields, builder);
      width = fields.length;
      return;
    }
    if (fields.length !== width) {
      if (fields.length === 1 && fields[0] === "") {
        builder.fail(line, "", "blank line inside the file", "blank_line");
      }
      builder.fail(line, "", `${fields.length} fields, but the header on line 1 has ${width}`);
    }
    cells.length = indexes.length;
    for (let slot = 0; slot < indexes.length; slot++) {
      const cell = fields[indexes[slot]];
      cells[slot] = cell === "" ? null : cell;
    }
    builder.add(cells, line);
  };
  let bytes = 0;
  try {
    for await (const chunk of await openInput(path)) {
      hash.update(chunk);
      if (bytes === 0 && startsWithBom(chunk)) throw await encodingError(path);
      bytes += chunk.length;
      const text = decode(decoder, chunk);
      if (text === null) throw await encodingError(path);
      scanner.push(text, visit);
    }
    if (decode(decoder, new Uint8Array(0), false) === null) throw await encodingError(path);
    scanner.end(visit);
  } catch (error) {
    if (error instanceof CsvSyntaxError) builder.fail(error.line, "", error.message);
    throw error;
  }
  if (bytes === 0) {
    builder.fail(0, "", "the file is empty: a table needs a header row", "empty_file");
  }
  return hash.hex();
}

/** The decoded text of `chunk`, or null when it is not UTF-8 or holds a NUL (UTF-16?). */
function decode(decoder: TextDecoder, chunk: Uint8Array, stream = true): string | null {
  try {
    const text = decoder.decode(chunk, { stream });
    return text.includes("\0") ? null : text;
  } catch {
    return null;
  }
}

/** Whether the bytes start with a UTF-8 or UTF-16 byte-order mark. */
function startsWithBom(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) ||
    (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/**
 * The encoding problem of a file, worded and located by the inputs layer's
 * strict decoder (`decodeStrictText`), so every reader words a BOM or a bad
 * byte alike. Reads the whole file: only on this error path.
 */
async function encodingError(path: string): Promise<LedgerError> {
  const decoded = decodeStrictText(await readInput(path));
  const problem = !decoded.ok ? decoded.problem : {
    code: "bad_encoding" as const,
    line: 0,
    field: "",
    message: "holds NUL characters: save it as UTF-8 (is it UTF-16?)",
  };
  return new LedgerError([{ ...problem, file: path }]);
}

/** Checks the header and returns, per slot, the index of its column. */
function bindHeader(header: string[], builder: RowBuilder): number[] {
  const index = new Map<string, number>();
  header.forEach((name, at) => {
    const first = index.get(name);
    if (first !== undefined) {
      builder.fail(
        1,
        name,
        `the header names column ${first + 1} and column ${
          at + 1
        } alike: column names must be unique`,
        "duplicate_key",
      );
    }
    index.set(name, at);
  });
  const columns = builder.bind((column) => `column ${index.get(column)! + 1}: `);
  return columns.map((column) => {
    const at = index.get(column);
    if (at === undefined) {
      builder.fail(
        1,
        column,
        `mapped column is not in the header (${header.map((name) => `"${name}"`).join(", ")})`,
      );
    }
    return at;
  });
}

/** Reads a JSONL file into `builder`; returns the file's SHA-256. */
async function readJsonl(path: string, builder: RowBuilder): Promise<string> {
  const columns = builder.bind(() => "");
  const found = columns.map(() => false);
  let firstKeys: string[] = [];
  const summary = await scanJsonl(await openInput(path), (bytes, line, text) => {
    if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 13)) {
      builder.fail(line, "", "blank line inside the file", "blank_line");
    }
    const parsed = parseJsonObject(bytes, "a line", text);
    if (!parsed.ok) {
      const { code, field, message } = parsed.problem;
      builder.fail(line, field, message, code);
    }
    if (line === 1) firstKeys = Object.keys(parsed.value);
    const cells: Cell[] = new Array(columns.length);
    for (let slot = 0; slot < columns.length; slot++) {
      const value = parsed.value[columns[slot]];
      if (value !== undefined) found[slot] = true;
      cells[slot] = jsonCell(builder, value, line, columns[slot]);
    }
    builder.add(cells, line);
  });
  if (summary.lines === 0) builder.fail(0, "", "the file is empty: it holds no rows", "empty_file");
  const absent = columns.find((_, slot) => !found[slot]);
  if (absent !== undefined) {
    builder.fail(
      0,
      absent,
      `mapped key is on no line (line 1 has ${firstKeys.map((key) => `"${key}"`).join(", ")})`,
    );
  }
  return summary.sha256;
}

/** A JSONL member as a cell: a scalar, with `""`, null and an absent key read as empty. */
function jsonCell(builder: RowBuilder, value: unknown, line: number, key: string): Cell {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  return builder.fail(line, key, "must be a string, a number or a boolean, not an object or list");
}
