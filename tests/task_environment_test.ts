/**
 * Tasks in their own environments (issue 12), on the engine: a hand-written
 * suite whose two tasks need Python, which the default images lack. One is
 * built from a Dockerfile over an offline Python base (built in the test,
 * nothing pulled), verified by the JSON line; the other names the base image
 * itself, works in `/app` and is verified by a Harbor-style `test.sh`
 * entry writing `/logs/verifier/reward.txt`, with its hidden files at
 * `/tests`. The scripted solver runs from its bundle inside those
 * environments; the plan and every row record the environment's and the
 * bundle's digests.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadSuite } from "../inputs/suite.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli } from "./_cli_run.ts";
import { buildPythonBase, pythonSuiteFiles, writeSuite } from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/task_environment_test.ts");

Deno.test({
  name: "tasks with their own Python environments run the scripted solver from its bundle",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const images = await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-env-" });
    try {
      await writeSuite(`${dir}/suite`, pythonSuiteFiles(python));
      const suite = await loadSuite(`${dir}/suite`);
      const solver = "ledgerbench/agent-solver:latest";
      const freeze = await cli(
        "freeze",
        "--suite",
        `${dir}/suite`,
        "--out",
        `${dir}/plan.json`,
        "--order-seed",
        "1",
        "--agent",
        `right=${solver}`,
        "--agent",
        `wrong=${solver}`,
      );
      equal(freeze.code, 0, freeze.stderr);
      match(
        freeze.stdout,
        /task py-mean: environment ledgerbench-env\/py-mean:[0-9a-f]{16} sha256:/,
      );
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      const environments = Object.fromEntries(
        plan.tasks.map((task) => [task.task_id, task.environment]),
      );
      equal(environments["py-double"]?.image, python);
      const bundle = plan.agents[0].bundle_digest!;
      match(bundle, /^sha256:[0-9a-f]{64}$/);
      equal(plan.agents[1].bundle_digest, bundle);
      equal(plan.agents[0].image_digest, images["ledgerbench/agent-solver"]);
      await Deno.writeTextFile(
        `${dir}/right.json`,
        JSON.stringify(await suiteProviderScript(suite)),
      );
      await Deno.writeTextFile(
        `${dir}/wrong.json`,
        JSON.stringify(await suiteProviderScript(suite, { correctRate: 0 })),
      );
      const run = await cli(
        "run",
        "--plan",
        `${dir}/plan.json`,
        "--suite",
        `${dir}/suite`,
        "--ledger",
        `${dir}/ledger.jsonl`,
        "--provider-script",
        `right=${dir}/right.json`,
        "--provider-script",
        `wrong=${dir}/wrong.json`,
      );
      equal(run.code, 0, run.stderr);
      const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.agent_id, r.task_id, r.status, r.resolved]).sort(),
        [
          ["right", "py-double", "scored", true],
          ["right", "py-mean", "scored", true],
          ["wrong", "py-double", "scored", false],
          ["wrong", "py-mean", "scored", false],
        ],
        rows.map((r) => `${r.agent_id}/${r.task_id}: ${r.notes}`).join("\n"),
      );
      for (const row of rows) {
        equal(row.environment?.task_image_digest, environments[row.task_id]!.image_digest);
        equal(row.environment?.agent_bundle_digest, bundle);
        equal(row.environment?.agent_image_digest, images["ledgerbench/agent-solver"]);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
