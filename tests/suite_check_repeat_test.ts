/**
 * `suite check --repeat N` finds a flaky verifier before a run, on the
 * engine: two Harbor tasks over the offline Python base, `steady` and
 * `flaky`, whose test.sh passes a correct answer only when a loopback
 * "service" (reached through the verifier's egress proxy as flaky.test)
 * says so; for `flaky` it says no to its second question, so the oracle's
 * second run is not resolved. The check fails `flaky` as FLAKY with its
 * flip rate (1 unexpected verdict of 6) and the exact interval, `steady`
 * passes with 0 of 6; `freeze` refuses the suite, then freezes it with
 * `--accept-flaky flaky`, the plan naming the task, and refuses to accept a
 * task that did not flip.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { loadPlan } from "../inputs/plan.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { EGRESS_RESOLVE_VARIABLE } from "../runner/egress/egress_resolve.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  importHarborSuite,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/suite_check_repeat_test.ts");

/** A Harbor task writing 42 whose test.sh also asks `http://flaky.test/<task>`. */
function task(python: string, id: string): Record<string, string> {
  return {
    [`${id}/instruction.md`]: "Write 42 to /app/out.txt.\n",
    [`${id}/task.toml`]: 'version = "1.0"\n[verifier]\ntimeout_sec = 60.0\n[agent]\n' +
      "timeout_sec = 60.0\n[environment]\nallow_internet = false\n",
    [`${id}/environment/Dockerfile`]: `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    [`${id}/solution/solve.sh`]: "#!/bin/sh\necho 42 > /app/out.txt\n",
    [`${id}/tests/test.sh`]: [
      "#!/bin/bash",
      "r=0",
      'if [ "$(cat /app/out.txt 2>/dev/null)" = 42 ]; then',
      '  says=$(python3 -c "import urllib.request; ' +
      `print(urllib.request.urlopen('http://flaky.test/${id}').read().decode())\")`,
      '  [ "$says" = yes ] && r=1',
      "fi",
      "echo $r > /logs/verifier/reward.txt",
      "",
    ].join("\n"),
  };
}

Deno.test({
  name: "suite check --repeat finds a verifier whose verdict flips, with its flip rate; freeze " +
    "refuses it unless accepted by name",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    // The service: "yes" to every question, but "no" to the flaky task's second.
    const asked = new Map<string, number>();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
      const id = new URL(request.url).pathname.slice(1);
      const n = (asked.get(id) ?? 0) + 1;
      asked.set(id, n);
      return new Response(id === "flaky" && n === 2 ? "no" : "yes");
    });
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-check-repeat-" });
    try {
      const env = { [EGRESS_RESOLVE_VARIABLE]: `flaky.test:80=127.0.0.1:${server.addr.port}` };
      await writeSuite(`${dir}/harbor`, { ...task(python, "flaky"), ...task(python, "steady") });
      await importHarborSuite(dir, { env, importArgs: ["--verifier-allow-host", "flaky.test"] });
      const check = await cliWithEnv(
        env,
        "suite",
        "check",
        `${dir}/suite`,
        "--repeat",
        "3",
        "--width",
        "200",
      );
      equal(check.code, 3, check.stderr + check.stdout);
      deepEqual(Object.fromEntries(asked), { flaky: 3, steady: 3 });
      const lines = check.stdout.split("\n");
      // scipy.stats.binomtest(1, 6).proportion_ci(method="exact") -> (0.0042, 0.6412);
      // binomtest(0, 6) -> (0, 0.4593).
      match(
        lines.find((l) => l.startsWith("flaky"))!,
        /resolved\s+not resolved\s+1\/6 \(0\.4–64\.1%\)\s+FLAKY$/,
      );
      match(
        lines.find((l) => l.startsWith("steady"))!,
        /resolved\s+not resolved\s+0\/6 \(0\.0–45\.9%\)\s+ok$/,
      );
      match(
        lines.find((l) => l.startsWith("flaky: "))!,
        /^flaky: flaky: oracle: the verifier did not resolve the oracle's solution; .* \(in 1 of 3 runs\)$/,
      );
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const summary = JSON.parse(await Deno.readTextFile(`${checkDir}/check.json`));
      const flaky = summary.tasks.find((t: { task_id: string }) => t.task_id === "flaky");
      deepEqual(
        [flaky.repeats.oracle, flaky.repeats.no_change, flaky.repeats.flake_only],
        [
          { resolved: 2, not_resolved: 1, no_verdict: 0 },
          { resolved: 0, not_resolved: 3, no_verdict: 0 },
          true,
        ],
      );
      equal(flaky.repeats.flip_rate.upper.toFixed(6), (0.6412345789974864).toFixed(6));

      const freeze = (out: string, ...extra: string[]) =>
        cliWithEnv(
          env,
          "freeze",
          "--without-agent-check",
          "the test freezes plans without an agent check",
          "--suite",
          `${dir}/suite`,
          "--out",
          `${dir}/${out}`,
          "--agent",
          "solver=ledgerbench/agent-solver:latest",
          ...extra,
        );
      const refused = await freeze("refused.json");
      equal(refused.code, 3, refused.stderr);
      match(refused.stderr, /failed; fix the tasks .* --accept-flaky TASK/);
      const notFlaky = await freeze("wrong.json", "--accept-flaky", "steady");
      equal(notFlaky.code, 1, notFlaky.stderr);
      match(notFlaky.stderr, /Option "--accept-flaky": "steady" did not flip/);
      const accepted = await freeze("plan.json", "--accept-flaky", "flaky");
      equal(accepted.code, 0, accepted.stderr);
      match(accepted.stdout, /suite check: failed only by flips, accepted for flaky/);
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      deepEqual(
        [plan.suite_check?.state, (plan.suite_check as { flaky_tasks?: string[] }).flaky_tasks],
        ["flaky_accepted", ["flaky"]],
      );
    } finally {
      await server.shutdown();
      await removeTree(dir);
    }
  },
});
