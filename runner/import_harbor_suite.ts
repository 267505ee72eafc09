/**
 * Writing the suite `suite import harbor` read (issue 12): `suite.json` and
 * `tasks/<task_id>/...` from the tasks `inputs/harbor_task.ts` read, all at
 * once or not at all.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { ioError, LedgerError } from "../analysis/ledger_error.ts";
import type { HarborTask } from "../inputs/harbor_task.ts";
import { pathExists } from "../inputs/input_file.ts";
import { loadSuite } from "../inputs/suite.ts";
import { type Suite, SUITE_MANIFEST, SuiteManifest } from "../analysis/schema/suite_manifest.ts";

/** Options of {@link writeHarborSuite}. */
export interface WriteHarborSuiteOptions {
  /** The manifest's `suite_id`; default: the base name of the output directory. */
  suiteId?: string;
  /** The source tasks left out and why (`SuiteManifest.import_skipped`); default none. */
  skipped?: readonly { dir: string; reason: string }[];
}

/**
 * Writes the tasks as a suite directory at `out` and loads it back.
 *
 * Rules: `out` must not exist, or be an empty directory; its parent must
 * exist. Everything is written into a temporary sibling (`.<name>.import-*`),
 * loaded with `loadSuite` (the self-check: manifest schema, TASK.md, the
 * verifier entry's execute bit, the Dockerfile) and renamed to `out` only
 * then, so a failed import leaves nothing behind. Task ids must be unique
 * (the directories' names: two sources with one name are refused, never
 * renamed). Cost: one copy of every file, one read for the hash.
 *
 * @param out the suite directory to create
 * @param tasks the tasks, in manifest order
 * @param options `suiteId`
 * @returns the loaded suite (its `dir` is `out`, made absolute)
 * @throws {LedgerError} `io_error` when `out` is not empty or cannot be
 *   written, `schema_violation` for a repeated task id, and what `loadSuite` throws
 */
export async function writeHarborSuite(
  out: string,
  tasks: readonly HarborTask[],
  options: WriteHarborSuiteOptions = {},
): Promise<Suite> {
  const trimmed = out.replace(/\/+$/, "");
  const slash = trimmed.lastIndexOf("/");
  const parent = slash < 0 ? "." : slash === 0 ? "/" : trimmed.slice(0, slash);
  const name = trimmed.slice(slash + 1);
  refuseRepeatedIds(tasks);
  await refuseNonEmpty(out);
  const manifest = SuiteManifest.parse({
    suite_id: options.suiteId ?? name,
    tasks: tasks.map((task) => task.entry),
    ...(options.skipped === undefined || options.skipped.length === 0
      ? {}
      : { import_skipped: options.skipped }),
  });
  let temp: string;
  try {
    temp = await Deno.makeTempDir({ dir: parent, prefix: `.${name}.import-` });
  } catch (error) {
    throw ioError(out, error);
  }
  try {
    await Deno.writeTextFile(`${temp}/${SUITE_MANIFEST}`, canonicalJson(manifest));
    for (const task of tasks) {
      const root = `${temp}/tasks/${task.entry.task_id}`;
      for (const file of task.files) {
        const to = `${root}/${file.to}`;
        await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
        try {
          await Deno.copyFile(file.from, to);
        } catch (error) {
          throw ioError(file.from, error);
        }
        if (file.mode !== undefined) await Deno.chmod(to, file.mode);
      }
    }
    const suite = await loadSuite(temp);
    if (await pathExists(out)) await Deno.remove(out);
    await Deno.rename(temp, out);
    return { ...suite, dir: await Deno.realPath(out) };
  } catch (error) {
    await Deno.remove(temp, { recursive: true }).catch(() => {});
    if (error instanceof LedgerError) throw error;
    throw ioError(out, error);
  }
}

/** Refuses a task id given by two sources, naming both. */
function refuseRepeatedIds(tasks: readonly HarborTask[]): void {
  const first = new Map<string, string>();
  for (const task of tasks) {
    const id = task.entry.task_id;
    const earlier = first.get(id);
    if (earlier !== undefined) {
      throw new LedgerError([{
        code: "schema_violation",
        file: task.dir,
        line: 0,
        field: "task_id",
        message: `task "${id}" is imported twice (first from "${earlier}"): ids are the ` +
          "directories' names and must be unique",
      }]);
    }
    first.set(id, task.dir);
  }
}

/** Throws unless nothing is at `out`, or an empty directory. */
async function refuseNonEmpty(out: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(out);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw ioError(out, error);
  }
  if (!info.isDirectory) throw ioError(out, "exists and is not a directory");
  for await (const _ of Deno.readDir(out)) {
    throw ioError(out, "exists and is not empty: give a new directory to --out");
  }
}
