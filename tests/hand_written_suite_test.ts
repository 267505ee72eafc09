/**
 * A suite written by hand, as docs/tasks.md ("Your own tasks") shows it (issue
 * 12): the smallest manifest, no seed, a `verify.sh` that runs candidate code
 * through `$LEDGERBENCH_AS_CANDIDATE` and prints the verdict line. It is
 * proven by `suite check` (its oracle `solve.sh`), frozen and run through the
 * real CLI on the engine with two scripted solvers, one given the right
 * answer and one the wrong one.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { loadSuite } from "../inputs/suite.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, freezeCli, runCli } from "./_cli_run.ts";
import { writeSuite } from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/hand_written_suite_test.ts");

/** The example task of docs/tasks.md, plus the two replies a scripted agent needs. */
const FILES: Record<string, string> = {
  "suite.json": JSON.stringify({
    suite_id: "my-suite",
    tasks: [{ task_id: "count-words", limits: { wall_ms_cap: 600000 } }],
  }),
  // The scripted provider answers the prompt that carries this line (runner/suite_provider_script.ts).
  "tasks/count-words/workspace/TASK.md":
    "ledgerbench-task: count-words\nMake count.sh print how many words the file $1 holds.\n",
  "tasks/count-words/workspace/count.sh": "echo 0\n",
  "tasks/count-words/verifier/verify.sh": [
    "#!/bin/sh",
    'shared=$(mktemp -d /scratch/shared.XXXXXX) && chmod 755 "$shared"',
    'cp /verifier/input.txt "$shared/" && chmod 644 "$shared/input.txt"',
    'out=$("$LEDGERBENCH_AS_CANDIDATE" sh /workspace/count.sh "$shared/input.txt")',
    'if [ "$out" = "$(cat /verifier/expected.txt)" ]; then passed=true; else passed=false; fi',
    'echo "{\\"resolved\\": $passed, \\"checks\\": [{\\"name\\": \\"case_1\\", \\"passed\\": $passed}]}"',
    "",
  ].join("\n"),
  "tasks/count-words/verifier/input.txt": "a b c\n",
  "tasks/count-words/verifier/expected.txt": "3\n",
  "tasks/count-words/answer.md": "```file:count.sh\nwc -w < \"$1\" | tr -d ' '\n```\n",
  "tasks/count-words/wrong_answer.md": "```file:count.sh\necho 2\n```\n",
  "tasks/count-words/solution/solve.sh": [
    "#!/bin/sh",
    "# solve.sh (executable): the known fix, run in the candidate's sandbox by `suite check`.",
    `printf '%s\\n' 'wc -w < "$1" | tr -d " "' > /workspace/count.sh`,
    "",
  ].join("\n"),
};

Deno.test({
  name: "a hand-written suite (the guide's example) freezes without a seed and runs on the engine",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-hand-" });
    try {
      await writeSuite(`${dir}/suite`, FILES);
      const check = await cli("suite", "check", `${dir}/suite`);
      equal(check.code, 0, check.stderr + check.stdout);
      const suite = await loadSuite(`${dir}/suite`);
      equal(suite.manifest.seed_sha256, undefined);
      const solver = "ledgerbench/agent-solver:latest";
      const freeze = await freezeCli(`${dir}/suite`, `${dir}/plan.json`, {
        right: solver,
        wrong: solver,
      });
      equal(freeze.code, 0, freeze.stderr);
      const run = await runCli(
        { plan: `${dir}/plan.json`, suite: `${dir}/suite`, ledger: `${dir}/ledger.jsonl` },
        {
          right: await suiteProviderScript(suite),
          wrong: await suiteProviderScript(suite, { correctRate: 0 }),
        },
      );
      equal(run.code, 0, run.stderr);
      const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.agent_id, r.task_id, r.status, r.resolved, r.model_calls]).sort(),
        [["right", "count-words", "scored", true, 1], ["wrong", "count-words", "scored", false, 1]],
        rows.map((r) => `${r.agent_id}: ${r.notes}`).join("\n"),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
