/**
 * Generates a suite directory from public templates and a seed (seed 000,
 * §01): each template draws from its own stream `seededRandom("<seed>:<task_id>")`,
 * so the same seed writes byte-identical files and another seed changes every
 * variant. The directory and its files are created owner-only (0700/0600):
 * they hold the hidden verifiers and answers.
 *
 * @module
 */
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { seededRandom } from "../analysis/seeded_random.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import type { SuiteDefinition, TemplateOptions } from "../suites/_template.ts";
import {
  type Suite,
  SUITE_MANIFEST,
  SuiteManifest,
  taskPaths,
} from "../analysis/schema/suite_manifest.ts";
import { checkSeed } from "./suite_seed.ts";
import { fileBlocks } from "../containers/agents/_model.ts";
import { Buffer } from "node:buffer";
import { suiteSha256 } from "../inputs/suite_sha256.ts";

/** Options of {@link generateSuite}. */
export interface GenerateSuiteOptions extends TemplateOptions {
  /** The suite seed, 64 lower-case hex digits. */
  seed: string;
  /** Where the suite is written: a directory that does not exist or is empty. */
  dir: string;
  /** True when the seed is published on purpose (the demo); recorded in the manifest. */
  publicSeed?: boolean;
}

/**
 * Writes the suite generated from `definition` and `options.seed` into `options.dir`.
 *
 * Rule: task order is the definition's; a task's weight is its lane's weight
 * divided by the number of tasks in that lane; `TASK.md` is the prompt, put
 * in the workspace. O(size of the generated files).
 *
 * @param definition the templates and lane weights
 * @param options `seed` (64 hex digits), `dir` (must not exist or be empty), `publicSeed`,
 *   template options
 * @returns the loaded suite with its hash
 * @throws {Error} when the seed is malformed, `dir` is not empty, a lane has
 *   no weight, or two templates share a task id
 */
export async function generateSuite(
  definition: SuiteDefinition,
  options: GenerateSuiteOptions,
): Promise<Suite> {
  const seed = options.seed;
  checkSeed(seed, "the generator's argument");
  const dir = await prepareDir(options.dir);
  const laneCounts = new Map<string, number>();
  for (const template of definition.templates) {
    if (!(template.lane in definition.lane_weights)) {
      throw new Error(
        `Cannot generate suite: lane "${template.lane}" of task "${template.task_id}" has no weight`,
      );
    }
    laneCounts.set(template.lane, (laneCounts.get(template.lane) ?? 0) + 1);
  }
  const seen = new Set<string>();
  const tasks = [];
  for (const template of definition.templates) {
    if (seen.has(template.task_id)) {
      throw new Error(`Cannot generate suite: duplicate task id "${template.task_id}"`);
    }
    seen.add(template.task_id);
    const generated = template.generate(seededRandom(`${seed}:${template.task_id}`), options);
    const paths = taskPaths(dir, template.task_id);
    await writeTree(paths.workspace, { ...generated.workspace, "TASK.md": generated.prompt });
    await writeTree(paths.verifier, generated.verifier);
    await writePrivate(paths.answer, generated.answer);
    await writePrivate(paths.wrong_answer, generated.wrong_answer);
    await Deno.mkdir(paths.solution, { mode: 0o700 });
    await Deno.writeTextFile(`${paths.solution}/solve.sh`, oracleScript(generated.answer), {
      createNew: true,
      mode: 0o700,
    });
    tasks.push({
      task_id: template.task_id,
      lane: template.lane,
      weight: definition.lane_weights[template.lane] / laneCounts.get(template.lane)!,
      limits: template.limits,
    });
  }
  const manifest = SuiteManifest.parse({
    schema_version: 1,
    suite_id: definition.suite_id,
    seed_sha256: sha256Hex(seed),
    public_seed: options.publicSeed ?? false,
    lane_weights: definition.lane_weights,
    tasks,
  });
  await writePrivate(`${dir}/${SUITE_MANIFEST}`, canonicalJson(manifest));
  return { dir, manifest, sha256: await suiteSha256(dir) };
}

async function prepareDir(dir: string): Promise<string> {
  try {
    for await (const _ of Deno.readDir(dir)) {
      throw new Error(`Cannot generate suite: directory "${dir}" is not empty`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  }
  await Deno.chmod(dir, 0o700);
  return await Deno.realPath(dir);
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  await Deno.mkdir(root, { recursive: true, mode: 0o700 });
  for (const path of Object.keys(files).sort()) {
    const parts = path.split("/");
    if (path.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..")) {
      throw new Error(`Cannot generate suite: file path "${path}" must be relative and plain`);
    }
    if (parts.length > 1) {
      await Deno.mkdir(`${root}/${parts.slice(0, -1).join("/")}`, { recursive: true, mode: 0o700 });
    }
    await writePrivate(`${root}/${path}`, files[path]);
  }
}

/**
 * The oracle `suite check` runs for a generated task (`solution/solve.sh`,
 * issue 12): a `sh` script that writes each file block of the task's model
 * answer into `/workspace`, as the scripted solver would (through busybox
 * `base64 -d`, so no content needs quoting).
 *
 * @param answer the model answer, file blocks (`fileBlocks` of containers/agents/_model.ts)
 * @returns the script
 * @throws {Error} for a block path that leaves the workspace or holds a quote
 */
export function oracleScript(answer: string): string {
  const lines = [
    "#!/bin/sh",
    "# The oracle of a generated task: writes its model answer (answer.md) into the workspace.",
    "set -e",
  ];
  for (const block of fileBlocks(answer)) {
    if (
      block.path.startsWith("/") || block.path.split("/").includes("..") || /['\\]/.test(block.path)
    ) {
      throw new Error(
        `Cannot write the oracle: file block path "${block.path}" is not a plain relative path`,
      );
    }
    const b64 = Buffer.from(block.content, "utf8").toString("base64");
    const dir = block.path.includes("/") ? block.path.slice(0, block.path.lastIndexOf("/")) : "";
    lines.push(
      `${
        dir === "" ? "" : `mkdir -p '/workspace/${dir}' && `
      }echo '${b64}' | base64 -d > '/workspace/${block.path}'`,
    );
  }
  return lines.join("\n") + "\n";
}

async function writePrivate(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text, { createNew: true, mode: 0o600 });
}
