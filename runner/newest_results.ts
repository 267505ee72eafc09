/**
 * The result directories written beside a suite, newest first (issue 12's
 * `<suite>.check/<time>/check.json`, issue 14's
 * `<suite>.judge/<time>/summary.json`): the one reader `freeze` uses to
 * find the newest check and the newest calibration. Only the file system
 * is touched.
 *
 * @module
 */

/** One result: its directory and its summary file's text. */
export interface StoredResult {
  dir: string;
  text: string;
}

/**
 * Yields the results under `root` newest first: every subdirectory, by its
 * name (an ISO time with `:` and `.` as `-`, so that the names sort as the
 * times do) from the last, that holds `summaryFile`; a directory without it
 * (a run that never finished) is passed over. Nothing when `root` does not
 * exist.
 *
 * @param root the results' directory (`<suite>.check`, `<suite>.judge`)
 * @param summaryFile the summary's name inside each result
 * @returns the results, newest first
 * @throws {Error} when `root` or a summary cannot be read for another reason than absence
 */
export async function* newestResults(
  root: string,
  summaryFile: string,
): AsyncGenerator<StoredResult> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(root)) if (entry.isDirectory) names.push(entry.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const name of names.sort().reverse()) {
    const dir = `${root}/${name}`;
    let text: string;
    try {
      text = await Deno.readTextFile(`${dir}/${summaryFile}`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    yield { dir, text };
  }
}

/**
 * Makes a new result directory `<root>/<time>` for the ISO time `at` (`:`
 * and `.` written as `-`), with a numbered suffix when another result
 * already took that millisecond: a result is never written over.
 *
 * @param root the results' directory (created when missing)
 * @param at the result's time, ISO 8601
 * @returns the new directory
 */
export async function newResultDir(root: string, at: string): Promise<string> {
  await Deno.mkdir(root, { recursive: true });
  const stamp = at.replace(/[:.]/g, "-");
  for (let n = 0;; n++) {
    const dir = `${root}/${stamp}${n === 0 ? "" : `-${n}`}`;
    try {
      await Deno.mkdir(dir);
      return dir;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
}
