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
import { buildPythonBase } from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/task_environment_test.ts");

/** The suite's files; `python` is the base image reference. */
function suiteFiles(python: string): Record<string, string> {
  return {
    "suite.json": JSON.stringify({
      suite_id: "python-suite",
      tasks: [
        {
          task_id: "py-mean",
          environment: { dockerfile: "environment/Dockerfile" },
          limits: { wall_ms_cap: 600000 },
        },
        {
          task_id: "py-double",
          environment: { image: python },
          workdir: "/app",
          verifier: { entry: "test.sh", mount: "/tests", verdict: "reward", pass_threshold: 1 },
          limits: { wall_ms_cap: 600000 },
        },
      ],
    }),
    "tasks/py-mean/environment/Dockerfile": [
      `FROM ${python}`,
      // A RUN step, offline: the build has no network.
      `RUN python3 -c "import statistics; print(statistics.mean([1, 2]))" > /toolchain-checked`,
      "",
    ].join("\n"),
    "tasks/py-mean/workspace/TASK.md":
      "ledgerbench-task: py-mean\nMake mean.py print the mean of the numbers in the file $1.\n",
    "tasks/py-mean/workspace/mean.py": "print(0)\n",
    "tasks/py-mean/verifier/verify.sh": [
      "#!/bin/sh",
      'shared=$(mktemp -d /scratch/shared.XXXXXX) && chmod 755 "$shared"',
      'printf "2\\n4\\n9\\n" > "$shared/input.txt" && chmod 644 "$shared/input.txt"',
      'out=$("$LEDGERBENCH_AS_CANDIDATE" python3 /workspace/mean.py "$shared/input.txt")',
      'if [ "$out" = "5.0" ]; then passed=true; else passed=false; fi',
      'echo "{\\"resolved\\": $passed, \\"checks\\": [{\\"name\\": \\"mean\\", \\"passed\\": $passed}]}"',
      "",
    ].join("\n"),
    "tasks/py-mean/answer.md":
      "```file:mean.py\nimport sys\nnums = [float(x) for x in open(sys.argv[1])]\nprint(sum(nums) / len(nums))\n```\n",
    "tasks/py-mean/wrong_answer.md": "```file:mean.py\nprint(5)\n```\n",
    "tasks/py-double/workspace/TASK.md":
      "ledgerbench-task: py-double\nMake /app/double.py print twice its argument.\n",
    "tasks/py-double/workspace/double.py": "import sys\nprint(sys.argv[1])\n",
    "tasks/py-double/verifier/test.sh": [
      "#!/bin/sh",
      "# Harbor's contract: the reward goes to /logs/verifier/reward.txt.",
      'if [ "$(python3 /app/double.py "$(cat /tests/input.txt)")" = 42 ]; then',
      "  echo 1 > /logs/verifier/reward.txt",
      "else",
      "  echo 0 > /logs/verifier/reward.txt",
      "fi",
      "",
    ].join("\n"),
    "tasks/py-double/verifier/input.txt": "21\n",
    "tasks/py-double/answer.md":
      "```file:double.py\nimport sys\nprint(int(sys.argv[1]) * 2)\n```\n",
    "tasks/py-double/wrong_answer.md": "```file:double.py\nprint(41)\n```\n",
  };
}

/** Writes `files` under `dir`, marking the verifier entry executable. */
export async function writeSuite(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
    if (path.endsWith(".sh")) await Deno.chmod(`${dir}/${path}`, 0o755);
  }
}

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
      await writeSuite(`${dir}/suite`, suiteFiles(python));
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
