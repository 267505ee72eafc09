/**
 * The public harbor-cookbook tasks that need no Compose (issue 22), as
 * committed under tests/fixtures/harbor_tasks/cookbook/ (harbor-framework/
 * harbor-cookbook at e093c9a, unmodified): `simple-task`, `multi-reward`,
 * `dns-blacklisting` and `skills`, imported, proven by `suite check` (the
 * oracle resolved, the untouched workspace not) in Harbor's shared mode,
 * and `simple-task` run by the Codex CLI; `multi-step` (three `[[steps]]`
 * with `min_reward` gates, a step's `workdir/` and `setup.sh`, its
 * verifier variables and healthcheck, tests shared by the steps) proven the
 * same way.
 *
 * What stands in for what these machines cannot reach:
 * - `ubuntu:24.04` is a Debian base built with `debootstrap` from the
 *   machine's own mirror (`tests/_stand_in_bases.ts`); the tasks'
 *   Dockerfiles run their `apt-get install` with the build's network
 *   (`--build-network host`: this engine has no bridge);
 * - their `test.sh` runs `apt-get install curl` from the Debian mirror and
 *   `curl https://astral.sh/uv/0.9.7/install.sh | sh` through the verifier's
 *   egress proxy (the suite allows exactly those two hosts): astral.sh is a
 *   loopback HTTPS server with the test CA's certificate, serving a stand-in
 *   installer whose `uvx` unpacks a tar of Debian's `python3` and
 *   `python3-pytest` from the same astral.sh (uv would take a prebuilt
 *   Python from GitHub and pytest from PyPI), dropping `--with` and
 *   pytest-json-ctrf's `--ctrf`; every request is in the episode's evidence.
 *
 * @module
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { lookup } from "node:dns/promises";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { EGRESS_RESOLVE_VARIABLE } from "../runner/egress/egress_resolve.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv, ROOT } from "./_cli_run.ts";
import { importCheckedHarborSuite } from "./_python_toolchain.ts";
import { requireStandInTools, standInBase } from "./_stand_in_bases.ts";
import { testCa } from "./_test_ca.ts";
import { startPackageServer } from "./_package_server.ts";
import { uvStandInFiles } from "./_uv_stand_in.ts";

const ENGINE = await requireDockerEngine("tests/harbor_cookbook_test.ts");
const TOOLS = ENGINE.available && await requireStandInTools("tests/harbor_cookbook_test.ts");
const COOKBOOK = `${ROOT}tests/fixtures/harbor_tasks/cookbook`;
const TASKS = ["dns-blacklisting", "multi-reward", "simple-task", "skills"];

/**
 * The scripted model behind Codex on simple-task: its first turn (the
 * cookbook's instruction names hello.txt) runs one shell command writing the
 * file, its second says it is done.
 */
function helloScript() {
  return {
    model: "m-codex",
    rules: [
      {
        turn: 0,
        contains: "hello.txt",
        reply: {
          tool_calls: [{
            name: "exec_command",
            arguments: JSON.stringify({ cmd: "printf 'Hello, world!\\n' > /app/hello.txt" }),
          }],
          usage: { prompt_tokens: 1200, completion_tokens: 30 },
        },
      },
      {
        turn: 1,
        last: "tool_result",
        reply: { content: "Done.", usage: { prompt_tokens: 1300, completion_tokens: 5 } },
      },
    ],
    default: { content: "" },
  };
}

/**
 * Freezes `dir/suite` with one agent (its environments built on the host's
 * network) and runs it into `dir/ledger.jsonl`, the agent answered by
 * `script`; returns the ledger's rows.
 */
async function freezeAndRun(
  env: Record<string, string>,
  dir: string,
  agent: { id: string; image: string; model?: string },
  script: unknown,
) {
  const freeze = await cliWithEnv(
    env,
    "freeze",
    "--without-agent-check",
    "the test freezes plans without an agent check",
    "--suite",
    `${dir}/suite`,
    "--out",
    `${dir}/plan.json`,
    "--order-seed",
    "1",
    "--agent",
    `${agent.id}=${agent.image}`,
    ...(agent.model === undefined ? [] : ["--model", `${agent.id}=${agent.model}`]),
    "--build-network",
    "host",
  );
  equal(freeze.code, 0, freeze.stderr);
  const scriptFile = `${dir}/${agent.id}.script.json`;
  await Deno.writeTextFile(scriptFile, JSON.stringify(script));
  const run = await cliWithEnv(
    env,
    "run",
    "--plan",
    `${dir}/plan.json`,
    "--suite",
    `${dir}/suite`,
    "--ledger",
    `${dir}/ledger.jsonl`,
    "--provider-script",
    `${agent.id}=${scriptFile}`,
  );
  equal(run.code, 0, run.stderr);
  return (await loadLedger(`${dir}/ledger.jsonl`)).rows;
}

Deno.test({
  name: "the harbor-cookbook tasks pass suite check in shared mode over stand-in bases, their " +
    "verifiers' downloads through the egress proxy, and the Codex CLI solves simple-task",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    await standInBase("ubuntu:24.04");
    const ca = await testCa();
    const server = await startPackageServer({
      files: await uvStandInFiles(),
      tls: await ca.certFor(["astral.sh"]),
    });
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cookbook-" });
    try {
      const debian = (await lookup("deb.debian.org")).address;
      const env = {
        [EGRESS_RESOLVE_VARIABLE]: `astral.sh:443=127.0.0.1:${server.tlsPort},` +
          `deb.debian.org:80=${debian}:80`,
      };
      await Deno.mkdir(`${dir}/harbor`);
      for (const task of TASKS) {
        await new Deno.Command("cp", { args: ["-R", `${COOKBOOK}/${task}`, `${dir}/harbor/`] })
          .output();
      }
      // Every verifier fetched through the proxy, and the requests are the episodes' evidence.
      const { checkDir } = await importCheckedHarborSuite(dir, {
        importArgs: [
          "--without-internet",
          "--reward-rule",
          "min",
          "--verifier-allow-host",
          "deb.debian.org",
          "--verifier-allow-host",
          "astral.sh",
        ],
        checkArgs: ["--build-network", "host"],
        env,
      });
      const rows = [];
      for (const task of TASKS) {
        rows.push(...(await loadLedger(`${checkDir}/tasks/${task}/ledger.jsonl`)).rows);
      }
      equal(rows.length, 2 * TASKS.length);
      for (const row of rows) {
        equal(row.verification?.mode, "shared");
        ok((row.verification?.egress_allowed ?? 0) > 0, `${row.task_id}: no egress recorded`);
        equal(row.verification?.egress_denied, 0);
        const log = await openEpisodeLog(`${checkDir}/artifacts`, row.episode_log_digest!);
        const hosts = new Set((log.verifier?.egress ?? []).map((r) => `${r.method} ${r.host}`));
        ok(hosts.has("CONNECT astral.sh"), `${row.task_id}: ${[...hosts]}`);
        ok(hosts.has("GET deb.debian.org"), `${row.task_id}: ${[...hosts]}`);
      }
      const multi = rows.find((r) => r.task_id === "multi-reward" && r.resolved)!;
      deepEqual(multi.verification?.reward, { correctness: 1, performance: 1 });
      equal(multi.verification?.decided_by, "min of 2 keys");

      // A real agent CLI: Codex solves simple-task in its environment as built.
      const ran = await freezeAndRun(env, dir, {
        id: "codex",
        image: "ledgerbench/agent-codex:latest",
        model: "m-codex",
      }, helloScript());
      const simple = ran.find((r) => r.task_id === "simple-task")!;
      deepEqual(
        [simple.status, simple.resolved, simple.verification?.mode],
        ["scored", true, "shared"],
        simple.notes ?? "",
      );
      ok((simple.model_calls ?? 0) > 0);
    } finally {
      await server.close();
      await removeTree(dir);
    }
  },
});

Deno.test({
  name: "the harbor-cookbook's multi-step task passes suite check: each step's workdir/ and " +
    "setup.sh, its verifier variables and healthcheck applied; the untouched attempt stops at " +
    "the first step's min_reward",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    await standInBase("ubuntu:24.04");
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-cookbook-steps-" });
    try {
      await Deno.mkdir(`${dir}/harbor`);
      await new Deno.Command("cp", { args: ["-R", `${COOKBOOK}/multi-step`, `${dir}/harbor/`] })
        .output();
      const { checkDir } = await importCheckedHarborSuite(dir, {
        importArgs: ["--without-internet"],
        checkArgs: ["--build-network", "host"],
      });
      const rows = (await loadLedger(`${checkDir}/tasks/multi-step/ledger.jsonl`)).rows;
      const steps = rows.map((row) =>
        `${row.agent_id} ${row.resolved}: ${
          row.verification!.steps!.map((step) => `${step.name} ${step.reward?.reward}`).join(", ")
        }`
      ).sort();
      deepEqual(steps, [
        // scaffold's min_reward = 1.0 ends the untouched attempt after its first step.
        "no-change false: scaffold 0",
        // implement's tests need config.txt from its workdir/ and EXPECTED_* from its
        // [steps.verifier.env]; document's source the task's shared tests/helpers.sh.
        "oracle true: scaffold 1, implement 1, document 1",
      ]);
    } finally {
      await removeTree(dir);
    }
  },
});

/**
 * A task in the form the issue met (`cp /tests/test_outputs.py /app && pytest
 * /app/...`), over the stand-in base with Debian's pytest built in: a
 * candidate that plants `/app/conftest.py` turning every failed test into a
 * pass gets its wrong answer resolved, as it would under Harbor, and its row
 * says so.
 */
const PLANTABLE: Record<string, string> = {
  "instruction.md": "Write the word hello to /app/answer.txt.\n",
  "task.toml": "[environment]\nallow_internet = false\n[verifier]\ntimeout_sec = 120.0\n",
  "environment/Dockerfile": "FROM ubuntu:24.04\nRUN apt-get update && apt-get install -y " +
    "--no-install-recommends python3 python3-pytest && rm -rf /var/lib/apt/lists/*\nWORKDIR /app\n",
  "tests/test_outputs.py": "from pathlib import Path\n\n\ndef test_answer():\n" +
    '    assert Path("/app/answer.txt").read_text().strip() == "hello"\n',
  "tests/test.sh": "#!/bin/bash\ncp /tests/test_outputs.py /app/\n" +
    "if python3 -m pytest -q /app/test_outputs.py; then echo 1 > /logs/verifier/reward.txt; " +
    "else echo 0 > /logs/verifier/reward.txt; fi\n",
  "solution/solve.sh": "#!/bin/sh\necho hello > /app/answer.txt\n",
};

/** A conftest.py that reports every test as passed. */
const FORCING_CONFTEST = [
  "import pytest",
  "",
  "",
  "@pytest.hookimpl(hookwrapper=True)",
  "def pytest_runtest_makereport(item, call):",
  "    outcome = yield",
  "    report = outcome.get_result()",
  '    if report.when == "call":',
  '        report.outcome = "passed"',
  "",
].join("\n");

Deno.test({
  name: "a planted conftest.py forces pytest to pass in shared mode, and the row is flagged",
  ignore: !TOOLS,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    await standInBase("ubuntu:24.04");
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-planted-" });
    try {
      for (const [path, text] of Object.entries(PLANTABLE)) {
        await Deno.mkdir(`${dir}/harbor/plantable/${path}`.replace(/\/[^/]+$/, ""), {
          recursive: true,
        });
        await Deno.writeTextFile(`${dir}/harbor/plantable/${path}`, text);
      }
      await importCheckedHarborSuite(dir, { checkArgs: ["--build-network", "host"] });
      const [row] = await freezeAndRun({}, dir, {
        id: "planter",
        image: "ledgerbench/agent-solver:latest",
      }, {
        model: "scripted-model-1",
        rules: [{
          contains: "answer.txt",
          reply: {
            content: "```file:answer.txt\ngoodbye\n```\n" +
              `\`\`\`file:conftest.py\n${FORCING_CONFTEST}\`\`\`\n`,
          },
        }],
        default: { content: "" },
      });
      // The wrong answer passes: the hijack worked, as it would under Harbor...
      deepEqual([row.status, row.resolved], ["scored", true], row.notes ?? "");
      // ...and the row says what did it.
      equal(row.verification?.mode, "shared");
      deepEqual(row.verification?.hijacks, [{ flag: "conftest", path: "/app/conftest.py" }]);
    } finally {
      await removeTree(dir);
    }
  },
});
