/**
 * Harbor's own example tasks, as committed under
 * tests/fixtures/harbor_tasks/harbor-examples/ (Harbor's `examples/tasks/`,
 * unmodified; see the README there), imported with `suite import harbor`
 * and proven with `suite check` on the engine:
 *
 * - `hello-world`, `hello-workdir` (`[environment] workdir`), `hello-user`
 *   (`[agent] user`, `/logs/agent`), `hello-healthcheck` (`COPY --chmod`,
 *   `[environment.healthcheck]`, a server its entrypoint starts 3 s late)
 *   and `separate-verifier-environment` (a verifier image built from
 *   `tests/` with `COPY --chmod`, artifacts only) pass: the oracle
 *   resolved, the untouched workspace not;
 * - `environment-env-single` (`[environment.env]` seen by the entrypoint)
 *   has no solution and its verifier passes the untouched workspace, which
 *   is what it tests: `suite check` says both, quoting the verifier's PASS;
 *   so does `environment-env-multi`, whose Compose sidecar shares a named
 *   volume with the agent's environment (and not its `[environment.env]`);
 * - `hello-multi-step-simple` (two `[[steps]]`, each with its instruction,
 *   tests and solution, in one environment) passes the same way, each row
 *   recording both steps' rewards: 1 and 1 for the oracle (mean 1), 0 and 0
 *   untouched;
 * - `multistep-all-separate` (two steps under a separate verifier built
 *   from `tests/`, each step's verifier given only that step's artifact,
 *   the agent's environment running on between them) passes the same way;
 * - `sidecar-artifacts` (a Compose sidecar holding the evidence, a
 *   `[[verifier.collect]]` hook snapshotting its memory once the agent's
 *   container has ended, the sidecar's files copied into a separate
 *   verifier built from `tests/`) passes the same way.
 *
 * What stands in for what these machines cannot reach: `ubuntu:24.04`,
 * `ubuntu:22.04`, `python:3.13-slim`, `python:3.12-slim` and `alpine:3.21` are Debian bases built with
 * `debootstrap` (`tests/_stand_in_bases.ts`), so a result here says the
 * task runs on Debian in Ubuntu's shape, not on Ubuntu; the Dockerfiles'
 * `apt-get install` runs with the build's network (`--build-network host`:
 * this engine has no bridge); `hello-world`'s test.sh fetches uv's installer
 * from a loopback astral.sh (`tests/_uv_stand_in.ts`) and Debian's packages
 * through the verifier's egress proxy.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { lookup } from "node:dns/promises";
import { buildImages } from "../runner/docker/build_images.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { EGRESS_RESOLVE_VARIABLE } from "../runner/egress/egress_resolve.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv, ROOT } from "./_cli_run.ts";
import { requireStandInTools, standInBase } from "./_stand_in_bases.ts";
import { testCa } from "./_test_ca.ts";
import { startPackageServer } from "./_package_server.ts";
import { uvStandInFiles } from "./_uv_stand_in.ts";
import { importHarborSuite } from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/harbor_examples_test.ts");
const TOOLS = ENGINE.available && await requireStandInTools("tests/harbor_examples_test.ts");
const EXAMPLES = `${ROOT}tests/fixtures/harbor_tasks/harbor-examples`;
const PROVEN = [
  "hello-healthcheck",
  "hello-multi-step-simple",
  "hello-user",
  "hello-workdir",
  "hello-world",
  "multistep-all-separate",
  "separate-verifier-environment",
  "sidecar-artifacts",
];

/** Copies the named example tasks into `dir`. */
async function copyExamples(dir: string, names: readonly string[]): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const name of names) {
    const copied = await new Deno.Command("cp", { args: ["-R", `${EXAMPLES}/${name}`, dir] })
      .output();
    equal(copied.code, 0, `cp ${name}`);
  }
}

Deno.test({
  name: "Harbor's example tasks pass suite check over stand-in bases; environment-env-single " +
    "is found unprovable for what it is",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const bases = ["ubuntu:24.04", "ubuntu:22.04", "python:3.13-slim", "python:3.12-slim"];
    for (const base of [...bases, "alpine:3.21"]) {
      await standInBase(base);
    }
    const ca = await testCa();
    const server = await startPackageServer({
      files: await uvStandInFiles(),
      tls: await ca.certFor(["astral.sh"]),
    });
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-harbor-examples-" });
    try {
      const debian = (await lookup("deb.debian.org")).address;
      const env = {
        [EGRESS_RESOLVE_VARIABLE]: `astral.sh:443=127.0.0.1:${server.tlsPort},` +
          `deb.debian.org:80=${debian}:80`,
      };
      await copyExamples(`${dir}/harbor`, [
        ...PROVEN,
        "environment-env-multi",
        "environment-env-single",
      ]);
      await importHarborSuite(dir, {
        env,
        importArgs: [
          "--without-internet",
          "--verifier-allow-host",
          "deb.debian.org",
          "--verifier-allow-host",
          "astral.sh",
        ],
      });
      const check = await cliWithEnv(
        env,
        "suite",
        "check",
        `${dir}/suite`,
        "--build-network",
        "host",
      );
      equal(check.code, 3, check.stderr + check.stdout);
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const summary = JSON.parse(await Deno.readTextFile(`${checkDir}/check.json`));
      const outcome = (task: {
        task_id: string;
        oracle: { status: string; resolved: boolean | null };
        no_change: { resolved: boolean | null };
        passed: boolean;
      }) =>
        `${task.task_id}: oracle ${task.oracle.status} ${task.oracle.resolved}, ` +
        `no change ${task.no_change.resolved}, passed ${task.passed}`;
      deepEqual(summary.tasks.map(outcome), [
        "environment-env-multi: oracle missing null, no change true, passed false",
        "environment-env-single: oracle missing null, no change true, passed false",
        ...PROVEN.map((id) => `${id}: oracle scored true, no change false, passed true`),
      ]);
      const single = summary.tasks.find((task: { task_id: string }) =>
        task.task_id === "environment-env-single"
      );
      equal(
        single.problems[1],
        "no-change: the verifier resolved the untouched workspace; the verifier's stdout ends: " +
          "PASS: the container entrypoint received environment.env",
      );
      // The sidecar shares a volume with the agent's environment, and not its variables.
      const multi = summary.tasks.find((task: { task_id: string }) =>
        task.task_id === "environment-env-multi"
      );
      equal(
        multi.problems[1],
        "no-change: the verifier resolved the untouched workspace; the verifier's stdout ends: " +
          "PASS: the main entrypoint received environment.env without sidecar leakage",
      );
      // Each multi-step row records its steps' rewards and their mean.
      const ledger = await Deno.readTextFile(
        `${checkDir}/tasks/hello-multi-step-simple/ledger.jsonl`,
      );
      const steps = ledger.trim().split("\n").map((line) => JSON.parse(line)).map((row) =>
        `${row.agent_id}: ${
          row.verification.steps.map((s: { name: string; reward: { reward: number } }) =>
            `${s.name} ${s.reward.reward}`
          ).join(", ")
        }; mean ${row.verification.reward.reward}`
      );
      deepEqual(steps.sort(), [
        "no-change: create-file 0, append-content 0; mean 0",
        "oracle: create-file 1, append-content 1; mean 1",
      ]);
    } finally {
      await server.close();
      await removeTree(dir);
    }
  },
});
