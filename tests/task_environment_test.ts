/**
 * Tasks in their own environments (issue 12), on the engine: a hand-written
 * suite whose two tasks need Python, which the default images lack. One is
 * built from a Dockerfile over an offline Python base (built in the test,
 * nothing pulled), verified by the JSON line; the other names the base image
 * itself, works in `/app` and is verified by a Harbor-style `test.sh`
 * entry writing `/logs/verifier/reward.txt`, with its hidden files at
 * `/tests`. The scripted solvers and the Codex CLI, opencode and the Gemini
 * CLI run from their bundles inside those environments; the plan and every row record the
 * environment's and the bundle's digests.
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
import { cli, freezeCli, runCli } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  CODEX_SHELL,
  GEMINI_SHELL,
  importHarborSuite,
  OPENCODE_SHELL,
  pythonSuiteFiles,
  shellToolScript,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/task_environment_test.ts");

/** The right answers Codex writes (the suite's own answers are for the scripted solver). */
const MEAN =
  "import sys\nnums = [float(x) for x in open(sys.argv[1])]\nprint(sum(nums) / len(nums))\n";
const DOUBLE = "import sys\nprint(int(sys.argv[1]) * 2)\n";

Deno.test({
  name:
    "tasks with their own Python environments run the scripted solvers, Codex, opencode and the Gemini CLI from their bundles",
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
      const freeze = await freezeCli(
        `${dir}/suite`,
        `${dir}/plan.json`,
        {
          right: solver,
          wrong: solver,
          codex: "ledgerbench/agent-codex:latest",
          opencode: "ledgerbench/agent-opencode:latest",
          gemini: "ledgerbench/agent-gemini:latest",
        },
        "--model",
        `codex=${CODEX_SHELL.model}`,
        "--model",
        `opencode=${OPENCODE_SHELL.model}`,
        "--model",
        `gemini=${GEMINI_SHELL.model}`,
      );
      equal(freeze.code, 0, freeze.stderr);
      match(
        freeze.stdout,
        /task py-mean: environment ledgerbench-env\/py-mean:[0-9a-f]{16}\s+sha256:/,
      );
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      const environments = Object.fromEntries(
        plan.tasks.map((task) => [task.task_id, task.environment]),
      );
      equal(environments["py-double"]?.image, python);
      const bundle = plan.agents[0].bundle_digest!;
      match(bundle, /^sha256:[0-9a-f]{64}$/);
      equal(plan.agents[1].bundle_digest, bundle);
      equal(plan.agents[2].image_digest, images["ledgerbench/agent-codex"]);
      match(plan.agents[2].bundle_digest!, /^sha256:/);
      equal(plan.agents[0].image_digest, images["ledgerbench/agent-solver"]);
      // The real agents run from their bundles: Codex's static binary as it is, opencode's and
      // the Gemini CLI's node through the bundle's own loader (/opt/ledgerbench/with-loader).
      const writes = [
        { task: "py-mean", path: "/workspace/mean.py", content: MEAN },
        { task: "py-double", path: "/app/double.py", content: DOUBLE },
      ];
      const run = await runCli(
        {
          plan: `${dir}/plan.json`,
          suite: `${dir}/suite`,
          ledger: `${dir}/ledger.jsonl`,
          kinds: { gemini: "gemini" },
        },
        {
          right: await suiteProviderScript(suite),
          wrong: await suiteProviderScript(suite, { correctRate: 0 }),
          codex: shellToolScript(CODEX_SHELL, writes),
          opencode: shellToolScript(OPENCODE_SHELL, writes),
          gemini: shellToolScript(GEMINI_SHELL, writes),
        },
      );
      equal(run.code, 0, run.stderr);
      const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.agent_id, r.task_id, r.status, r.resolved]).sort(),
        [
          ["codex", "py-double", "scored", true],
          ["codex", "py-mean", "scored", true],
          ["gemini", "py-double", "scored", true],
          ["gemini", "py-mean", "scored", true],
          ["opencode", "py-double", "scored", true],
          ["opencode", "py-mean", "scored", true],
          ["right", "py-double", "scored", true],
          ["right", "py-mean", "scored", true],
          ["wrong", "py-double", "scored", false],
          ["wrong", "py-mean", "scored", false],
        ],
        rows.map((r) => `${r.agent_id}/${r.task_id}: ${r.notes}`).join("\n"),
      );
      // A re-verification of the stored artifacts runs where the episodes' verifiers ran.
      const reverify = await cli(
        "reverify",
        `${dir}/ledger.jsonl`,
        "--errata",
        `${dir}/errata.jsonl`,
        "--suite",
        `${dir}/suite`,
        "--episodes",
        rows.filter((r) => ["right", "wrong"].includes(r.agent_id)).map((r) => r.episode_id)
          .join(","),
      );
      equal(reverify.code, 0, reverify.stderr);
      const errata = (await Deno.readTextFile(`${dir}/errata.jsonl`)).trim().split("\n")
        .map((line) => JSON.parse(line));
      deepEqual(
        errata.map((e) => [e.episode_id.split("/").slice(1, 3).join("/"), e.resolved]).sort(),
        [["right/py-double", true], ["right/py-mean", true], ["wrong/py-double", false], [
          "wrong/py-mean",
          false,
        ]],
      );
      const agents = new Map(plan.agents.map((agent) => [agent.agent_id, agent]));
      for (const row of rows) {
        const agent = agents.get(row.agent_id)!;
        equal(row.environment?.task_image_digest, environments[row.task_id]!.image_digest);
        equal(row.environment?.agent_bundle_digest, agent.bundle_digest);
        equal(row.environment?.agent_image_digest, agent.image_digest);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "freeze names a task's environment image it cannot pull and a Dockerfile's missing base image",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-env-missing-" });
    try {
      const task = (id: string, environment: object) => ({
        [`${id}/suite.json`]: JSON.stringify({
          suite_id: id,
          tasks: [{ task_id: id, environment }],
        }),
        [`${id}/tasks/${id}/workspace/TASK.md`]: "Do it.\n",
        [`${id}/tasks/${id}/verifier/verify.sh`]: "echo\n",
        [`${id}/tasks/${id}/environment/Dockerfile`]:
          "FROM ledgerbench/base:latest AS tools\nFROM ledgerbench-test/absent:1\n",
      });
      await writeSuite(dir, {
        // A registry on a loopback port nothing listens on: the pull fails at once, offline.
        ...task("by-image", { image: "127.0.0.1:9/ledgerbench-test/absent:2" }),
        ...task("by-dockerfile", { dockerfile: "environment/Dockerfile" }),
      });
      const freeze = (id: string) =>
        cli(
          "freeze",
          "--without-agent-check",
          "the test freezes plans without an agent check",
          "--suite",
          `${dir}/${id}`,
          "--out",
          `${dir}/${id}.json`,
          "--agent",
          "solver=ledgerbench/agent-solver:latest",
        );
      const byImage = await freeze("by-image");
      equal(byImage.code, 2);
      match(
        byImage.stderr.split("\n").filter((l) => l.startsWith("error:")).join("\n"),
        /^error: Cannot freeze plan: task "by-image": environment image "127\.0\.0\.1:9\/ledgerbench-test\/absent:2" is not present and cannot be pulled: .*127\.0\.0\.1:9.*connection refused$/,
      );
      const byDockerfile = await freeze("by-dockerfile");
      equal(byDockerfile.code, 2);
      const real = await Deno.realPath(dir);
      equal(
        byDockerfile.stderr.split("\n").filter((l) => l.startsWith("error:")).join("\n"),
        'error: Cannot freeze plan: task "by-dockerfile": ' +
          `${real}/by-dockerfile/tasks/by-dockerfile/environment/Dockerfile:2: base image ` +
          '"ledgerbench-test/absent:1" is not present (nothing is pulled; build or load it first)',
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "freeze builds with BuildKit, naming a failed step's Dockerfile line and output; a " +
    "named build network takes the legacy builder, which names the line that needs BuildKit",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-env-buildkit-" });
    const network = `ledgerbench-test-build-${crypto.randomUUID().slice(0, 8)}`;
    try {
      await writeSuite(`${dir}/suite`, {
        "suite.json": JSON.stringify({
          suite_id: "buildkit",
          tasks: [{ task_id: "fails", environment: { dockerfile: "environment/Dockerfile" } }],
        }),
        "tasks/fails/workspace/TASK.md": "Do it.\n",
        "tasks/fails/verifier/verify.sh": "echo\n",
        "tasks/fails/environment/hello.sh": "echo hello\n",
        "tasks/fails/environment/Dockerfile": [
          "FROM ledgerbench/base:latest",
          "COPY --chmod=755 hello.sh /hello.sh",
          // Both lines to stdout: BuildKit interleaves a step's stdout and stderr as they arrive.
          "RUN echo preparing; \\",
          '    echo "no such tool"; exit 3',
          "",
        ].join("\n"),
      });
      const freeze = (...extra: string[]) =>
        cli(
          "freeze",
          "--without-agent-check",
          "the test freezes plans without an agent check",
          "--suite",
          `${dir}/suite`,
          "--out",
          `${dir}/plan.json`,
          "--agent",
          "solver=ledgerbench/agent-solver:latest",
          ...extra,
        );
      const dockerfile = `${await Deno.realPath(dir)}/suite/tasks/fails/environment/Dockerfile`;
      const errors = (stderr: string) =>
        stderr.split("\n").filter((l) => l.startsWith("error:")).join("\n");
      // BuildKit built the `COPY --chmod` step, then the RUN step failed: its line and output.
      const buildKit = await freeze();
      equal(buildKit.code, 2);
      const run = 'echo preparing; echo "no such tool"; exit 3';
      equal(
        errors(buildKit.stderr),
        `error: Cannot freeze plan: task "fails": building ${dockerfile} with build network ` +
          `"default" failed: line 3: [3/3] RUN ${run} | preparing | no such tool | ` +
          `executor failed running [/bin/sh -c ${run}]: exit code: 3`,
      );
      const created = await new Deno.Command("docker", { args: ["network", "create", network] })
        .output();
      equal(created.code, 0, new TextDecoder().decode(created.stderr));
      const legacy = await freeze("--build-network", network);
      equal(legacy.code, 2);
      equal(
        errors(legacy.stderr),
        `error: Cannot freeze plan: task "fails": building ${dockerfile} with build network ` +
          `"${network}" failed: Dockerfile:2: COPY --chmod needs BuildKit, which this build ` +
          `cannot use (BuildKit takes no named build network such as "${network}")`,
      );
      equal(await Deno.stat(`${dir}/plan.json`).then(() => true, () => false), false);
    } finally {
      await new Deno.Command("docker", { args: ["network", "rm", network], stderr: "null" })
        .output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "suite check fails a Harbor task whose environment has no bash, before any episode, " +
    "and checks the others",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-env-no-bash-" });
    try {
      // Harbor runs the tests as `bash /tests/test.sh`; ledgerbench/base is busybox, no bash.
      const task = (id: string, dockerfile: string) => ({
        [`${id}/instruction.md`]: "Write 42 to /app/out.txt.\n",
        [`${id}/task.toml`]: 'version = "1.0"\n[environment]\nallow_internet = false\n',
        [`${id}/environment/Dockerfile`]: dockerfile,
        [`${id}/solution/solve.sh`]: "#!/bin/sh\necho 42 > /app/out.txt\n",
        [`${id}/tests/test.sh`]: "#!/bin/bash\n" +
          'if [ "$(cat /app/out.txt)" = 42 ]; then r=1; else r=0; fi\n' +
          "echo $r > /logs/verifier/reward.txt\n",
      });
      await writeSuite(`${dir}/harbor`, {
        ...task("no-bash", "FROM ledgerbench/base:latest\nWORKDIR /app\n"),
        ...task("with-bash", `FROM ledgerbench/base:latest\n${BASH_STAND_IN}\nWORKDIR /app\n`),
      });
      await importHarborSuite(dir);
      const check = await cli("suite", "check", `${dir}/suite`, "--width", "300");
      equal(check.code, 3, check.stderr + check.stdout);
      const lines = check.stdout.split("\n");
      match(lines.find((l) => l.startsWith("with-bash"))!, /resolved +not resolved +ok$/);
      match(lines.find((l) => l.startsWith("no-bash "))!, /no row +no row +FAIL$/);
      match(
        lines.find((l) => l.startsWith("no-bash: "))!,
        /^no-bash: environment: task "no-bash": image "ledgerbench-env\/no-bash:[0-9a-f]{16}" has no bash on its PATH, and Harbor runs the tests as "bash \/tests\/test.sh" \(install bash in the environment\)$/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
