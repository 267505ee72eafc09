/**
 * Loading a suite directory: the manifest through its schema, every task's
 * workspace and verifier present, and the content hash.
 *
 * @module
 */
import { ioError } from "../analysis/ledger_error.ts";
import { Rubric } from "../analysis/schema/records.ts";
import {
  JUDGE_REFERENCE_FILE,
  JUDGE_RUBRIC_FILE,
  stepPaths,
  type Suite,
  SUITE_MANIFEST,
  SuiteManifest,
  taskPaths,
} from "../analysis/schema/suite_manifest.ts";
import { suiteSha256 } from "./suite_sha256.ts";
import { pathExists } from "./input_file.ts";
import { loadJsonFile, refuseRepeatedId } from "./json_file.ts";

/**
 * The verifier entry points the verifier image's driver runs, in its order
 * (`containers/verifier/driver.sh`): `verify.sh` with `sh`, else `verify.ts`
 * with Deno.
 */
export const VERIFIER_ENTRIES = ["verify.sh", "verify.ts"] as const;

/**
 * Whether `path` is a regular file with an execute bit (a verifier entry, an oracle).
 *
 * @param path the file
 * @returns true for an executable regular file; false when absent or not executable
 * @throws {Error} when the file cannot be examined for another reason
 */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0) & 0o111) !== 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Reads and checks the suite in `dir`, generated or written by hand.
 *
 * Checks: `suite.json` through the {@link SuiteManifest} schema (json_file.ts:
 * file, JSON and schema problems named with file, line and field, every one
 * of them at once); task ids unique; every task's `workspace/TASK.md`
 * present; its verifier entry (`verifier.entry`, an executable file, else one
 * of the {@link VERIFIER_ENTRIES}; a judged task without `with_program`
 * needs none); a judged task's `verifier/rubric.json` through the
 * {@link Rubric} schema and its `verifier/reference.md`; its Dockerfile,
 * when it names one. Cost: one read of every
 * file of the suite (for its hash).
 *
 * @param dir the suite directory (written by `generateSuite` or by hand)
 * @returns the suite with its {@link suiteSha256}
 * @throws {LedgerError} the codes of `loadJsonFile`, and `io_error` naming a
 *   task's missing file
 */
export async function loadSuite(dir: string): Promise<Suite> {
  const file = `${dir}/${SUITE_MANIFEST}`;
  const manifest = (await loadJsonFile(file, SuiteManifest)).value;
  const absolute = await Deno.realPath(dir);
  const firstAt = new Map<string, number>();
  manifest.tasks.forEach((task, index) =>
    refuseRepeatedId(file, firstAt, { list: "tasks", what: "task", id: task.task_id, index })
  );
  for (const task of manifest.tasks) {
    const paths = taskPaths(absolute, task.task_id);
    if (!(await pathExists(`${paths.workspace}/TASK.md`))) {
      throw ioError(file, `task "${task.task_id}" lacks "${paths.workspace}/TASK.md"`);
    }
    if (task.judge !== undefined) {
      await loadJsonFile(`${paths.verifier}/${JUDGE_RUBRIC_FILE}`, Rubric);
      const reference = `${paths.verifier}/${JUDGE_REFERENCE_FILE}`;
      if (!(await pathExists(reference))) {
        throw ioError(
          file,
          `judged task "${task.task_id}" lacks its reference answer "${reference}"`,
        );
      }
    }
    const entry = task.verifier?.entry;
    if (task.steps !== undefined) {
      // Each step has its instruction and its tests' entry (the manifest requires one); the
      // workspace's TASK.md is the first step's, as the agent starts with it.
      for (const [index, step] of task.steps.entries()) {
        const files = stepPaths(paths, step.name);
        if (!(await pathExists(files.instruction))) {
          throw ioError(file, `task "${task.task_id}" lacks "${files.instruction}"`);
        }
        if (
          index === 0 &&
          await Deno.readTextFile(files.instruction) !==
            await Deno.readTextFile(`${paths.workspace}/TASK.md`)
        ) {
          throw ioError(
            file,
            `task "${task.task_id}": "${paths.workspace}/TASK.md" is not its first step's ` +
              `instruction "${files.instruction}"`,
          );
        }
        const path = `${files.tests}/${entry!}`;
        if (!(await isExecutableFile(path))) {
          throw ioError(
            file,
            `task "${task.task_id}": step "${step.name}"'s verifier entry "${path}" is not an ` +
              "executable file",
          );
        }
      }
    } else if (task.judge !== undefined && !task.judge.with_program) {
      // The judge verifies instead of a program: no entry point to find.
    } else if (entry !== undefined) {
      const path = `${paths.verifier}/${entry}`;
      if (!(await isExecutableFile(path))) {
        throw ioError(
          file,
          `task "${task.task_id}": verifier entry "${path}" is not an executable file`,
        );
      }
    } else {
      const entries = VERIFIER_ENTRIES.map((name) => `${paths.verifier}/${name}`);
      if (!(await Promise.all(entries.map(pathExists))).some((found) => found)) {
        throw ioError(
          file,
          `task "${task.task_id}" has no verifier entry point: expected ${
            entries.map((e) => `"${e}"`).join(" or ")
          }, or a "verifier.entry"`,
        );
      }
    }
    const environment = task.environment;
    if (environment !== undefined && "dockerfile" in environment) {
      const path = `${paths.root}/${environment.dockerfile}`;
      if (!(await pathExists(path))) {
        throw ioError(file, `task "${task.task_id}": Dockerfile "${path}" does not exist`);
      }
    }
  }
  return { dir: absolute, manifest, sha256: await suiteSha256(absolute) };
}
