/**
 * `ledgerbench suite check` on the engine (issue 12): the Python suite of
 * tests/_python_toolchain.ts passes (each oracle resolved, each untouched
 * workspace not, zero model calls, the ledger beside the suite), and a copy
 * broken four ways is caught: a verifier whose setup crashes (seed 000's
 * 89-point incident), a solution the verifier rejects, a verifier that
 * passes an untouched workspace, and a task without an oracle; each failing
 * verifier's problem quotes its own last output lines (issue 22). `freeze`
 * refuses the failed check and a stale one, and records an override with its
 * reason.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { DEMO_SEED, DEMO_SUITE } from "../suites/demo_suite.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, freezeCli } from "./_cli_run.ts";
import { buildPythonBase, pythonSuiteFiles, writeSuite } from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/suite_check_test.ts");

/** The verification record of a sealed verdict by the JSON line. */
const SEALED_BY_LINE = {
  mode: "sealed",
  reward: null,
  reward_file: null,
  decided_by: null,
  hijacks: [],
  egress_allowed: 0,
  egress_denied: 0,
};

/** The verification record of a sealed verdict by `reward.txt` holding `reward`. */
function sealedByReward(reward: number) {
  return {
    ...SEALED_BY_LINE,
    reward: { reward },
    reward_file: "reward.txt",
    decided_by: "the one number of reward.txt",
  };
}

/** Freezes `suite` for one solver agent; extra arguments after. */
function freeze(suite: string, out: string, ...extra: string[]) {
  return freezeCli(suite, out, { solver: "ledgerbench/agent-solver:latest" }, ...extra);
}

Deno.test({
  name: "suite check proves a good suite and catches a crashing setup, a failing solution, a " +
    "verifier that passes no change and a missing oracle; freeze refuses a failed or stale check",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-check-" });
    try {
      const good = `${dir}/good`;
      await writeSuite(good, pythonSuiteFiles(python));
      const passed = await cli("suite", "check", good, "--json");
      equal(passed.code, 0, passed.stderr + passed.stdout);
      const summary = JSON.parse(passed.stdout);
      equal(summary.passed, true);
      deepEqual(
        summary.tasks.map((t: { task_id: string; passed: boolean }) => [t.task_id, t.passed]),
        [["py-mean", true], ["py-double", true]],
      );
      match(summary.dir, new RegExp(`^${dir}/good\\.check/`));
      const rows = [
        ...(await loadLedger(`${summary.dir}/tasks/py-mean/ledger.jsonl`)).rows,
        ...(await loadLedger(`${summary.dir}/tasks/py-double/ledger.jsonl`)).rows,
      ];
      deepEqual(
        rows.map((r) => [r.agent_id, r.task_id, r.status, r.resolved, r.model_calls]).sort(),
        [
          ["no-change", "py-double", "scored", false, 0],
          ["no-change", "py-mean", "scored", false, 0],
          ["oracle", "py-double", "scored", true, 0],
          ["oracle", "py-mean", "scored", true, 0],
        ],
      );
      // Each row records how it was verified (issue 22): sealed, py-double by its reward.txt.
      deepEqual(
        rows.map((r) => [r.agent_id, r.task_id, r.verification]).sort(),
        [
          ["no-change", "py-double", sealedByReward(0)],
          ["no-change", "py-mean", SEALED_BY_LINE],
          ["oracle", "py-double", sealedByReward(1)],
          ["oracle", "py-mean", SEALED_BY_LINE],
        ],
      );
      const frozen = await freeze(good, `${dir}/good-plan.json`);
      equal(frozen.code, 0, frozen.stderr);
      const plan = (await loadPlan(`${dir}/good-plan.json`, { frozen: true })).value;
      equal(plan.suite_check?.state, "passed");

      const broken = `${dir}/broken`;
      await writeSuite(broken, {
        ...pythonSuiteFiles(python),
        "tasks/py-mean/verifier/setup.sh":
          "#!/bin/sh\necho 'cannot install the grader' >&2\nexit 1\n",
        "tasks/py-double/solution/solve.sh": "#!/bin/sh\necho 'print(41)' > /app/double.py\n",
        // Harbor's test.sh prints the test run's failure to stdout, as pytest does.
        "tasks/py-double/verifier/test.sh": [
          "#!/bin/sh",
          'got="$(python3 /app/double.py "$(cat /tests/input.txt)")"',
          'if [ "$got" = 42 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi',
          'echo "test_outputs.py F"',
          'echo "E       assert $got == 42"',
          'echo "FAILED test_outputs.py::test_double - assert $got == 42"',
          "echo 0 > /logs/verifier/reward.txt",
          "",
        ].join("\n"),
      });
      await writeSuite(broken, {
        "suite.json": JSON.stringify({
          suite_id: "broken",
          tasks: [
            ...JSON.parse(pythonSuiteFiles(python)["suite.json"]).tasks,
            { task_id: "always-passes" },
            { task_id: "no-oracle" },
          ],
        }),
        "tasks/always-passes/workspace/TASK.md": "Do nothing.\n",
        "tasks/always-passes/verifier/verify.sh": [
          "echo 'nothing to check: passing' >&2",
          'echo \'{"resolved": true, "checks": [{"name": "nothing", "passed": true}]}\'',
          "",
        ].join("\n"),
        "tasks/always-passes/solution/solve.sh": "#!/bin/sh\ntrue\n",
        "tasks/no-oracle/workspace/TASK.md": "Write done.txt.\n",
        "tasks/no-oracle/verifier/verify.sh": [
          "if [ -f /workspace/done.txt ]; then r=true; else r=false; fi",
          'echo "{\\"resolved\\": $r}"',
          "",
        ].join("\n"),
      });
      // --width 400: each problem pinned whole, on its line
      const failed = await cli("suite", "check", broken, "--width", "400");
      equal(failed.code, 3, failed.stderr + failed.stdout);
      const problems = failed.stdout.split("\n").filter((line) =>
        /^[a-z-]+: (oracle|no-change): /.test(line)
      );
      // Each failing verifier's problem ends with its own last output lines (issue 22): stdout's,
      // then stderr's; a task whose verifier never ran quotes nothing.
      deepEqual(problems, [
        "py-mean: oracle: invalid (verifier_fault): verifier fault setup_failed: The verifier's " +
        "setup failed with exit code 1 before any check ran: cannot install the grader; " +
        "the verifier's stderr ends: cannot install the grader",
        "py-mean: no-change: no row (the task's batch halted at its first invalid episode)",
        "py-double: oracle: the verifier did not resolve the oracle's solution; the verifier's " +
        "stdout ends: test_outputs.py F | E       assert 41 == 42 | " +
        "FAILED test_outputs.py::test_double - assert 41 == 42",
        "always-passes: no-change: the verifier resolved the untouched workspace; the " +
        'verifier\'s stdout ends: {"resolved": true, "checks": [{"name": "nothing", "passed": ' +
        "true}]}; its stderr ends: nothing to check: passing",
      ], JSON.stringify(problems, null, 1));
      match(failed.stdout, /FAILED: 0 tasks of 4 proven/);
      // issue 25: at 80 columns the same words, every line folded to fit
      const narrow = await cli("suite", "check", broken, "--width", "80");
      equal(narrow.code, 3, narrow.stderr);
      for (const line of narrow.stdout.split("\n")) ok([...line].length <= 80, line);
      const words = (text: string) => text.replace(/\n +/g, " ").replace(/written: .*/, "");
      ok(words(narrow.stdout).includes(problems[0]), narrow.stdout);

      const refused = await freeze(broken, `${dir}/broken-plan.json`);
      equal(refused.code, 3);
      match(refused.stderr, /error: Cannot freeze plan: the suite's last check \(.*\) failed/);
      const overridden = await freeze(
        broken,
        `${dir}/broken-plan.json`,
        "--without-suite-check",
        "grader fixed upstream",
      );
      equal(overridden.code, 0, overridden.stderr);
      deepEqual(
        (await loadPlan(`${dir}/broken-plan.json`, { frozen: true })).value.suite_check,
        { state: "overridden", found: "failed", reason: "grader fixed upstream" },
      );

      await Deno.writeTextFile(`${good}/tasks/py-mean/verifier/extra.txt`, "changed\n");
      const stale = await freeze(good, `${dir}/stale-plan.json`);
      equal(stale.code, 3);
      match(stale.stderr, /is older than the suite \(its hash differs\)/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "suite check stops seed 000's 89-point incident before the run: the demo suite with " +
    "b3-report's faulty verifier setup fails on that task alone",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-check-demo-" });
    try {
      await generateSuite(DEMO_SUITE, {
        seed: DEMO_SEED,
        dir: `${dir}/suite`,
        faultyVerifierSetup: true,
      });
      const check = await cli("suite", "check", `${dir}/suite`, "--json");
      equal(check.code, 3, check.stderr);
      const summary = JSON.parse(check.stdout);
      deepEqual(
        summary.tasks.filter((t: { passed: boolean }) => !t.passed).map((
          t: { task_id: string; oracle: { invalid_reason: string | null } },
        ) => [t.task_id, t.oracle.invalid_reason]),
        [["b3-report", "verifier_fault"]],
      );
      equal(summary.tasks.length, 7);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
