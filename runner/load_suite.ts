/**
 * Loads a generated suite directory: the manifest through its schema, every
 * task's workspace and verifier present, and the content hash.
 *
 * @module
 */
import { type Suite, SUITE_MANIFEST, SuiteManifest, taskPaths } from "./suite_manifest.ts";
import { suiteSha256 } from "./suite_sha256.ts";

/**
 * Reads and checks the suite in `dir`.
 *
 * @param dir the suite directory (as written by `generateSuite`)
 * @returns the suite with its {@link suiteSha256}
 * @throws {Error} when `suite.json` is missing or malformed (naming file and
 *   field), or a task's `workspace/TASK.md` or `verifier/verify.sh` is missing
 */
export async function loadSuite(dir: string): Promise<Suite> {
  const file = `${dir}/${SUITE_MANIFEST}`;
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch (error) {
    throw new Error(`Cannot read suite ${file}: ${(error as Error).message}`);
  }
  const parsed = SuiteManifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Cannot read suite ${file}: field "${issue.path.join(".")}": ${issue.message}`);
  }
  const absolute = await Deno.realPath(dir);
  for (const task of parsed.data.tasks) {
    const paths = taskPaths(absolute, task.task_id);
    for (const needed of [`${paths.workspace}/TASK.md`, `${paths.verifier}/verify.sh`]) {
      try {
        await Deno.stat(needed);
      } catch {
        throw new Error(`Cannot read suite ${file}: task "${task.task_id}" lacks "${needed}"`);
      }
    }
  }
  return { dir: absolute, manifest: parsed.data, sha256: await suiteSha256(absolute) };
}
