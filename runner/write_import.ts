/**
 * Writing imported results (issue 11, `ledgerbench import`): the attempts
 * the importers read become ordinary hash-chained ledger rows, appended
 * under the ledger's lock, and the sources' planned tasks become the task
 * list beside it, the denominator of every later command.
 *
 * Importing is append-only and refuses duplicates: when any attempt's
 * episode id, or its source position (the file's SHA-256 and the position
 * inside it), is already in the ledger or twice in the import, nothing is
 * written.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { LedgerError } from "../analysis/ledger_error.ts";
import { type Provenance, TaskList } from "../analysis/schema/records.ts";
import type { ImportBatch, ImportedAttempt } from "../inputs/import/imported_attempt.ts";
import { pathExists } from "../inputs/input_file.ts";
import type { Loaded } from "../inputs/json_file.ts";
import { loadTaskList } from "../inputs/task_list.ts";
import { acquireLedgerLock } from "./ledger_lock.ts";
import { type EpisodeDraft, LedgerWriter } from "./ledger_writer.ts";
import { storeEpisodeLog } from "./episode_log_store.ts";

/** One source and what its importer read. */
export interface ImportedSource {
  /** The file or directory as given. */
  path: string;
  batch: ImportBatch;
}

/** Options of {@link writeImport}. */
export interface WriteImportOptions {
  /** The ledger to create or append to. */
  ledger: string;
  sources: readonly ImportedSource[];
  /** Where the task list goes (created, or merged with the one there). */
  taskListPath: string;
  /** A task list given by the user: the denominator instead of the sources' own. */
  tasks: Loaded<TaskList> | null;
  /** The rows' `price_table_id` (money comes only from a frozen table named so). */
  priceTableId: string;
  /**
   * The ledger's artifact store (`artifacts/` beside it, where `show` and
   * `view` look): each attempt's kept transcript is stored there as an
   * episode log that its row names.
   */
  artifacts: string;
  /** Where warnings go; default stderr. */
  warn?: (message: string) => void;
}

/** Per source: what was written. */
export interface SourceTally {
  source: string;
  attempts: number;
  scored: number;
  resolved: number;
  invalid: number;
}

/** What {@link writeImport} did. */
export interface ImportOutcome {
  ledger: string;
  /** Rows the ledger held before. */
  existing_rows: number;
  /** Rows appended. */
  written: number;
  sources: SourceTally[];
  task_list: {
    path: string;
    tasks: number;
    attempts_per_task: number;
    /** Where the tasks came from: the user's list, the sources' declared tasks, or only their rows. */
    derived_from: "task list given" | "sources" | "rows only";
    /** True when a task list was already at the path and the new tasks were merged into it. */
    merged: boolean;
  };
  warnings: string[];
}

/**
 * Appends the imported attempts to the ledger and writes the task list.
 *
 * Rules (issue 11):
 * - every attempt becomes a row with `seed`, `evidence` and `environment`
 *   null (no seed, nothing relay-witnessed, no sandbox), its counts as the
 *   source recorded them (null: not recorded) and its `provenance`;
 * - duplicates refuse the whole import before anything is written (episode
 *   id or source SHA-256 and position already in the ledger, or repeated in
 *   the import);
 * - the task list: the user's (`tasks`), else every task the sources
 *   declare as planned (an Inspect log's dataset ids, a SWE-bench report's
 *   lists), else, for a source that declares none (a table), the tasks its
 *   rows name, with a warning that missing tasks cannot then be known;
 *   attempts per task the largest any source declares; merged into a task
 *   list already at the path (its tasks first, attempts per task equal);
 * - an attempt's kept transcript (an Inspect sample's messages and events)
 *   is stored in the artifact store as an episode log
 *   (`storeEpisodeLog`, content-addressed: the same transcript is one
 *   file), and its row names it by `episode_log_digest`, as a row the
 *   runner writes does; the logs are stored before any row is appended (a
 *   log no row names yet is harmless, a row naming no file is not);
 * - the rows are appended as one batch (`LedgerWriter.appendAll`): all of
 *   them or, after a failed write or a crash, none;
 * - the ledger's lock is held throughout (one writer per ledger).
 *
 * @param options the ledger, sources, task list path, given tasks, price table id
 * @returns what was written, per source, and the task list
 * @throws {LedgerError} `duplicate_episode_id` on a duplicate (nothing written),
 *   `schema_violation` when the task list at the path disagrees on attempts per task
 * @throws {LedgerLockedError} when another process holds the ledger's lock
 */
export async function writeImport(options: WriteImportOptions): Promise<ImportOutcome> {
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    (options.warn ?? ((m: string) => console.error(`warning: ${m}`)))(message);
  };
  for (const { batch } of options.sources) batch.warnings.forEach(warn);
  await using _lock = await acquireLedgerLock(options.ledger);
  const known = new LedgerPlaces();
  const { writer, existing } = await LedgerWriter.open(options.ledger, {
    resume: true,
    warn,
    replay: (row, line) => known.add(row.episode_id, row.provenance, line),
  });
  try {
    const attempts = options.sources.flatMap(({ batch }) => batch.attempts);
    const ids = refuseDuplicates(attempts, known, options.ledger);
    const taskList = await writeTaskList(options, warn);
    /** The episode log digest of each attempt that kept a transcript, by its index. */
    const logs = new Map<number, string>();
    for (const [index, attempt] of attempts.entries()) {
      if (attempt.transcript === undefined) continue;
      const stored = await storeEpisodeLog(options.artifacts, {
        episode_id: ids[index],
        stdoutTail: null,
        stderrTail: null,
        records: null,
        bodies: null,
        imported: attempt.transcript,
      });
      logs.set(index, stored.digest);
    }
    // one batch, whole or nothing and never seen half written (ledger_writer.ts)
    const written = await writer.appendAll(
      drafts(attempts, ids, options.priceTableId, logs),
    );
    return {
      ledger: options.ledger,
      existing_rows: existing,
      written,
      sources: options.sources.map(tally),
      task_list: taskList,
      warnings,
    };
  } finally {
    await writer.close();
  }
}

/**
 * The rows of the attempts, made one at a time as the writer takes them
 * (a million-row import never holds a second million objects).
 */
function* drafts(
  attempts: readonly ImportedAttempt[],
  ids: readonly string[],
  priceTableId: string,
  logs: ReadonlyMap<number, string>,
): Generator<EpisodeDraft> {
  for (let index = 0; index < attempts.length; index++) {
    const draft = draftOf(attempts[index], priceTableId);
    // the schema's own default, as `refuseDuplicates` made it: one string, hashed once for every check
    draft.episode_id = ids[index];
    const log = logs.get(index);
    if (log !== undefined) draft.episode_log_digest = log;
    yield draft;
  }
}

/** The ledger row of one imported attempt (the writer adds the chain link). */
function draftOf(attempt: ImportedAttempt, priceTableId: string): EpisodeDraft {
  const outcome = attempt.outcome;
  return {
    run_id: attempt.run_id,
    agent_id: attempt.agent_id,
    task_id: attempt.task_id,
    seed: null,
    attempt: attempt.attempt,
    status: outcome.status,
    resolved: outcome.status === "scored" ? outcome.resolved : null,
    invalid_reason: outcome.status === "invalid" ? outcome.invalid_reason : null,
    stop_reason: attempt.stop_reason,
    prompt_tokens: attempt.prompt_tokens,
    completion_tokens: attempt.completion_tokens,
    tool_calls: attempt.tool_calls,
    model_calls: attempt.model_calls,
    wall_ms: attempt.wall_ms,
    price_table_id: priceTableId,
    started_at: attempt.started_at,
    finished_at: attempt.finished_at,
    provenance: attempt.provenance,
    notes: attempt.notes,
  };
}

/**
 * Where the rows already in the ledger are, by their two identities: the
 * episode id, and the source position (the source's SHA-256, then the
 * position inside it). Keyed by the SHA-256 first so that a million rows
 * of one source do not make a million keys holding that SHA-256.
 */
class LedgerPlaces {
  readonly #ids = new Map<string, number>();
  readonly #sources = new Map<string, Map<string, number>>();

  /** Records the line of a row, by its episode id and, when it has one, its source position. */
  add(id: string, provenance: Provenance | undefined, line: number): void {
    this.#ids.set(id, line);
    if (provenance === undefined) return;
    let positions = this.#sources.get(provenance.source_sha256);
    if (positions === undefined) {
      positions = new Map();
      this.#sources.set(provenance.source_sha256, positions);
    }
    positions.set(provenance.position, line);
  }

  /** Whether no row was recorded (a new ledger): no lookup can find anything. */
  get empty(): boolean {
    return this.#ids.size === 0;
  }

  /** The line of the row of the episode id, or undefined. */
  id(id: string): number | undefined {
    return this.#ids.get(id);
  }

  /** The line of the row from the source position, or undefined. */
  source(provenance: Provenance): number | undefined {
    return this.#sources.get(provenance.source_sha256)?.get(provenance.position);
  }
}

function episodeIdOf(attempt: ImportedAttempt): string {
  return `${attempt.run_id}/${attempt.agent_id}/${attempt.task_id}/${attempt.attempt}`;
}

/**
 * Refuses the import when any row is already in the ledger or repeated in
 * the import: per row, its episode id (in the ledger, then earlier in the
 * import), then its source position likewise. One hash operation per
 * identity and row in a new ledger: a set that does not grow names a
 * repeat, whose first row is then looked up (on that error only).
 *
 * @returns each attempt's episode id, in order
 */
function refuseDuplicates(
  attempts: readonly ImportedAttempt[],
  known: LedgerPlaces,
  ledger: string,
): string[] {
  const ids: string[] = new Array(attempts.length);
  const seenIds = new Set<string>();
  /** The positions seen in this import, by source SHA-256; the last source's kept at hand. */
  const seenPositions = new Map<string, Set<string>>();
  let sha: string | null = null;
  let positions = new Set<string>();
  const inLedger = !known.empty;
  for (let index = 0; index < attempts.length; index++) {
    const provenance = attempts[index].provenance;
    const id = episodeIdOf(attempts[index]);
    ids[index] = id;
    if (inLedger) refuseKnown(known.id(id), id, provenance, ledger);
    let before = seenIds.size;
    if (seenIds.add(id).size === before) {
      const first = ids.indexOf(id);
      refuseRepeat(attempts[first].provenance, id, provenance);
    }
    if (inLedger) refuseKnown(known.source(provenance), id, provenance, ledger);
    if (provenance.source_sha256 !== sha) {
      sha = provenance.source_sha256;
      positions = seenPositions.get(sha) ?? new Set();
      seenPositions.set(sha, positions);
    }
    before = positions.size;
    if (positions.add(provenance.position).size === before) {
      const first = attempts.findIndex(({ provenance: p }) =>
        p.source_sha256 === sha && p.position === provenance.position
      );
      refuseRepeat(attempts[first].provenance, id, provenance);
    }
  }
  return ids;
}

/** Refuses a row one of whose identities is already in the ledger, at `line`. */
function refuseKnown(
  line: number | undefined,
  id: string,
  provenance: Provenance,
  ledger: string,
): void {
  if (line === undefined) return;
  throw duplicate(
    provenance.source,
    `episode "${id}" from ${placeOf(provenance)} is already in ledger "${ledger}" at line ` +
      `${line}: importing again refuses duplicates, nothing was written`,
  );
}

/** Refuses a row one of whose identities an earlier row of the import (from `first`) has. */
function refuseRepeat(first: Provenance, id: string, provenance: Provenance): never {
  throw duplicate(
    provenance.source,
    `episode "${id}" from ${placeOf(provenance)} repeats ${
      placeOf(first)
    } in this import: nothing was written`,
  );
}

/** Where a row came from, for a message: `runs.csv (line 12)`. */
function placeOf(provenance: Provenance): string {
  return `${provenance.source} (${provenance.position})`;
}

function duplicate(file: string, message: string): LedgerError {
  return new LedgerError([{ code: "duplicate_episode_id", file, line: 0, field: "", message }]);
}

/** Writes (or merges) the task list; see {@link writeImport} for the rule. */
async function writeTaskList(
  options: WriteImportOptions,
  warn: (message: string) => void,
): Promise<ImportOutcome["task_list"]> {
  let derivedFrom: ImportOutcome["task_list"]["derived_from"] = "sources";
  /** Where the tasks come from, in order: id lists, or rows whose task ids count (not copied). */
  const tasks: ({ ids: readonly string[] } | { rows: readonly ImportedAttempt[] })[] = [];
  let attempts: number;
  if (options.tasks !== null) {
    derivedFrom = "task list given";
    tasks.push({ ids: options.tasks.value.tasks.map((task) => task.task_id) });
    attempts = options.tasks.value.attempts_per_task;
  } else {
    attempts = 1;
    for (const { path, batch } of options.sources) {
      attempts = Math.max(attempts, batch.attempts_per_task);
      if (batch.planned_tasks !== null) {
        tasks.push({ ids: batch.planned_tasks });
        continue;
      }
      derivedFrom = "rows only";
      warn(
        `${path} declares no planned tasks: the task list holds only the tasks its rows name, ` +
          "so a task without any row cannot be counted as missing; pass --tasks with the " +
          "dataset's task ids",
      );
      tasks.push({ rows: batch.attempts });
    }
    const declared = new Set(options.sources.map(({ batch }) => batch.attempts_per_task));
    if (declared.size > 1) {
      warn(
        `the sources declare different attempts per task (${[...declared].join(", ")}): the ` +
          `task list uses ${attempts}, so sources with fewer attempts have missing ones`,
      );
    }
  }
  const previous = await pathExists(options.taskListPath)
    ? await loadTaskList(options.taskListPath)
    : null;
  if (previous !== null) {
    if (previous.value.attempts_per_task !== attempts) {
      throw new LedgerError([{
        code: "schema_violation",
        file: options.taskListPath,
        line: 0,
        field: "attempts_per_task",
        message: `is ${previous.value.attempts_per_task}, the import's sources declare ` +
          `${attempts}: importing them into this ledger would mix denominators`,
      }]);
    }
  }
  // the previous list's tasks first, then the import's: one Set, each id once, in first-seen order
  const unique = new Set<string>();
  for (const task of previous?.value.tasks ?? []) unique.add(task.task_id);
  for (const from of tasks) {
    if ("ids" in from) { for (const task of from.ids) unique.add(task); }
    else for (const attempt of from.rows) unique.add(attempt.task_id);
  }
  const recorded = [
    ...(previous?.value.sources ?? []),
    ...options.sources.flatMap(({ path, batch }) => {
      const first = batch.attempts[0]?.provenance;
      return first === undefined
        ? []
        : [{ format: first.format, source: path, source_sha256: first.source_sha256 }];
    }),
  ];
  if (unique.size === 0) {
    throw new LedgerError([{
      code: "empty_file",
      file: options.sources[0]?.path ?? options.ledger,
      line: 0,
      field: "",
      message: "holds no attempt and declares no planned task: nothing to import",
    }]);
  }
  const list = TaskList.parse({
    tasks: Array.from(unique, (task_id) => ({ task_id })),
    attempts_per_task: attempts,
    sources: recorded,
  });
  const temp = `${options.taskListPath}.tmp`;
  await Deno.writeTextFile(temp, canonicalJson(list) + "\n");
  await Deno.rename(temp, options.taskListPath);
  return {
    path: options.taskListPath,
    tasks: list.tasks.length,
    attempts_per_task: list.attempts_per_task,
    derived_from: derivedFrom,
    merged: previous !== null,
  };
}

/** A source's counts, in one pass over its attempts. */
function tally({ path, batch }: ImportedSource): SourceTally {
  let scored = 0;
  let resolved = 0;
  for (const { outcome } of batch.attempts) {
    if (outcome.status !== "scored") continue;
    scored++;
    if (outcome.resolved) resolved++;
  }
  return {
    source: path,
    attempts: batch.attempts.length,
    scored,
    resolved,
    invalid: batch.attempts.length - scored,
  };
}
