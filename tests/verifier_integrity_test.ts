/**
 * Verifier integrity on the real Docker engine (issue 7, items 1, 2 and the
 * stage-marker lever of 4): a hostile candidate image (`agent-forger`, built
 * offline) tries on every demo template what an outside red team did, and
 * the property holds in each: the hidden verifier files are unreadable from
 * the candidate's workspace (links), its code (run by the verifier) and its
 * output (a forged verdict or stage marker on any channel), so the verdict
 * is the verifier's own (resolved false, never a fault the candidate chose),
 * and no hidden file's content reaches anything the runner records.
 *
 * Before this change, the same forger passed a1, a2, c1 and c2 (links),
 * b1, b2 and b3 (code reading `/verifier/*`), and its stage marker on
 * `/proc/1/fd/2` could turn an episode invalid.
 *
 * @module
 */
import assert from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { type Suite, taskPaths } from "../analysis/schema/suite_manifest.ts";
import { runCandidate } from "../runner/sandbox/run_candidate.ts";
import { runVerifier } from "../runner/sandbox/run_verifier.ts";
import type { VerifierOutcome } from "../runner/sandbox/sealed_verifier.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { storeArtifact } from "../runner/sandbox/artifact_store.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const engine = await requireDockerEngine("tests/verifier_integrity_test.ts");
const options = { ignore: !engine.available, sanitizeOps: false, sanitizeResources: false };
const LABELS = { "ledgerbench.test": `integrity-${crypto.randomUUID().slice(0, 8)}` };

/** The contents of every hidden data file of a task (its scripts excepted), trimmed. */
async function hiddenContents(verifierDir: string): Promise<string[]> {
  const contents: string[] = [];
  for await (const entry of Deno.readDir(verifierDir)) {
    if (!entry.isFile || entry.name.endsWith(".sh")) continue;
    contents.push((await Deno.readTextFile(`${verifierDir}/${entry.name}`)).trim());
  }
  return contents;
}

/** Runs the forger on one task's workspace and the task's verifier on what it left. */
async function forgeAndVerify(
  images: Record<string, string>,
  task: { workspace: string; verifier: string },
  root: string,
  mode: "forge" | "stall",
  verifierEnv: Record<string, string> = {},
): Promise<VerifierOutcome> {
  const candidate = await runCandidate(images["ledgerbench/agent-forger"], {
    workspace: task.workspace,
    artifactsRoot: `${root}/artifacts`,
  }, {
    env: { LEDGERBENCH_ATTACK: mode, LEDGERBENCH_ATTACK_CALLS: "0" },
    wallMs: 30_000,
    labels: LABELS,
  });
  assert.equal(candidate.exitCode, 0, candidate.stderrTail);
  return await runVerifier(images["ledgerbench/verifier"], {
    artifact: candidate.artifact!,
    verifierDir: task.verifier,
  }, { labels: LABELS, env: verifierEnv });
}

/** Runs `fn` on the images and a fresh demo suite (public seed) in a temporary directory. */
async function withDemoSuite(
  fn: (fixture: { images: Record<string, string>; root: string; suite: Suite }) => Promise<void>,
): Promise<void> {
  const images = await buildImages();
  const root = await Deno.makeTempDir({ prefix: "ledgerbench-integrity-test-" });
  try {
    const suite = await generateSuite(DEMO_SUITE, {
      seed: DEMO_SEED,
      dir: `${root}/suite`,
      publicSeed: true,
    });
    await fn({ images, root, suite });
  } finally {
    await removeTree(root);
  }
}

Deno.test({
  name: "every demo template: the forger's links, code and channels get it resolved false",
  ...options,
}, async (t) => {
  await withDemoSuite(async ({ images, root, suite }) => {
    for (const { task_id } of suite.manifest.tasks) {
      await t.step(task_id, async () => {
        const paths = taskPaths(suite.dir, task_id);
        const outcome = await forgeAndVerify(images, paths, root, "forge");
        // A verdict, not a fault: the forged `setup-failed` marker did not count.
        assert.equal(outcome.kind, "verdict", JSON.stringify(outcome));
        if (outcome.kind !== "verdict") return;
        assert.equal(outcome.verdict.resolved, false, JSON.stringify(outcome.verdict));
        // Nothing hidden reached the verdict or the container's output.
        const recorded = JSON.stringify(outcome.verdict) + outcome.stdoutTail + outcome.stderrTail;
        for (const hidden of await hiddenContents(paths.verifier)) {
          assert.equal(recorded.includes(hidden), false, `hidden content leaked: ${hidden}`);
        }
        assert.equal(recorded.includes('"resolved":true'), false);
      });
    }
  });
});

Deno.test({
  name: "a candidate script that lingers and spins is killed, and the verifier still decides",
  ...options,
}, async (t) => {
  await withDemoSuite(async ({ images, root, suite }) => {
    // The templates whose verifiers run candidate code.
    for (const task_id of ["b1-range", "b2-column", "b3-report"]) {
      await t.step(task_id, async () => {
        // Each call of candidate code is cut at its limit (10 s by default, 2 s here to keep the
        // test short); the verifier's own 120 s cap never fires.
        const outcome = await forgeAndVerify(images, taskPaths(suite.dir, task_id), root, "stall", {
          LEDGERBENCH_CANDIDATE_TIMEOUT_S: "2",
        });
        assert.equal(outcome.kind, "verdict", JSON.stringify(outcome));
        if (outcome.kind === "verdict") assert.equal(outcome.verdict.resolved, false);
      });
    }
  });
});

Deno.test({
  name: "over 6 seeds, no demo task's untouched workspace passes its verifier on the engine",
  ...options,
}, async () => {
  // Issue 9: a b2-column variant passed untouched. suites/demo_suite_test.ts checks 16 seeds
  // with the host's sh; this runs the first 6 in the verifier container.
  const images = await buildImages();
  const root = await Deno.makeTempDir({ prefix: "ledgerbench-untouched-test-" });
  try {
    const passed: string[] = [];
    for (let i = 0; i < 6; i++) {
      const seed = sha256Hex(`ledgerbench-property-${i}`);
      const suite = await generateSuite(DEMO_SUITE, {
        seed,
        dir: `${root}/suite-${i}`,
        publicSeed: true,
      });
      for (const { task_id } of suite.manifest.tasks) {
        const paths = taskPaths(suite.dir, task_id);
        const outcome = await runVerifier(images["ledgerbench/verifier"], {
          artifact: await storeArtifact(paths.workspace, `${root}/artifacts`),
          verifierDir: paths.verifier,
        }, { labels: LABELS });
        assert.equal(outcome.kind, "verdict", JSON.stringify(outcome));
        if (outcome.kind === "verdict" && outcome.verdict.resolved) passed.push(`${i}:${task_id}`);
      }
    }
    assert.deepEqual(passed, []);
  } finally {
    await removeTree(root);
  }
});
