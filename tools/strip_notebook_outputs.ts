/**
 * Clears what executing a notebook leaves behind, so notebooks are committed
 * without outputs: every code cell's `outputs` (emptied) and
 * `execution_count` (null), the per-cell `metadata.execution` timestamps
 * nbconvert writes, and the kernel's `language_info.version`.
 *
 * Usage (files default to `notebooks/*.ipynb`):
 *
 * ```sh
 * deno run --allow-read --allow-write tools/strip_notebook_outputs.ts [--check] [FILE.ipynb ...]
 * ```
 *
 * `--check` changes nothing and exits 1 when a file would change (for CI and
 * pre-commit hooks). Files are written the way Jupyter writes them (sorted
 * keys, one-space indent, trailing newline), so stripping an unexecuted
 * notebook saved by Jupyter leaves its bytes unchanged.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** A notebook as JSON (nbformat 4). */
export type Notebook = {
  cells: Array<Record<string, unknown> & { cell_type: string }>;
  metadata: Record<string, unknown>;
  nbformat: number;
  nbformat_minor: number;
};

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * A copy of a notebook without outputs, execution counts, execution
 * timestamps or the kernel's language version.
 *
 * Rule: for each code cell set `outputs` to `[]` and `execution_count` to
 * null; for each cell delete `metadata.execution`; delete
 * `metadata.language_info.version`. Everything else (sources, ids, tags,
 * kernelspec) is kept. Idempotent. O(size of the notebook).
 *
 * @param notebook a parsed nbformat 4 notebook
 * @returns the stripped copy (the input is not modified)
 * @throws {RangeError} when `notebook` is not nbformat 4 or has no `cells` array
 * @example
 * ```ts
 * import { stripNotebookOutputs } from "./strip_notebook_outputs.ts";
 * const nb = stripNotebookOutputs({
 *   nbformat: 4, nbformat_minor: 5, metadata: {},
 *   cells: [{ cell_type: "code", source: "1", execution_count: 3, outputs: [{}], metadata: {} }],
 * });
 * if (nb.cells[0].execution_count !== null) throw new Error("count kept");
 * ```
 */
export function stripNotebookOutputs(notebook: Notebook): Notebook {
  if (notebook?.nbformat !== 4 || !Array.isArray(notebook.cells)) {
    throw new RangeError(
      `Cannot strip notebook: expected nbformat 4 with a "cells" array, found nbformat "${notebook?.nbformat}"`,
    );
  }
  const copy = structuredClone(notebook);
  for (const cell of copy.cells) {
    if (cell.cell_type === "code") {
      cell.outputs = [];
      cell.execution_count = null;
    }
    const metadata = cell.metadata as Record<string, unknown> | undefined;
    if (metadata !== undefined) delete metadata.execution;
  }
  const info = copy.metadata?.language_info as Record<string, unknown> | undefined;
  if (info !== undefined) delete info.version;
  return copy;
}

/**
 * Serialises a notebook as Jupyter's nbformat does: keys sorted, one-space
 * indent, non-ASCII kept, trailing newline.
 *
 * @param notebook the notebook
 * @returns the file text
 */
export function notebookText(notebook: Notebook): string {
  return JSON.stringify(sortKeys(notebook), null, 1) + "\n";
}

async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { check: { type: "boolean", default: false }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  if (values.help) {
    console.log(
      "Clear outputs and execution counts of notebooks before committing\n\n" +
        "  deno run --allow-read --allow-write tools/strip_notebook_outputs.ts notebooks/*.ipynb\n" +
        "  deno run --allow-read tools/strip_notebook_outputs.ts --check\n\n" +
        "USAGE:\n  strip_notebook_outputs.ts [--check] [FILE.ipynb ...]   (default: notebooks/*.ipynb)\n\n" +
        "OPTIONS:\n  --check     Change nothing; exit 1 when a file would change\n  -h, --help  This help",
    );
    return 0;
  }
  let files = positionals;
  if (files.length === 0) {
    const dir = new URL("../notebooks/", import.meta.url);
    files = [];
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".ipynb")) {
        files.push(decodeURIComponent(new URL(entry.name, dir).pathname));
      }
    }
    files.sort();
  }
  let changed = 0;
  for (const file of files) {
    const before = await Deno.readTextFile(file);
    let parsed: Notebook;
    try {
      parsed = JSON.parse(before);
    } catch (error) {
      console.error(`error: Cannot read notebook "${file}": ${(error as Error).message}`);
      return 2;
    }
    const after = notebookText(stripNotebookOutputs(parsed));
    if (after === before) continue;
    changed++;
    if (values.check) {
      console.error(`${file}: carries outputs, execution counts or unsorted keys`);
    } else {
      await Deno.writeTextFile(file, after);
      console.error(`${file}: stripped`);
    }
  }
  if (values.check && changed > 0) {
    console.error(`${changed} notebook(s) need stripping: run tools/strip_notebook_outputs.ts`);
    return 1;
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
