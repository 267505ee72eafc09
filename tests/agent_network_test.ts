/**
 * The agent's internet, as Harbor defines it and recorded, on the engine: a
 * Terminal-Bench-2-format task (its directory named with underscores, as
 * Harbor's datasets often are) that says nothing of the network (Harbor's
 * `allow_internet` defaults to true) over the offline Python base, whose
 * solution downloads a file from `files.example` (a loopback server
 * standing in for the host, `LEDGERBENCH_EGRESS_RESOLVE`) and also tries a
 * model API directly. Imported, it asks for the public internet; `suite
 * check --agent-allow-host files.example` passes with the download allowed
 * and the model API denied, both in the episode's log and counted on the
 * row; without the host, the oracle's download is denied and the check
 * fails; `freeze` records what the plan allows.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { EGRESS_RESOLVE_VARIABLE } from "../runner/egress/egress_resolve.ts";
import { PACKAGE_INDEX_HOSTS } from "../runner/egress/agent_egress.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  importHarborSuite,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/agent_network_test.ts");

/** The solution: the download through the proxy, then a direct model call it must not get. */
const SOLVE = [
  "#!/bin/sh",
  "python3 - <<'PY'",
  "import urllib.request",
  "data = urllib.request.urlopen('http://files.example/data.txt').read()",
  "open('/app/data.txt', 'wb').write(data)",
  "try:",
  "    urllib.request.urlopen('http://api.openai.com/v1/models')",
  "except Exception as error:",
  "    print('model API refused:', error)",
  "PY",
  "",
].join("\n");

Deno.test({
  name: "a task that allows the internet gives its agent the plan's hosts through the " +
    "recording proxy, never a model API, every request in the log and on the row",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) =>
        new URL(request.url).pathname === "/data.txt"
          ? new Response("payload-42\n")
          : new Response("not here", { status: 404 }),
    );
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-agent-network-" });
    try {
      const env = { [EGRESS_RESOLVE_VARIABLE]: `files.example:80=127.0.0.1:${server.addr.port}` };
      await writeSuite(`${dir}/harbor`, {
        "fetch_data/instruction.md": "Download http://files.example/data.txt to /app/data.txt.\n",
        // No [environment] network key: Harbor's allow_internet defaults to true.
        "fetch_data/task.toml":
          'version = "1.0"\n[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n',
        "fetch_data/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
        "fetch_data/solution/solve.sh": SOLVE,
        "fetch_data/tests/test.sh": "#!/bin/bash\n" +
          'if [ "$(cat /app/data.txt)" = payload-42 ]; then r=1; else r=0; fi\n' +
          "echo $r > /logs/verifier/reward.txt\n",
      });
      const imported = await importHarborSuite(dir, { env });
      match(
        imported.stdout,
        /fetch_data {2}environment\/Dockerfile {2}verifier shared {2}agent network public/,
      );
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/suite/suite.json`));
      deepEqual(manifest.tasks[0].agent_network, { mode: "public" });

      const check = await cliWithEnv(
        env,
        "suite",
        "check",
        `${dir}/suite`,
        "--agent-allow-host",
        "files.example",
      );
      equal(check.code, 0, check.stderr + check.stdout);
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const rows = (await loadLedger(`${checkDir}/tasks/fetch_data/ledger.jsonl`)).rows;
      const oracle = rows.find((row) => row.agent_id === "oracle")!;
      equal(oracle.resolved, true, oracle.notes);
      deepEqual(oracle.agent_egress, {
        allowed: 1,
        denied: 1,
        hosts: [
          { host: "api.openai.com", allowed: 0, denied: 1 },
          { host: "files.example", allowed: 1, denied: 0 },
        ],
        hosts_omitted: 0,
      });
      const log = await openEpisodeLog(`${checkDir}/artifacts`, oracle.episode_log_digest!);
      deepEqual(
        log.agent_egress?.map((r) => [r.method, r.host, r.path, r.allowed, r.status]),
        [
          ["GET", "files.example", "/data.txt", true, 200],
          ["GET", "api.openai.com", "/v1/models", false, 403],
        ],
      );
      match(
        log.agent_egress![1].error!,
        /matches "api\.openai\.com", which this agent may not reach/,
      );
      const shown = await cliWithEnv(
        env,
        "show",
        oracle.episode_id,
        "--ledger",
        `${checkDir}/tasks/fetch_data/ledger.jsonl`,
        "--artifacts",
        `${checkDir}/artifacts`,
      );
      equal(shown.code, 0, shown.stderr);
      match(
        shown.stdout,
        /\nagent egress requests: 2\n {2}GET files\.example:80 \/data\.txt: allowed, status 200\n {2}GET api\.openai\.com:80 \/v1\/models: denied, status 403\n/,
      );
      const noChange = rows.find((row) => row.agent_id === "no-change")!;
      deepEqual(noChange.agent_egress, { allowed: 0, denied: 0, hosts: [], hosts_omitted: 0 });
      // The report says, per agent, how many requests went where, from the ledger alone.
      const report = await cliWithEnv(
        env,
        "report",
        `${checkDir}/tasks/fetch_data/ledger.jsonl`,
        "--plan",
        `${checkDir}/tasks/fetch_data/plan.json`,
        "--out",
        `${dir}/report`,
      );
      equal(report.code, 0, report.stderr);
      const markdown = await Deno.readTextFile(`${dir}/report/report.md`);
      match(markdown, /## Agent network\n/);
      match(
        markdown,
        /\| oracle +\| api\.openai\.com +\| +0 \| +1 \|\n\| oracle +\| files\.example +\| +1 \| +0 \|/,
      );

      // Without the host the plan gives the agent nothing: the download is denied, and recorded.
      const denied = await cliWithEnv(env, "suite", "check", `${dir}/suite`);
      equal(denied.code, 3, denied.stderr + denied.stdout);
      match(denied.stderr, /1 task\(s\) ask for the internet, and their agents reach no host/);
      const deniedDir = /written: (.+)\n/.exec(denied.stdout)![1];
      const deniedOracle = (await loadLedger(`${deniedDir}/tasks/fetch_data/ledger.jsonl`)).rows
        .find((row) => row.agent_id === "oracle")!;
      equal(deniedOracle.resolved, false);
      deepEqual(deniedOracle.agent_egress?.hosts, [
        { host: "files.example", allowed: 0, denied: 1 },
      ]);

      const freeze = await cliWithEnv(
        env,
        "freeze",
        "--without-agent-check",
        "the test freezes plans without an agent check",
        "--suite",
        `${dir}/suite`,
        "--out",
        `${dir}/plan.json`,
        "--agent",
        "solver=ledgerbench/agent-solver:latest",
        "--without-suite-check",
        "the last check ran without the host",
        "--agent-allow-host",
        "@package-indexes",
        "--agent-allow-host",
        "files.example",
      );
      equal(freeze.code, 0, freeze.stderr);
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      deepEqual(plan.agent_egress, {
        allow_hosts: [...PACKAGE_INDEX_HOSTS, "files.example"],
        any_public_host: false,
        task_allowlists: true,
      });
      match(
        freeze.stdout,
        /agent network: hosts pypi\.org,[\s\S]*files\.example;\s+the tasks' own allow-lists/,
      );
    } finally {
      await server.shutdown();
      await removeTree(dir);
    }
  },
});
