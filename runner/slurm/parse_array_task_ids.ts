/**
 * Slurm's array task id expressions, as `scontrol` and `squeue` print them.
 *
 * @module
 */

/**
 * The largest task id Slurm can give: `MaxArraySize` is at most 4,000,001
 * and task ids run from 0 to `MaxArraySize - 1` (slurm.conf(5)).
 */
export const MAX_ARRAY_TASK_ID = 4_000_000;

/**
 * Expands an array task id expression into its task ids, in ascending
 * order without repeats. The grammar is sbatch's `--array` (sbatch(1)):
 * comma-separated items, each `N`, `N-M` or `N-M:S` (every S-th id from N to
 * M), then an optional `%P` (the concurrency limit, ignored here). Slurm
 * prints the pending tasks of an array as one record in this form, e.g.
 * `ArrayTaskId=2-4%2`, or `1-2,4,6%1` after tasks 3 and 5 were cancelled
 * while pending; `squeue` wraps it in brackets (`[1-3%2]`), which are accepted.
 *
 * The text comes from Slurm and is not trusted: anything else, an id above
 * {@linkcode MAX_ARRAY_TASK_ID} or a range running backwards is an error, so
 * no malformed text can expand into a huge list.
 *
 * @example
 * ```ts
 * import { deepEqual } from "node:assert/strict";
 * deepEqual(parseArrayTaskIds("1-2,4,6%1"), [1, 2, 4, 6]);
 * deepEqual(parseArrayTaskIds("0-6:3"), [0, 3, 6]);
 * ```
 *
 * @param expression the text, e.g. `"2-4%2"`
 * @returns the task ids
 * @throws {Error} when `expression` is not such an expression
 */
export function parseArrayTaskIds(expression: string): number[] {
  const bare = /^\[(.*)\]$/.exec(expression)?.[1] ?? expression;
  const list = bare.replace(/%\d+$/, "");
  const ids = new Set<number>();
  for (const item of list.split(",")) {
    const match = /^(\d{1,7})(?:-(\d{1,7})(?::(\d{1,7}))?)?$/.exec(item);
    const first = Number(match?.[1]);
    const last = match?.[2] === undefined ? first : Number(match[2]);
    const step = match?.[3] === undefined ? 1 : Number(match[3]);
    if (!match || last < first || last > MAX_ARRAY_TASK_ID || step < 1) {
      throw new Error(
        `Cannot parse the array task ids ${JSON.stringify(expression.slice(0, 200))}: ` +
          `expected items "N", "N-M" or "N-M:S" (ids up to ${MAX_ARRAY_TASK_ID}) and an optional "%P"`,
      );
    }
    for (let id = first; id <= last; id += step) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}
