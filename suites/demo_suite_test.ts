import { deepEqual, equal } from "node:assert/strict";
import { fileBlocks } from "../containers/agents/_model.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { taskPaths } from "../analysis/schema/suite_manifest.ts";
import { copyTree } from "../runner/sandbox/copy_tree.ts";
import { Verdict } from "../analysis/schema/records.ts";
import { DEMO_SEED, DEMO_SUITE } from "./demo_suite.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";

/**
 * Runs a task's verifier with the host's `sh` (the scripts honour
 * LEDGERBENCH_ARTIFACT/HIDDEN/SCRATCH): setup.sh when present, then verify.sh;
 * returns the verdict of the last stdout line.
 */
async function verifyOnHost(verifierDir: string, artifact: string, temp: string): Promise<Verdict> {
  const scratch = await Deno.makeTempDir({ dir: temp });
  const env = {
    LEDGERBENCH_ARTIFACT: artifact,
    LEDGERBENCH_HIDDEN: verifierDir,
    LEDGERBENCH_SCRATCH: scratch,
  };
  for (const script of ["setup.sh", "verify.sh"]) {
    const path = `${verifierDir}/${script}`;
    if (!(await Deno.stat(path).then(() => true, () => false))) continue;
    const out = await new Deno.Command("sh", {
      args: [path],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(out.code, 0, `${script} failed: ${new TextDecoder().decode(out.stderr)}`);
    if (script === "verify.sh") {
      const last = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!;
      return Verdict.parse(JSON.parse(last));
    }
  }
  throw new Error("no verify.sh");
}

/** A read-only snapshot (under `temp`) of the workspace after applying a model answer's file blocks. */
async function workspaceWith(
  workspace: string,
  answer: string | null,
  temp: string,
): Promise<string> {
  const dir = `${await Deno.makeTempDir({ dir: temp })}/ws`;
  await copyTree(workspace, dir, { mode: "writable" });
  for (const block of answer === null ? [] : fileBlocks(answer)) {
    await Deno.writeTextFile(`${dir}/${block.path}`, block.content);
  }
  const snapshot = `${dir}-ro`;
  await copyTree(dir, snapshot, { mode: "readonly" });
  return snapshot;
}

/** For each task of the suite generated from `seed`: [answer, wrong answer, untouched] resolved. */
async function groundTruth(seed: string, temp: string): Promise<Record<string, boolean[]>> {
  const suite = await generateSuite(DEMO_SUITE, {
    seed,
    dir: await Deno.makeTempDir({ dir: temp }),
    publicSeed: true,
  });
  const results: Record<string, boolean[]> = {};
  for (const task of suite.manifest.tasks) {
    const paths = taskPaths(suite.dir, task.task_id);
    const verdicts = [];
    for (const answer of [paths.answer, paths.wrong_answer, null]) {
      const text = answer === null ? null : await Deno.readTextFile(answer);
      verdicts.push(
        (await verifyOnHost(
          paths.verifier,
          await workspaceWith(paths.workspace, text, temp),
          temp,
        )).resolved,
      );
    }
    results[task.task_id] = verdicts;
  }
  return results;
}

/** Ground truth by construction: answer.md solves, wrong_answer.md and doing nothing do not. */
const SOLVED_BY_THE_ANSWER_ONLY = {
  "a1-locate": [true, false, false],
  "a2-callers": [true, false, false],
  "b1-range": [true, false, false],
  "b2-column": [true, false, false],
  "b3-report": [true, false, false],
  "c1-counts": [true, false, false],
  "c2-filter-sum": [true, false, false],
};

Deno.test("Every demo task: its answer passes, its wrong answer and the untouched workspace fail", async () => {
  await using temp = await tempDir();
  deepEqual(await groundTruth(DEMO_SEED, temp.path), SOLVED_BY_THE_ANSWER_ONLY);
});

Deno.test("Every template, over 16 seeds: only the answer passes, never the untouched workspace", async () => {
  // Issue 9: a b2-column variant put every hidden case's column where the shipped broken script
  // reads it, so an untouched workspace passed. Seeds: SHA-256 of "ledgerbench-property-<i>".
  await using temp = await tempDir();
  for (let i = 0; i < 16; i++) {
    const seed = sha256Hex(`ledgerbench-property-${i}`);
    deepEqual(
      { seed, ...await groundTruth(seed, temp.path) },
      { seed, ...SOLVED_BY_THE_ANSWER_ONLY },
    );
  }
});

Deno.test("The wrong answers fail for the stated reason (named failing checks)", async () => {
  await using temp = await tempDir();
  const suite = await generateSuite(DEMO_SUITE, {
    seed: DEMO_SEED,
    dir: `${temp.path}/s`,
    publicSeed: true,
  });
  const failing = async (taskId: string) => {
    const paths = taskPaths(suite.dir, taskId);
    const artifact = await workspaceWith(
      paths.workspace,
      await Deno.readTextFile(paths.wrong_answer),
      temp.path,
    );
    return (await verifyOnHost(paths.verifier, artifact, temp.path)).checks.filter((c) => !c.passed)
      .map((c) => c.name);
  };
  // b3-report's wrong generator counts every row as active: seed 000's inconsistent totalActive.
  deepEqual(await failing("b3-report"), ["report_matches", "total_consistent"]);
  deepEqual(await failing("a1-locate"), ["definition_located"]);
  deepEqual(await failing("c1-counts"), ["counts_match"]);
});
