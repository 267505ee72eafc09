/**
 * Multi-step tasks (Harbor's `[[steps]]`) on the engine, beyond Harbor's
 * `hello-multi-step-simple` (`harbor_examples_test.ts`), over the offline
 * Python base: two TB2-format tasks whose oracles probe what one step
 * leaves to the next.
 *
 * - `steps_kept`: the first step starts a counter in the background; the
 *   second step's oracle records the instruction it was given, whether
 *   `/tests` was there, and whether the counter still counts. Its tests
 *   pass only if the second step saw its own instruction, no tests, and a
 *   counter that ran on (stopped for the first step's tests, running again
 *   after them, as Harbor never stops it).
 * - `steps_gated`: the first step's tests give 0 under `min_reward = 1.0`
 *   and the second step's would give 1 under the `final` strategy: the
 *   second step never runs, so the attempt is unresolved with one step on
 *   its row.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  importHarborSuite,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/multi_step_test.ts");

/** A test.sh giving reward 1 when `condition` (a shell test) holds, else 0. */
const rewardIf = (condition: string) =>
  `#!/bin/bash\nif ${condition}; then r=1; else r=0; fi\necho $r > /logs/verifier/reward.txt\n`;

/** The files of one multi-step task named `id`. */
function task(id: string, toml: string, files: Record<string, string>, python: string) {
  return {
    [`${id}/task.toml`]: `version = "1.0"\n${toml}` +
      "[environment]\nallow_internet = false\n[verifier]\ntimeout_sec = 60.0\n",
    [`${id}/environment/Dockerfile`]: `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [`${id}/${path}`, text])),
  };
}

Deno.test({
  name: "a multi-step task runs its steps in one environment: the next step gets its " +
    "instruction, no tests, and the processes the last left running; a min_reward gate ends them",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-multi-step-" });
    try {
      await writeSuite(`${dir}/harbor`, {
        ...task(
          "steps_kept",
          '[[steps]]\nname = "start"\n[steps.agent]\ntimeout_sec = 30.0\n' +
            '[[steps]]\nname = "finish"\n[steps.agent]\ntimeout_sec = 30.0\n',
          {
            "steps/start/instruction.md": "Start the counter.\n",
            "steps/start/solution/solve.sh": "#!/bin/sh\n" +
              "setsid sh -c 'i=0; while :; do i=$((i+1)); echo $i > /app/count; sleep 0.1; " +
              "done' >/dev/null 2>&1 &\necho started > /app/start.txt\n",
            "steps/start/tests/test.sh": rewardIf("[ -f /app/start.txt ]"),
            "steps/finish/instruction.md": "Finish.\n",
            "steps/finish/solution/solve.sh": "#!/bin/sh\ncp /app/TASK.md /app/instruction\n" +
              "[ -e /tests ] && echo tests-visible > /app/seen\n" +
              'a=$(cat /app/count); sleep 1; b=$(cat /app/count); [ "$b" -gt "$a" ] && ' +
              "echo counting > /app/counter\nexit 0\n",
            "steps/finish/tests/test.sh": rewardIf(
              '[ "$(cat /app/instruction)" = Finish. ] && [ ! -e /app/seen ] && ' +
                '[ "$(cat /app/counter)" = counting ]',
            ),
          },
          python,
        ),
        ...task(
          "steps_gated",
          'multi_step_reward_strategy = "final"\n' +
            '[[steps]]\nname = "first"\nmin_reward = 1.0\n[[steps]]\nname = "second"\n',
          {
            "steps/first/instruction.md": "First.\n",
            "steps/first/solution/solve.sh": "#!/bin/sh\n",
            "steps/first/tests/test.sh": rewardIf("false"),
            "steps/second/instruction.md": "Second.\n",
            "steps/second/solution/solve.sh": "#!/bin/sh\n",
            "steps/second/tests/test.sh": rewardIf("true"),
          },
          python,
        ),
      });
      await importHarborSuite(dir);
      const check = await cliWithEnv({}, "suite", "check", `${dir}/suite`);
      // steps_gated's oracle cannot pass: its first step's tests give 0.
      equal(check.code, 3, check.stderr + check.stdout);
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const outcome = async (id: string) =>
        (await loadLedger(`${checkDir}/tasks/${id}/ledger.jsonl`)).rows.map((row) =>
          // A row without a verification (a harness fault) shows why, not a TypeError.
          row.verification?.steps === undefined
            ? `${row.agent_id} ${row.status} ${row.invalid_reason}: ${row.notes}`
            : `${row.agent_id} ${row.status} ${row.resolved}: ${
              row.verification.steps.map((step) => `${step.name} ${step.reward?.reward}`).join(
                ", ",
              )
            }; ${row.verification.decided_by}`
        ).sort();
      deepEqual(await outcome("steps_kept"), [
        "no-change scored false: start 0, finish 0; mean of the rewards of 2 steps, the one number " +
        "of reward.txt",
        "oracle scored true: start 1, finish 1; mean of the rewards of 2 steps, the one number of " +
        "reward.txt",
      ]);
      // show prints each step's reward and verdict.
      const ledger = `${checkDir}/tasks/steps_kept/ledger.jsonl`;
      const oracle = (await loadLedger(ledger)).rows.find((row) => row.agent_id === "oracle")!;
      const shown = await cliWithEnv(
        {},
        "show",
        oracle.episode_id,
        "--ledger",
        ledger,
        "--artifacts",
        `${checkDir}/artifacts`,
      );
      equal(shown.code, 0, shown.stderr);
      match(
        shown.stdout,
        /\n {2}step start: reward 1; passed\n {2}step finish: reward 1; passed\n/,
      );
      // A re-verification cannot replay the steps from the last workspace: it says so.
      const reverified = await cliWithEnv(
        {},
        "reverify",
        ledger,
        "--errata",
        `${dir}/errata.jsonl`,
        "--suite",
        `${dir}/suite`,
        "--artifacts",
        `${checkDir}/artifacts`,
        "--episodes",
        oracle.episode_id,
        "--width",
        "400",
      );
      equal(reverified.code, 0, reverified.stderr);
      match(
        reverified.stdout,
        /skipped [^ ]+: its task has steps, each verified in the live environment after the agent's run for it: the stored artifact holds only the last step's workspace\n/,
      );
      deepEqual(await outcome("steps_gated"), [
        "no-change scored false: first 0; final of the rewards of 1 step, the one number of reward.txt",
        "oracle scored false: first 0; final of the rewards of 1 step, the one number of reward.txt",
      ]);
    } finally {
      await removeTree(dir);
    }
  },
});
