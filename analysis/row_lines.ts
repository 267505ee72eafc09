/**
 * Each row's line in its file, kept as runs of consecutive lines: a ledger's
 * rows sit on consecutive lines but where a line was not a row (blank, or
 * bad and listed in lenient mode), so a million rows of a clean file take
 * one run, not a million numbers (an array of them, grown by copying, held
 * more of a load's peak memory than the rows held as columns).
 *
 * @module
 */

/** Where each row was read: `at(i)` is the 1-based line of row `i`; a plain array of lines qualifies. */
export interface RowLineNumbers extends Iterable<number> {
  /** Rows. */
  readonly length: number;
  /** The line of row `index`; undefined outside the rows. */
  at(index: number): number | undefined;
}

/**
 * The lines of rows pushed in file order, as runs. Memory O(runs): one run
 * per stretch of rows on consecutive lines. `at` is O(1) when reading in
 * order, else O(log runs).
 *
 * @example
 * ```ts
 * import { RowLines } from "./row_lines.ts";
 * const lines = new RowLines();
 * for (const line of [1, 2, 3, 5, 6]) lines.push(line); // line 4 was blank
 * if (lines.at(3) !== 5 || lines.length !== 5 || [...lines].join() !== "1,2,3,5,6") {
 *   throw new Error();
 * }
 * ```
 */
export class RowLines implements RowLineNumbers {
  /** The first row of each run, ascending. */
  readonly #starts: number[] = [];
  /** The line of each run's first row. */
  readonly #lines: number[] = [];
  #length = 0;
  /** The run the last `at` read, so that reading in order finds it at once. */
  #run = 0;

  /** Rows. */
  get length(): number {
    return this.#length;
  }

  /**
   * Adds the next row's line.
   *
   * @param line 1-based, after the previous row's
   */
  push(line: number): void {
    const runs = this.#starts.length;
    const last = runs - 1;
    if (runs === 0 || this.#lines[last] + (this.#length - this.#starts[last]) !== line) {
      this.#starts.push(this.#length);
      this.#lines.push(line);
    }
    this.#length++;
  }

  /** The line of row `index`; undefined outside the rows. */
  at(index: number): number | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.#length) return undefined;
    const starts = this.#starts;
    let run = this.#run;
    if (!(starts[run] <= index && (run + 1 === starts.length || index < starts[run + 1]))) {
      // The last run that starts at or before the row.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (starts[mid] <= index) lo = mid;
        else hi = mid - 1;
      }
      this.#run = run = lo;
    }
    return this.#lines[run] + (index - starts[run]);
  }

  /** The lines in row order. */
  *[Symbol.iterator](): Iterator<number> {
    for (let i = 0; i < this.#length; i++) yield this.at(i)!;
  }
}
