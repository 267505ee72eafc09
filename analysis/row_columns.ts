/**
 * Rows held as columns: a ledger of a million rows kept in about a tenth of
 * the memory its row objects take, each row rebuilt on demand exactly as it
 * was stored. The streaming-aggregate shape of arquero's columnar tables
 * (uwdata/arquero: columns of typed arrays, rows as views), for records
 * whose fields repeat (ids, enums, defaults) or are numbers.
 *
 * A row object of the ledger's 26-odd fields costs about 490 bytes on V8's
 * heap (a slot per field, the `caps` object, the chain's 64-hex string, the
 * derived `episode_id`); a million of them hold 467 MiB before the analysis
 * starts. Here each top-level field is a column (but the fields a table is
 * told to omit or to derive), and each value goes where it is cheapest to
 * keep:
 *
 * | value | kept as | per row |
 * |---|---|---|
 * | the one value every row of the column holds so far (a run's id, a default, a schema version) | itself, once | 0 bytes |
 * | a number | a slot of the narrowest of `Int8Array`, `Int16Array`, `Int32Array` that holds every number of the column so far, else a `Float64Array` one | 1, 2, 4 or 8 bytes |
 * | a string, `true`, `false`, `null`, or an object or array equal (as JSON text) to one seen before in the column | an index into the column's distinct values, 1, 2 or 4 bytes wide as their count needs | 1–4 bytes |
 * | anything else once the column holds {@link INTERN_LIMIT} distinct values, and more than one for every four rows (unique ids, per-row objects) | the value itself | 8 bytes and the value |
 *
 * Which keys a row has, and in which order, is kept as one of the distinct
 * key lists seen (so an absent optional field stays absent, and the rebuilt
 * row lists its keys in the stored order). Storage grows in chunks of
 * 65,536 rows, never copied once full (but once, when a column's ids or
 * numbers need a wider type), so a load never holds two copies; a column
 * whose rows held one value writes every earlier row once a second comes.
 *
 * Exactness: {@link RowColumns.row} returns an object equal to the stored
 * one less its omitted fields (same keys in the same order, same values),
 * with one exception a
 * JSON value cannot show: a `-0` inside an object or array that was
 * interned beside an equal value with `0` reads back as the first seen
 * (both print as `0`). Interned objects and arrays are shared by the rows
 * that hold them and frozen, so no reader can change another row through
 * them; numbers, strings and booleans are values. Rows must be plain data
 * (what `JSON.parse` and the schema give): functions, `undefined` values and
 * symbol keys are not kept.
 *
 * @module
 */

/** log2 of the rows in a full chunk. */
const CHUNK_BITS = 16;
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;
/** The first chunk starts this small and doubles, so a ledger of 8 rows does not allocate 65,536 slots per column. */
const FIRST_CAPACITY = 64;

/**
 * Distinct values a column interns before it keeps further new values as
 * they are, unless each has been seen four times on average: an id column
 * of 50,000 tasks is interned (2 bytes a row), and so is one of 200,000
 * tasks attempted by 20 agents; a column of a million unique ids is not
 * (its table would cost more than the strings).
 */
export const INTERN_LIMIT = 1 << 16;

/** A value's place: the number store, the plain store, or an interned value (id - 2). */
const IN_NUMBERS = 0;
const IN_PLAIN = 1;
const FIRST_INTERNED = 2;

type IdArray = Uint8Array | Uint16Array | Uint32Array;

/** Storage in chunks of {@link CHUNK_ROWS} rows; only the first chunk grows, by doubling. */
class Chunked<A extends { length: number }> {
  readonly chunks: A[] = [];
  constructor(
    readonly make: (slots: number) => A,
    readonly copy: (from: A, to: A) => void,
  ) {}

  /** The chunk holding row `row`, grown to hold it. */
  chunkFor(row: number): A {
    const index = row >>> CHUNK_BITS;
    let chunk = this.chunks[index];
    const need = (row & CHUNK_MASK) + 1;
    if (chunk === undefined || chunk.length < need) {
      let slots = chunk === undefined ? FIRST_CAPACITY : chunk.length;
      while (slots < need) slots *= 2;
      // A chunk after the first starts full: only a small ledger benefits from growing.
      if (index > 0 || slots > CHUNK_ROWS) slots = CHUNK_ROWS;
      const grown = this.make(slots);
      if (chunk !== undefined) this.copy(chunk, grown);
      this.chunks[index] = grown;
      chunk = grown;
    }
    return chunk;
  }
}

function typedChunks<A extends IdArray | NumberArray>(
  make: (slots: number) => A,
): Chunked<A> {
  return new Chunked<A>(make, (from, to) => to.set(from as never));
}

/** `from`'s chunks rewritten, each of its length, in the arrays `make` gives (a wider type). */
function widenedChunks<A extends IdArray | NumberArray>(
  from: Chunked<A>,
  make: (slots: number) => A,
): Chunked<A> {
  const wider = typedChunks<A>(make);
  from.chunks.forEach((chunk, i) => {
    wider.chunks[i] = make(chunk.length);
    wider.chunks[i].set(chunk as never);
  });
  return wider;
}

/** Freezes a JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** The number stores, narrowest first; a column's numbers move to the next one that holds a new number. */
const NUMBER_STORES: ((slots: number) => NumberArray)[] = [
  (n) => new Int8Array(n),
  (n) => new Int16Array(n),
  (n) => new Int32Array(n),
  (n) => new Float64Array(n),
];

type NumberArray = Int8Array | Int16Array | Int32Array | Float64Array;

/** The narrowest of {@link NUMBER_STORES} that holds `value` exactly (`-0` only as a float64). */
function numberStore(value: number): number {
  if ((value | 0) !== value || Object.is(value, -0)) return 3;
  if (value >= -0x80 && value <= 0x7f) return 0;
  return value >= -0x8000 && value <= 0x7fff ? 1 : 2;
}

/** No value set yet. */
const NONE: unique symbol = Symbol("none");

/** The same value as JSON data: numbers by `Object.is` (`-0` is not `0`), objects by {@link sameJson}. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number") return Object.is(a, b);
  return typeof a === "object" ? sameJson(a, b) : a === b;
}

/** One field's values, row by row. */
class Column {
  /**
   * The value every row set so far holds, kept alone (a run's id, a
   * default, `null`, a schema version): no array is written and a read
   * touches none. {@link NONE} before the first row.
   */
  private one: unknown = NONE;
  /** True once two rows differ: from then on every row's value is stored. */
  private many = false;
  /** Each row's place (see IN_NUMBERS..FIRST_INTERNED); null while every value is a number. */
  private ids: Chunked<IdArray> | null = null;
  /** The largest id the id chunks' width holds. */
  private idLimit = 0xff;
  /** The numbers, in the narrowest of {@link NUMBER_STORES} that holds every one so far. */
  private numbers: Chunked<NumberArray> | null = null;
  private numberKind = 0;
  private plain: Chunked<unknown[]> | null = null;
  /** Interned values, in order of first appearance. */
  private readonly values: unknown[] = [];
  /** Strings, booleans and null → their id. */
  private readonly primitiveIds = new Map<unknown, number>();
  /** Objects and arrays by JSON text → their id. */
  private readonly objectIds = new Map<string, number>();
  /** The last interned object and its id: rows in a run often repeat it (`caps`), and comparing is cheaper than writing its JSON text. */
  private lastObject: unknown = undefined;
  private lastObjectId = 0;

  set(row: number, value: unknown): void {
    if (!this.many) {
      if (this.one === NONE) {
        this.one = deepFreeze(value);
        return;
      }
      if (sameValue(value, this.one)) return;
      // The second value: the rows so far are written now, each with the one value.
      this.many = true;
      for (let earlier = 0; earlier < row; earlier++) this.store(earlier, this.one);
    }
    this.store(row, value);
  }

  get(row: number): unknown {
    if (!this.many) return this.one;
    const chunk = row >>> CHUNK_BITS;
    const at = row & CHUNK_MASK;
    if (this.ids === null) return this.numbers!.chunks[chunk][at];
    const id = this.ids.chunks[chunk][at];
    if (id >= FIRST_INTERNED) return this.values[id - FIRST_INTERNED];
    if (id === IN_NUMBERS) return this.numbers!.chunks[chunk][at];
    return this.plain!.chunks[chunk][at];
  }

  private store(row: number, value: unknown): void {
    if (typeof value === "number") {
      const kind = numberStore(value);
      this.numbers ??= typedChunks<NumberArray>(NUMBER_STORES[this.numberKind = kind]);
      if (kind > this.numberKind) this.widenNumbers(kind);
      this.numbers.chunkFor(row)[row & CHUNK_MASK] = value;
      if (this.ids !== null) this.setId(row, IN_NUMBERS);
      return;
    }
    const id = this.internedId(value, row);
    if (id !== null) {
      this.setId(row, id);
      return;
    }
    this.plain ??= new Chunked<unknown[]>((n) => new Array(n), (from, to) => {
      for (let i = 0; i < from.length; i++) to[i] = from[i];
    });
    this.plain.chunkFor(row)[row & CHUNK_MASK] = value;
    this.setId(row, IN_PLAIN);
  }

  /** The value's interned id, interning it if the column may still grow; null: keep it plain. */
  private internedId(value: unknown, row: number): number | null {
    if (typeof value !== "object" || value === null) {
      const known = this.primitiveIds.get(value);
      if (known !== undefined) return known;
      return this.intern(
        value,
        row,
        () => this.primitiveIds.set(value, FIRST_INTERNED + this.values.length),
      );
    }
    if (this.lastObject !== undefined && sameJson(value, this.lastObject)) return this.lastObjectId;
    const text = JSON.stringify(value);
    let id = this.objectIds.get(text);
    if (id === undefined) {
      const added = this.intern(
        value,
        row,
        () => this.objectIds.set(text, FIRST_INTERNED + this.values.length),
      );
      if (added === null) return null;
      id = added;
    }
    this.lastObject = this.values[id - FIRST_INTERNED];
    this.lastObjectId = id;
    return id;
  }

  private intern(value: unknown, row: number, remember: () => void): number | null {
    const distinct = this.values.length;
    if (distinct >= INTERN_LIMIT && distinct * 4 > row) return null;
    remember();
    this.values.push(deepFreeze(value));
    return FIRST_INTERNED + this.values.length - 1;
  }

  private setId(row: number, id: number): void {
    if (this.ids === null) {
      if (id === IN_NUMBERS) return;
      // Every row so far held a number (id 0): their chunks are made now, zero-filled, so
      // that every row has an id from here on.
      const ids = this.ids = typedChunks<IdArray>((n) => new Uint8Array(n));
      for (let start = 0; start + CHUNK_ROWS <= row; start += CHUNK_ROWS) {
        ids.chunkFor(start + CHUNK_MASK);
      }
      if (row > 0) ids.chunkFor(row - 1);
    }
    if (id > this.idLimit) this.widen(id);
    this.ids.chunkFor(row)[row & CHUNK_MASK] = id;
  }

  /** Rewrites the number chunks in a wider store, once a number does not fit the current one. */
  private widenNumbers(kind: number): void {
    this.numberKind = kind;
    this.numbers = widenedChunks(this.numbers!, NUMBER_STORES[kind]);
  }

  /** Rewrites the id chunks in the next width that holds `id`. */
  private widen(id: number): void {
    this.idLimit = id <= 0xffff ? 0xffff : 0xffffffff;
    this.ids = widenedChunks<IdArray>(
      this.ids!,
      id <= 0xffff ? (n) => new Uint16Array(n) : (n) => new Uint32Array(n),
    );
  }
}

/** Deep equality of two JSON values, key order included (what equal JSON text means). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i];
    if (key !== bKeys[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) {
      return false;
    }
  }
  return true;
}

/** A distinct key list: its columns, a compiled builder of its rows, and its derived keys. */
interface Layout {
  /** The keys as pushed, omitted ones included, so that a row's list is compared as it is. */
  keys: string[];
  /** Each key's column, by position; null for an omitted key. */
  columns: (Column | null)[];
  /** Each key's derivation, by position (see {@link RowColumnsOptions.derived}); else undefined. */
  derivations: (((row: never) => unknown) | undefined)[];
  /** The kept keys' columns, in order: what `build` reads. */
  kept: Column[];
  build: (columns: Column[], row: number) => object;
  /** The kept keys that have a derivation. */
  derived: string[];
}

/** Stored in place of a value equal to its derivation. */
const DERIVED: unique symbol = Symbol("derived");

/** Options for {@link RowColumns}. */
export interface RowColumnsOptions<T> {
  /**
   * Fields whose usual value is a function of the others (the ledger's
   * `episode_id`, `run_id/agent_id/task_id/attempt` unless the row names
   * one): a row whose value equals the derivation stores a mark instead,
   * and the rebuilt row derives it again. Unique derived strings would
   * otherwise be kept one per row.
   */
  derived?: { [K in keyof T]?: (row: T) => T[K] };
  /**
   * Optional fields not kept: a rebuilt row lacks them (the ledger's
   * `prev_sha256`, checked as the file is read and read by nothing after).
   */
  omit?: readonly (keyof T & string)[];
}

/** A builder that writes the row as one object literal (fast properties, one hidden class per layout). */
function compileBuilder(keys: readonly string[]): Layout["build"] {
  const fields = keys.map((key, i) => `[${JSON.stringify(key)}]: c[${i}].get(r)`);
  return new Function("c", "r", `return {${fields.join(", ")}};`) as Layout["build"];
}

/**
 * A growing table of rows kept as columns (see the module doc): `push` each
 * row as it is read, then read them back in order as often as needed, each
 * rebuilt on demand, so a pass over a million rows holds one at a time.
 *
 * @typeParam T the rows' type (plain JSON data)
 * @example
 * ```ts
 * import { RowColumns } from "./row_columns.ts";
 * const table = new RowColumns<{ agent_id: string; tokens: number | null }>();
 * table.push({ agent_id: "a", tokens: 12 });
 * table.push({ agent_id: "a", tokens: null });
 * if (table.length !== 2 || table.row(1).tokens !== null) throw new Error();
 * if ([...table].map((row) => row.tokens).join() !== "12,") throw new Error();
 * ```
 */
export class RowColumns<T extends object> implements Iterable<T> {
  private readonly derived: Record<string, (row: T) => unknown>;
  private readonly omitted: ReadonlySet<string>;
  private count = 0;
  private readonly columns = new Map<string, Column>();
  private readonly layouts: Layout[] = [];
  private readonly layoutByKeys = new Map<string, number>();
  /** Each row's layout index: a column of numbers (nothing stored while one layout serves every row). */
  private readonly rowLayouts = new Column();
  private last: Layout | null = null;
  private lastIndex = 0;

  /** @param options fields derived from the others (see {@link RowColumnsOptions}) */
  constructor(options: RowColumnsOptions<T> = {}) {
    this.derived = (options.derived ?? {}) as Record<string, (row: T) => unknown>;
    this.omitted = new Set(options.omit ?? []);
  }

  /** Rows held. */
  get length(): number {
    return this.count;
  }

  /**
   * Adds a row at the end. O(fields); the row object itself is not kept.
   *
   * @param row the row (plain data; interned objects in it are frozen)
   * @throws {RangeError} past 65,536 distinct key lists
   */
  push(row: T): void {
    const index = this.count;
    const layoutIndex = this.layoutOf(row);
    const layout = this.layouts[layoutIndex];
    this.rowLayouts.set(index, layoutIndex);
    const record = row as Record<string, unknown>;
    for (let i = 0; i < layout.keys.length; i++) {
      const column = layout.columns[i];
      if (column === null) continue;
      const value = record[layout.keys[i]];
      const derive = layout.derivations[i];
      column.set(index, derive !== undefined && value === derive(row as never) ? DERIVED : value);
    }
    this.count++;
  }

  /**
   * The row at `index`, rebuilt: a new object equal to the one pushed (see
   * the module doc for the one `-0` exception). O(fields).
   *
   * @param index 0-based, below {@link length}
   * @throws {RangeError} outside the table
   */
  row(index: number): T {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) {
      throw new RangeError(`Row ${index} is outside a table of ${this.count} rows`);
    }
    const layout = this.layouts[this.rowLayouts.get(index) as number];
    const row = layout.build(layout.kept, index) as Record<string, unknown>;
    for (const key of layout.derived) {
      if (row[key] === DERIVED) row[key] = this.derived[key](row as T);
    }
    return row as T;
  }

  /** The rows in order, each rebuilt as it is reached. */
  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.count; i++) yield this.row(i);
  }

  /** The index of the row's key list, added when new. */
  private layoutOf(row: T): number {
    const last = this.last;
    if (last !== null) {
      let i = 0;
      let same = true;
      for (const key in row) {
        if (i >= last.keys.length || last.keys[i] !== key) {
          same = false;
          break;
        }
        i++;
      }
      if (same && i === last.keys.length) return this.lastIndex;
    }
    const keys = Object.keys(row);
    const name = JSON.stringify(keys);
    let index = this.layoutByKeys.get(name);
    if (index === undefined) {
      if (this.layouts.length > 0xffff) throw new RangeError("More than 65,536 distinct key lists");
      index = this.layouts.length;
      this.layoutByKeys.set(name, index);
      const keptKeys = keys.filter((key) => !this.omitted.has(key));
      const columns = keys.map((key) => {
        if (this.omitted.has(key)) return null;
        let column = this.columns.get(key);
        if (column === undefined) this.columns.set(key, column = new Column());
        return column;
      });
      this.layouts.push({
        keys,
        columns,
        derivations: keys.map((key) =>
          Object.hasOwn(this.derived, key) ? this.derived[key] : undefined
        ),
        kept: columns.filter((column) => column !== null),
        build: compileBuilder(keptKeys),
        derived: keptKeys.filter((key) => Object.hasOwn(this.derived, key)),
      });
    }
    this.last = this.layouts[index];
    this.lastIndex = index;
    return index;
  }
}
