/**
 * The episode browser's index of a ledger (`ledgerbench view`): what the
 * table shows of each row, kept in typed arrays (strings once, in
 * dictionaries), and posting lists of row numbers per agent, task, outcome,
 * stop reason and invalid reason, built once. A filtered page is then read
 * from the shortest posting list its filters name, each other filter a
 * typed-array lookup per candidate: O(candidates), never a parse or a copy
 * of every row. A row's other fields (its transcript's log digest, notes,
 * verification) are not kept: the caller re-reads the one row a page needs.
 * Pure.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";
import type { AppliedErratum } from "../analysis/errata.ts";
import { type EpisodeFilter, outcomeOf, OUTCOMES } from "./episode_filter.ts";

/** What the table shows of one row (see {@link EpisodeIndex.tableRow}). */
export interface TableRow {
  /** The row's number in the index (0-based, file order). */
  index: number;
  /** Its ledger line (1-based). */
  line: number;
  row:
    & Pick<
      Episode,
      | "episode_id"
      | "agent_id"
      | "task_id"
      | "status"
      | "resolved"
      | "stop_reason"
      | "invalid_reason"
      | "wall_ms"
      | "model_calls"
    >
    & { tokens: number | null };
  /** The errata that changed the row (absent: none). */
  corrections?: readonly AppliedErratum[];
}

/** A page of the rows a filter matches. */
export interface IndexPage {
  /** Rows matching the filter. */
  total: number;
  /** The page shown (1-based, clamped to the last page) and the number of pages (at least 1). */
  page: number;
  pages: number;
  /** The page's row numbers, in file order. */
  rows: number[];
}

/** Distinct strings numbered in the order first seen. */
class Dictionary {
  readonly values: string[] = [];
  readonly #ids = new Map<string, number>();
  id(value: string): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }
  /** The number of `value`, or -1 when never seen. */
  lookup(value: string): number {
    return this.#ids.get(value) ?? -1;
  }
}

/** A column of numbers that grows by doubling. */
class Column<T extends Int32Array | Float64Array | Uint8Array> {
  #data: T;
  constructor(readonly make: (length: number) => T, capacity: number) {
    this.#data = make(Math.max(16, capacity));
  }
  set(at: number, value: number) {
    if (at >= this.#data.length) {
      const grown = this.make(this.#data.length * 2);
      grown.set(this.#data);
      this.#data = grown;
    }
    this.#data[at] = value;
  }
  /** The first `length` values, in an array of exactly that size. */
  trim(length: number): T {
    return this.#data.length === length ? this.#data : this.#data.slice(0, length) as T;
  }
}

/** Row numbers by value: the rows of value `v` are `rows[start[v]]` to `rows[start[v + 1] - 1]`. */
interface Postings {
  start: Int32Array;
  rows: Int32Array;
}

/** Counting sort of the row numbers by `value`: every list in file order. Cost: O(rows + values). */
function postings(value: Int32Array | Uint8Array, values: number): Postings {
  const start = new Int32Array(values + 1);
  for (let i = 0; i < value.length; i++) start[value[i] + 1]++;
  for (let v = 0; v < values; v++) start[v + 1] += start[v];
  const next = start.slice(0, values);
  const rows = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) rows[next[value[i]]++] = i;
  return { start, rows };
}

const NULL_INVALID = "";

/**
 * Builds an {@link EpisodeIndex} one row at a time, in file order;
 * {@link EpisodeIndexBuilder.correct} replaces a row by its corrected form
 * (errata) before {@link EpisodeIndexBuilder.finish}.
 */
export class EpisodeIndexBuilder {
  #size = 0;
  readonly #ids: string[] = [];
  readonly #byId = new Map<string, number>();
  readonly #agents = new Dictionary();
  readonly #tasks = new Dictionary();
  readonly #stops = new Dictionary();
  readonly #invalids = new Dictionary();
  readonly #corrections = new Map<number, readonly AppliedErratum[]>();
  readonly #line: Column<Int32Array>;
  readonly #agent: Column<Int32Array>;
  readonly #task: Column<Int32Array>;
  readonly #outcome: Column<Uint8Array>;
  readonly #stop: Column<Int32Array>;
  readonly #invalid: Column<Int32Array>;
  readonly #tokens: Column<Float64Array>;
  readonly #wall: Column<Float64Array>;
  readonly #calls: Column<Float64Array>;
  readonly #logged: Column<Uint8Array>;

  /** @param capacity rows expected (the columns grow past it) */
  constructor(capacity = 1024) {
    const int = (n: number) => new Int32Array(n);
    const float = (n: number) => new Float64Array(n);
    const byte = (n: number) => new Uint8Array(n);
    this.#line = new Column(int, capacity);
    this.#agent = new Column(int, capacity);
    this.#task = new Column(int, capacity);
    this.#outcome = new Column(byte, capacity);
    this.#stop = new Column(int, capacity);
    this.#invalid = new Column(int, capacity);
    this.#tokens = new Column(float, capacity);
    this.#wall = new Column(float, capacity);
    this.#calls = new Column(float, capacity);
    this.#logged = new Column(byte, capacity);
  }

  /**
   * Adds a row (its table fields only).
   *
   * @param row the ledger row
   * @param line its 1-based line
   * @returns its row number
   */
  add(row: Episode, line: number): number {
    const at = this.#size++;
    this.#ids.push(row.episode_id);
    this.#byId.set(this.#ids[at], at);
    this.#line.set(at, line);
    this.#set(at, row);
    return at;
  }

  /**
   * Replaces row `at` by its corrected form (the same episode).
   *
   * @param at the row number {@link EpisodeIndexBuilder.add} returned
   * @param row the corrected row
   * @param corrections the errata that changed it
   */
  correct(at: number, row: Episode, corrections: readonly AppliedErratum[]) {
    this.#set(at, row);
    this.#corrections.set(at, corrections);
  }

  #set(at: number, row: Episode) {
    this.#agent.set(at, this.#agents.id(row.agent_id));
    this.#task.set(at, this.#tasks.id(row.task_id));
    this.#outcome.set(at, OUTCOMES.indexOf(outcomeOf(row)));
    this.#stop.set(at, this.#stops.id(row.stop_reason));
    this.#invalid.set(at, this.#invalids.id(row.invalid_reason ?? NULL_INVALID));
    this.#tokens.set(
      at,
      row.prompt_tokens === null || row.completion_tokens === null
        ? NaN
        : row.prompt_tokens + row.completion_tokens,
    );
    this.#wall.set(at, row.wall_ms ?? NaN);
    this.#calls.set(at, row.model_calls ?? NaN);
    this.#logged.set(at, row.episode_log_digest === undefined ? 0 : 1);
  }

  /**
   * The index of every row added. Cost: O(rows + distinct values), one
   * counting sort per filtered column.
   */
  finish(): EpisodeIndex {
    const n = this.#size;
    return new EpisodeIndex({
      ids: this.#ids,
      byId: this.#byId,
      agents: this.#agents,
      tasks: this.#tasks,
      stops: this.#stops,
      invalids: this.#invalids,
      corrections: this.#corrections,
      line: this.#line.trim(n),
      agent: this.#agent.trim(n),
      task: this.#task.trim(n),
      outcome: this.#outcome.trim(n),
      stop: this.#stop.trim(n),
      invalid: this.#invalid.trim(n),
      tokens: this.#tokens.trim(n),
      wall: this.#wall.trim(n),
      calls: this.#calls.trim(n),
      logged: this.#logged.trim(n),
    });
  }
}

interface Columns {
  ids: string[];
  byId: Map<string, number>;
  agents: Dictionary;
  tasks: Dictionary;
  stops: Dictionary;
  invalids: Dictionary;
  corrections: Map<number, readonly AppliedErratum[]>;
  line: Int32Array;
  agent: Int32Array;
  task: Int32Array;
  outcome: Uint8Array;
  stop: Int32Array;
  invalid: Int32Array;
  tokens: Float64Array;
  wall: Float64Array;
  calls: Float64Array;
  logged: Uint8Array;
}

/** What a filter names, resolved to dictionary numbers (-1: a value no row has). */
interface Resolved {
  agent?: number;
  outcome?: number;
  stop?: number;
  invalid?: number;
  /** Per task number, 1 when its id contains the search. */
  task?: Uint8Array;
}

/**
 * A ledger's rows as the browser pages them (build with
 * {@link EpisodeIndexBuilder}). Row numbers are 0-based, in file order.
 */
export class EpisodeIndex {
  readonly #c: Columns;
  readonly #byAgent: Postings;
  readonly #byTask: Postings;
  readonly #byOutcome: Postings;
  readonly #byStop: Postings;
  readonly #byInvalid: Postings;

  /** @param columns the builder's columns */
  constructor(columns: Columns) {
    this.#c = columns;
    this.#byAgent = postings(columns.agent, columns.agents.values.length);
    this.#byTask = postings(columns.task, columns.tasks.values.length);
    this.#byOutcome = postings(columns.outcome, OUTCOMES.length);
    this.#byStop = postings(columns.stop, columns.stops.values.length);
    this.#byInvalid = postings(columns.invalid, columns.invalids.values.length);
  }

  /** The number of rows. */
  get size(): number {
    return this.#c.ids.length;
  }

  /** Distinct agents, sorted (UTF-16 order, as the analysis sorts ids). */
  agents(): string[] {
    return [...this.#c.agents.values].sort();
  }

  /** Distinct stop reasons, sorted. */
  stopReasons(): string[] {
    return [...this.#c.stops.values].sort();
  }

  /** Distinct invalid reasons (none for a row without one), sorted. */
  invalidReasons(): string[] {
    return this.#c.invalids.values.filter((v) => v !== NULL_INVALID).sort();
  }

  /** The row number of an episode id, or -1. */
  find(id: string): number {
    return this.#c.byId.get(id) ?? -1;
  }

  /** Row `at`'s episode id. */
  episodeId(at: number): string {
    return this.#c.ids[at];
  }

  /** Row `at`'s agent. */
  agentOf(at: number): string {
    return this.#c.agents.values[this.#c.agent[at]];
  }

  /** Row `at`'s ledger line. */
  lineOf(at: number): number {
    return this.#c.line[at];
  }

  /** Whether row `at` names a stored episode log. */
  logged(at: number): boolean {
    return this.#c.logged[at] === 1;
  }

  /** The rows on `task` (its exact id), in file order. */
  taskRows(task: string): Int32Array {
    const v = this.#c.tasks.lookup(task);
    return v === -1 ? new Int32Array(0) : this.#list(this.#byTask, v);
  }

  /** The rows on row `at`'s task, in file order. */
  taskRowsOf(at: number): Int32Array {
    return this.#list(this.#byTask, this.#c.task[at]);
  }

  /** The last row of `agent` on `task`, or -1. */
  lastOf(task: string, agent: string): number {
    const rows = this.taskRows(task);
    for (let k = rows.length - 1; k >= 0; k--) if (this.agentOf(rows[k]) === agent) return rows[k];
    return -1;
  }

  /**
   * What the table shows of row `at`.
   *
   * @param at the row number
   * @returns the row's table fields, line and corrections
   */
  tableRow(at: number): TableRow {
    const c = this.#c;
    const outcome = OUTCOMES[c.outcome[at]];
    const invalid = c.invalids.values[c.invalid[at]];
    const nullable = (value: number) => Number.isNaN(value) ? null : value;
    const corrections = c.corrections.get(at);
    return {
      index: at,
      line: c.line[at],
      row: {
        episode_id: c.ids[at],
        agent_id: c.agents.values[c.agent[at]],
        task_id: c.tasks.values[c.task[at]],
        status: outcome === "invalid" ? "invalid" : "scored",
        resolved: outcome === "invalid" ? null : outcome === "resolved",
        stop_reason: c.stops.values[c.stop[at]] as Episode["stop_reason"],
        invalid_reason: invalid === NULL_INVALID ? null : invalid as Episode["invalid_reason"],
        tokens: nullable(c.tokens[at]),
        wall_ms: nullable(c.wall[at]),
        model_calls: nullable(c.calls[at]),
      },
      ...(corrections === undefined ? {} : { corrections }),
    };
  }

  /**
   * The rows matching `filter` (exact agent, outcome, stop and invalid
   * reason; `task`: the task id contains it), page `page` of `pageSize`.
   * Cost: O(length of the shortest posting list the filters name, or of
   * the rows of the tasks the search matches, plus the number of tasks
   * when searching): the rows themselves are never read.
   *
   * @param filter the filters
   * @param page the page wanted (1-based; past the last, the last)
   * @param pageSize rows a page holds
   * @returns the count of matches and the page's row numbers
   */
  query(filter: EpisodeFilter, page: number, pageSize: number): IndexPage {
    const c = this.#c;
    const resolved = this.#resolve(filter);
    if ([resolved.agent, resolved.stop, resolved.invalid].includes(-1)) {
      return { total: 0, page: 1, pages: 1, rows: [] };
    }
    const lists: Int32Array[] = [];
    if (resolved.agent !== undefined) lists.push(this.#list(this.#byAgent, resolved.agent));
    if (resolved.outcome !== undefined) lists.push(this.#list(this.#byOutcome, resolved.outcome));
    if (resolved.stop !== undefined) lists.push(this.#list(this.#byStop, resolved.stop));
    if (resolved.invalid !== undefined) lists.push(this.#list(this.#byInvalid, resolved.invalid));
    if (resolved.task !== undefined) {
      const searched = this.#searchRows(resolved.task, lists);
      if (searched !== null) lists.push(searched);
    }
    let candidates: Int32Array | null = null;
    for (const list of lists) {
      if (candidates === null || list.length < candidates.length) candidates = list;
    }
    const { agent, outcome, stop, invalid, task } = resolved;
    const matches = (i: number) =>
      (agent === undefined || c.agent[i] === agent) &&
      (outcome === undefined || c.outcome[i] === outcome) &&
      (stop === undefined || c.stop[i] === stop) &&
      (invalid === undefined || c.invalid[i] === invalid) &&
      (task === undefined || task[c.task[i]] === 1);
    const collect = (wanted: number) => {
      const from = (wanted - 1) * pageSize;
      const rows: number[] = [];
      let total = 0;
      const visit = (i: number) => {
        if (!matches(i)) return;
        if (total >= from && rows.length < pageSize) rows.push(i);
        total++;
      };
      if (candidates !== null) { for (const i of candidates) visit(i); }
      else if (task !== undefined) { for (let i = 0; i < this.size; i++) visit(i); }
      else {
        total = this.size;
        for (let i = from; i < Math.min(this.size, from + pageSize); i++) rows.push(i);
      }
      return { total, rows };
    };
    const wanted = Math.max(1, Math.floor(Number.isFinite(page) ? page : 1));
    let found = collect(wanted);
    const pages = Math.max(1, Math.ceil(found.total / pageSize));
    if (wanted > pages) found = collect(pages);
    return { total: found.total, page: Math.min(wanted, pages), pages, rows: found.rows };
  }

  #list(p: Postings, v: number): Int32Array {
    return p.rows.subarray(p.start[v], p.start[v + 1]);
  }

  #resolve(filter: EpisodeFilter): Resolved {
    const c = this.#c;
    const number = (values: Dictionary, value: string | undefined) =>
      value === undefined ? undefined : values.lookup(value);
    const resolved: Resolved = {
      agent: number(c.agents, filter.agent),
      outcome: filter.outcome === undefined ? undefined : OUTCOMES.indexOf(filter.outcome),
      stop: number(c.stops, filter.stop),
      invalid: number(c.invalids, filter.invalid),
    };
    if (filter.task !== undefined) {
      const search = filter.task;
      resolved.task = Uint8Array.from(c.tasks.values, (t) => t.includes(search) ? 1 : 0);
    }
    return resolved;
  }

  /**
   * The rows of the tasks a search matched, in file order; null when they
   * outnumber a list already named or half the rows (the search is then
   * checked per row).
   */
  #searchRows(matched: Uint8Array, named: Int32Array[]): Int32Array | null {
    const bound = Math.min(this.size / 2, ...named.map((l) => l.length));
    let count = 0;
    for (let v = 0; v < matched.length && count <= bound; v++) {
      if (matched[v] === 1) count += this.#byTask.start[v + 1] - this.#byTask.start[v];
    }
    if (count > bound) return null;
    const rows = new Int32Array(count);
    let at = 0;
    for (let v = 0; v < matched.length; v++) {
      if (matched[v] === 1) {
        rows.set(this.#list(this.#byTask, v), at);
        at += this.#byTask.start[v + 1] - this.#byTask.start[v];
      }
    }
    return rows.sort();
  }
}
