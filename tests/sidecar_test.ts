/**
 * A Compose sidecar on the engine, in a Terminal-Bench-2-format task over
 * the offline Python base: `environment/docker-compose.yaml` declares an
 * `api` service built from its own Dockerfile (a small HTTP server holding
 * a token) with a healthcheck, and `main` waits for it to be healthy. The
 * task's solution reads the token from `http://api:8000`, and looks for the
 * server's process from the agent's side; its tests query the sidecar too.
 *
 * What the test holds: the import maps the Compose file; `suite check`
 * passes (the oracle reached the sidecar by its name, the untouched
 * workspace did not resolve); the agent could not see the sidecar's
 * process (its own container); the sidecar's image is frozen in the plan;
 * nothing of the episode's services is left once the check is done.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import { RUN_LABEL } from "../runner/remove_orphans.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliWithEnv } from "./_cli_run.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  importHarborSuite,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/sidecar_test.ts");

/** The sidecar: the token at /token, "ok" elsewhere, on port 8000. */
const SERVER = [
  "import http.server",
  "class Handler(http.server.BaseHTTPRequestHandler):",
  "    def do_GET(self):",
  '        body = b"token-7f3a\\n" if self.path == "/token" else b"ok\\n"',
  "        self.send_response(200)",
  '        self.send_header("Content-Length", str(len(body)))',
  "        self.end_headers()",
  "        self.wfile.write(body)",
  "    def log_message(self, *args):",
  "        pass",
  'http.server.HTTPServer(("127.0.0.1", 8000), Handler).serve_forever()',
  "",
].join("\n");

const COMPOSE = [
  "services:",
  "  main:",
  "    depends_on:",
  "      api:",
  "        condition: service_healthy",
  "  api:",
  "    build:",
  "      context: ./api",
  "    expose:",
  '      - "8000"',
  "    healthcheck:",
  '      test: ["CMD", "python3", "-c", "import urllib.request; ' +
  "urllib.request.urlopen('http://localhost:8000/health')\"]",
  "      interval: 1s",
  "      retries: 30",
  "",
].join("\n");

/** Python that prints what `url` answers. */
const fetch = (url: string) =>
  `python3 -c "import urllib.request; print(urllib.request.urlopen('${url}').read().decode().strip())"`;

Deno.test({
  name: "a Compose sidecar runs beside the agent in its loopback-only network, reached by its " +
    "name, unseen by the agent's processes, frozen in the plan and gone after the episode",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-sidecar-" });
    try {
      await writeSuite(`${dir}/harbor`, {
        "ask_api/instruction.md": "Write the token http://api:8000/token serves to /app/token.\n",
        "ask_api/task.toml": 'version = "1.0"\n[environment]\nallow_internet = false\n' +
          "[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 60.0\n",
        "ask_api/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
        "ask_api/environment/docker-compose.yaml": COMPOSE,
        "ask_api/environment/api/Dockerfile": `FROM ${python}\nCOPY server.py /srv/server.py\n` +
          'CMD ["python3", "/srv/server.py"]\n',
        "ask_api/environment/api/server.py": SERVER,
        "ask_api/solution/solve.sh": "#!/bin/sh\n" +
          `${fetch("http://api:8000/token")} > /app/token\n` +
          "if grep -l server.py /proc/[0-9]*/cmdline >/dev/null 2>&1; then " +
          "echo yes > /app/seen-server; fi\n",
        "ask_api/tests/test.sh": "#!/bin/bash\n" +
          `if [ "$(cat /app/token)" = token-7f3a ] && [ ! -e /app/seen-server ] && ` +
          `[ "$(${fetch("http://api:8000/health")})" = ok ]; then r=1; else r=0; fi\n` +
          "echo $r > /logs/verifier/reward.txt\n",
      });
      const imported = await importHarborSuite(dir);
      match(
        imported.stdout,
        /ask_api {2}environment\/Dockerfile {2}verifier shared {2}services api {2}/,
      );
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/suite/suite.json`));
      deepEqual(manifest.tasks[0].environment_depends_on, { api: "healthy" });
      deepEqual(manifest.tasks[0].services[0].environment, {
        dockerfile: "environment/api/Dockerfile",
      });

      const check = await cliWithEnv({}, "suite", "check", `${dir}/suite`);
      equal(check.code, 0, check.stderr + check.stdout);
      const checkDir = /written: (.+)\n/.exec(check.stdout)![1];
      const rows = (await loadLedger(`${checkDir}/tasks/ask_api/ledger.jsonl`)).rows;
      deepEqual(
        rows.map((row) => `${row.agent_id} ${row.status} ${row.resolved}`).sort(),
        ["no-change scored false", "oracle scored true"],
      );
      const plan = JSON.parse(await Deno.readTextFile(`${checkDir}/tasks/ask_api/plan.json`));
      deepEqual(plan.tasks[0].services.map((s: { name: string }) => s.name), ["api"]);
      match(plan.tasks[0].services[0].image_digest, /^sha256:[0-9a-f]{64}$/);
      // The episode's services ended with it (this run's: other test files may run beside it).
      const left = await new Deno.Command("docker", {
        args: [
          "ps",
          "-aq",
          "--filter",
          "label=ledgerbench.service",
          "--filter",
          `label=${RUN_LABEL}=${plan.plan_id}`,
        ],
        stdout: "piped",
      }).output();
      equal(new TextDecoder().decode(left.stdout).trim(), "");
    } finally {
      await removeTree(dir);
    }
  },
});
