/**
 * Loading a suite directory: the manifest through its schema, every task's
 * workspace and verifier present, and the content hash.
 *
 * @module
 */
import { ioError } from "../analysis/ledger_error.ts";
import { type Suite, SUITE_MANIFEST, SuiteManifest, taskPaths } from "../runner/suite_manifest.ts";
import { suiteSha256 } from "../runner/suite_sha256.ts";
import { loadJsonFile } from "./json_file.ts";

/**
 * Reads and checks the suite in `dir`.
 *
 * Checks: `suite.json` through the {@link SuiteManifest} schema (json_file.ts:
 * file, JSON and schema problems named with file, line and field); every
 * task's `workspace/TASK.md` and `verifier/verify.sh` present. Cost: one
 * read of every file of the suite (for its hash).
 *
 * @param dir the suite directory (as written by `generateSuite`)
 * @returns the suite with its {@link suiteSha256}
 * @throws {LedgerError} the codes of `loadJsonFile`, and `io_error` naming a
 *   task's missing file
 */
export async function loadSuite(dir: string): Promise<Suite> {
  const file = `${dir}/${SUITE_MANIFEST}`;
  const manifest = (await loadJsonFile(file, SuiteManifest)).value;
  const absolute = await Deno.realPath(dir);
  for (const task of manifest.tasks) {
    const paths = taskPaths(absolute, task.task_id);
    for (const needed of [`${paths.workspace}/TASK.md`, `${paths.verifier}/verify.sh`]) {
      try {
        await Deno.stat(needed);
      } catch {
        throw ioError(file, `task "${task.task_id}" lacks "${needed}"`);
      }
    }
  }
  return { dir: absolute, manifest, sha256: await suiteSha256(absolute) };
}
