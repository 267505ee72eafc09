/**
 * Writing a report directory: the thin I/O layer under `renderReport`.
 *
 * @module
 */
import type { ReportFile } from "./render_report.ts";

/**
 * Writes the files of a report under `dir` (creating `dir` and `dir/figures`),
 * then removes any other `.svg` or `.png` in `dir/figures`, left by an earlier
 * report with other figures, so the directory holds exactly this report.
 * Nothing else in `dir` is touched.
 *
 * @param dir the output directory
 * @param files the files from `renderReport`
 * @returns the stale figure files removed (relative paths, sorted)
 * @throws {Deno.errors.PermissionDenied} and other file system errors as Deno raises them
 */
export async function writeReport(dir: string, files: readonly ReportFile[]): Promise<string[]> {
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
}
