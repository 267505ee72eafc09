/**
 * A Harbor-format task from import to ledger on the engine (issue 12): a
 * task directory in Harbor's layout (instruction.md, task.toml,
 * environment/Dockerfile over the offline Python base with `WORKDIR /app`
 * and a `COPY` into it, tests/test.sh writing `/logs/verifier/reward.txt`,
 * solution/solve.sh) is imported with `suite import harbor`, proven with
 * `suite check`, frozen (its environment built offline) and run with two
 * scripted solvers and the OpenAI Codex CLI, each brought into the task's
 * environment as its bundle.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import type { ProviderScriptInput } from "../analysis/schema/provider_script.ts";
import { REWARD_NOTE } from "../runner/sandbox/docker_sandbox.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, freezeCli, runCli } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  CODEX_SHELL,
  shellToolScript,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/harbor_suite_test.ts");
const TASK = "count-lines";

/** The right and the wrong `counter.py`. */
const RIGHT = "import sys\nprint(sum(1 for _ in open(sys.argv[1])))\n";
const WRONG = "print(0)\n";

/** One Harbor task directory over `python`. */
function harborTask(python: string): Record<string, string> {
  return {
    "instruction.md": `ledgerbench-task: ${TASK}\nMake /app/counter.py print how many lines ` +
      "the file named by its first argument has.\n",
    "task.toml": [
      'version = "1.0"',
      "",
      "[metadata]",
      'difficulty = "easy"',
      "",
      "[verifier]",
      "timeout_sec = 120.0",
      "",
      "[agent]",
      "timeout_sec = 600.0",
      "",
      "[environment]",
      "cpus = 1",
      "memory_mb = 1024",
      "allow_internet = false",
      "",
    ].join("\n"),
    "environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\nCOPY src/ /app/\n`,
    "environment/src/counter.py": "print('not yet')\n",
    "tests/test.sh": [
      "#!/bin/sh",
      "mkdir -p /logs/verifier",
      "printf 'a\\nb\\nc\\n' > /tmp/three.txt",
      'if [ "$(cd /app && python3 counter.py /tmp/three.txt)" = 3 ]; then',
      "  echo 1 > /logs/verifier/reward.txt",
      "else",
      "  echo 0 > /logs/verifier/reward.txt",
      "fi",
      "",
    ].join("\n"),
    "solution/solve.sh": `#!/bin/sh\ncat > /app/counter.py <<'PY'\n${RIGHT}PY\n`,
  };
}

Deno.test({
  name: "a Harbor task is imported, checked, frozen and run by scripted solvers and Codex in its " +
    "own environment",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-harbor-" });
    try {
      await writeSuite(`${dir}/harbor/${TASK}`, harborTask(python));
      const imported = await cli(
        "suite",
        "import",
        "harbor",
        `${dir}/harbor`,
        "--out",
        `${dir}/suite`,
      );
      equal(imported.code, 0, imported.stderr);
      const check = await cli("suite", "check", `${dir}/suite`);
      equal(check.code, 0, check.stderr + check.stdout);
      const solver = "ledgerbench/agent-solver:latest";
      const freeze = await freezeCli(
        `${dir}/suite`,
        `${dir}/plan.json`,
        { right: solver, wrong: solver, codex: "ledgerbench/agent-codex:latest" },
        "--model",
        "codex=m-codex",
      );
      equal(freeze.code, 0, freeze.stderr);
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      equal(plan.suite_check?.state, "passed");
      equal(plan.tasks[0].environment?.image.startsWith(`ledgerbench-env/${TASK}:`), true);
      /** The scripted solver's reply: one file block. */
      const reply = (content: string): ProviderScriptInput => ({
        model: "scripted-model-1",
        rules: [{
          contains: TASK,
          reply: { content: `\`\`\`file:counter.py\n${content}\`\`\`\n` },
        }],
        default: { content: "" },
      });
      const run = await runCli(
        { plan: `${dir}/plan.json`, suite: `${dir}/suite`, ledger: `${dir}/ledger.jsonl` },
        {
          right: reply(RIGHT),
          wrong: reply(WRONG),
          codex: shellToolScript(CODEX_SHELL, [
            { task: TASK, path: "/app/counter.py", content: RIGHT },
          ]),
        },
      );
      equal(run.code, 0, run.stderr);
      const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.agent_id, r.status, r.resolved, r.model_calls]).sort(),
        [["codex", "scored", true, 2], ["right", "scored", true, 1], ["wrong", "scored", false, 1]],
        rows.map((r) => `${r.agent_id}: ${r.notes}`).join("\n"),
      );
      for (const row of rows) {
        const agent = plan.agents.find((a) => a.agent_id === row.agent_id)!;
        equal(row.environment?.task_image_digest, plan.tasks[0].environment?.image_digest);
        equal(row.environment?.agent_bundle_digest, agent.bundle_digest);
        equal(row.notes?.startsWith(REWARD_NOTE), true, row.notes ?? "");
      }
    } finally {
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
