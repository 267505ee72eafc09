/**
 * Writing a report directory: the thin I/O layer under `renderReport`.
 *
 * @module
 */
import { systemMessage } from "../analysis/ledger_error.ts";
import type { ReportFile } from "./render_report.ts";

/**
 * Checks, before any work, that `dir` can hold a report: it is a directory
 * or does not exist yet (its parent is then created by {@link writeReport}).
 *
 * @param dir the output directory, as given with `--out`
 * @throws {Error} `Cannot write the report to "<dir>": it exists and is not a directory`
 */
export async function checkReportDir(dir: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw reportDirError(dir, error);
  }
  if (!info.isDirectory) {
    throw new Error(`Cannot write the report to "${dir}": it exists and is not a directory`);
  }
}

/** A file system error while writing `dir`, as one line naming it. */
function reportDirError(dir: string, error: unknown): Error {
  return new Error(`Cannot write the report to "${dir}": ${systemMessage(error)}`);
}

/**
 * Writes the files of a report under `dir` (creating `dir` and `dir/figures`),
 * then removes any other `.svg` or `.png` in `dir/figures`, left by an earlier
 * report with other figures, so the directory holds exactly this report.
 * Nothing else in `dir` is touched.
 *
 * @param dir the output directory
 * @param files the files from `renderReport`
 * @returns the stale figure files removed (relative paths, sorted)
 * @throws {Error} `Cannot write the report to "<dir>": <reason>` on any file system error
 */
export async function writeReport(dir: string, files: readonly ReportFile[]): Promise<string[]> {
  await checkReportDir(dir);
  try {
    await Deno.mkdir(`${dir}/figures`, { recursive: true });
    for (const file of files) await Deno.writeFile(`${dir}/${file.path}`, file.bytes);
    const wanted = new Set(files.map((file) => file.path));
    const stale: string[] = [];
    for await (const entry of Deno.readDir(`${dir}/figures`)) {
      const path = `figures/${entry.name}`;
      if (entry.isFile && /\.(svg|png)$/.test(entry.name) && !wanted.has(path)) stale.push(path);
    }
    stale.sort();
    for (const path of stale) await Deno.remove(`${dir}/${path}`);
    return stale;
  } catch (error) {
    throw reportDirError(dir, error);
  }
}
