/**
 * Harbor tasks run as Harbor runs them, on the engine: each of
 * the failures found on real public tasks is a task here, in
 * Harbor's layout over the offline Python base, imported with `suite
 * import harbor` and proven with `suite check` (the oracle resolved, the
 * untouched workspace not), in Harbor's shared verifier mode:
 *
 * 1. data a Dockerfile's `RUN` made in the workdir is in the workspace;
 * 2. the verifier may write the workdir (`cp /tests/... /app`);
 * 3. the image's `ENTRYPOINT` runs (it fills `/etc/hosts` and starts a
 *    blocking server on port 80);
 * 4. a service the solution started is still up when the tests query it,
 *    and `/var/log` is writable;
 * 5. a `reward.json` of several keys is decided by the key the import names;
 * 6. a program written to `/tmp` runs there, in the solution and in the
 *    tests (the image's own `/tmp`, executable, as Harbor runs it);
 * 7. Harbor's agent log directory, `/logs/agent`, is there for the agent;
 * 8. `[agent] user` writes the working directory the image gave it (its
 *    owner and mode kept in the workspace);
 * 9. `[environment] workdir` is where the agent and the tests run;
 * 10. `[environment.env]`'s variables are seen by the agent and the tests;
 * 11. `[environment.healthcheck]` holds the agent until the environment is ready;
 * 12. a Dockerfile in BuildKit's syntax (`COPY --chmod=755`, as Harbor's
 *     `hello-healthcheck`) builds.
 *
 * And Harbor's separate mode (only the task's `artifacts` reach a fresh
 * copy of the environment), and a candidate that plants a `conftest.py`
 * in the workdir, flagged on its row.
 *
 * The base has no bash; each Dockerfile adds a two-line stand-in that runs
 * busybox's shell (Harbor calls `bash /tests/test.sh`).
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { buildImages } from "../runner/docker/build_images.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { freezeCli, runCli } from "./_cli_run.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { removeTree } from "../runner/sandbox/remove_tree.ts";
import {
  BASH_STAND_IN,
  buildPythonBase,
  importCheckedHarborSuite,
  writeSuite,
} from "./_python_toolchain.ts";

const ENGINE = await requireDockerEngine("tests/harbor_environment_test.ts");

const TOML = [
  'version = "1.0"',
  "[verifier]",
  "timeout_sec = 60.0",
  "[agent]",
  "timeout_sec = 60.0",
  "[environment]",
  "allow_internet = false",
  "",
].join("\n");

/** test.sh's last lines: reward 1 when `$check` held, else 0. */
const REWARD = [
  'if [ "$ok" = yes ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi',
  "",
].join("\n");

/** The tasks, path → text, over `python`. */
function tasks(python: string): Record<string, string> {
  return {
    // 1. RUN-made data in the workdir.
    "run-data/instruction.md":
      "Write the number of records of /app/data/records.csv to /app/count.txt.\n",
    "run-data/task.toml": TOML,
    "run-data/environment/Dockerfile": [
      `FROM ${python}`,
      BASH_STAND_IN,
      "RUN mkdir -p /app/data && python3 -c \"print('id'); [print(i) for i in range(7)]\" > /app/data/records.csv",
      "WORKDIR /app",
      "",
    ].join("\n"),
    "run-data/solution/solve.sh":
      "#!/bin/sh\necho $(($(wc -l < /app/data/records.csv) - 1)) > /app/count.txt\n",
    "run-data/tests/test.sh":
      `#!/bin/bash\nok=no; [ "$(cat /app/count.txt 2>/dev/null)" = 7 ] && ok=yes\n${REWARD}`,
    // 2. The verifier writes the workdir.
    "writes-app/instruction.md": "Create /app/greet.py printing hello.\n",
    "writes-app/task.toml": TOML,
    "writes-app/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "writes-app/solution/solve.sh": "#!/bin/sh\necho 'print(\"hello\")' > /app/greet.py\n",
    "writes-app/tests/test_outputs.py": [
      "import subprocess",
      "out = subprocess.run(['python3', '/app/greet.py'], capture_output=True, text=True).stdout",
      "assert out.strip() == 'hello', out",
      "",
    ].join("\n"),
    "writes-app/tests/test.sh":
      `#!/bin/bash\ncp /tests/test_outputs.py /app/ && python3 /app/test_outputs.py && ok=yes\n${REWARD}`,
    // 3. The image's ENTRYPOINT fills /etc/hosts and serves port 80.
    "entrypoint/instruction.md": "Write what http://blocked.example/ answers to /app/page.txt.\n",
    "entrypoint/task.toml": TOML,
    "entrypoint/environment/entrypoint.sh": [
      "#!/bin/sh",
      "echo '127.0.0.1 blocked.example' >> /etc/hosts",
      "mkdir -p /srv/www && echo blocked-by-policy > /srv/www/index.html",
      "python3 -m http.server 80 --directory /srv/www >/dev/null 2>&1 &",
      'exec "$@"',
      "",
    ].join("\n"),
    "entrypoint/environment/Dockerfile": [
      `FROM ${python}`,
      BASH_STAND_IN,
      "COPY entrypoint.sh /entrypoint.sh",
      "RUN chmod +x /entrypoint.sh",
      'ENTRYPOINT ["/entrypoint.sh"]',
      "WORKDIR /app",
      "",
    ].join("\n"),
    "entrypoint/solution/solve.sh": [
      "#!/bin/sh",
      "for i in $(seq 50); do",
      "  python3 -c \"import urllib.request; print(urllib.request.urlopen('http://blocked.example/').read().decode().strip())\" > /app/page.txt 2>/dev/null && break",
      "  sleep 0.1",
      "done",
      "",
    ].join("\n"),
    "entrypoint/tests/test.sh":
      `#!/bin/bash\nok=no; [ "$(cat /app/page.txt)" = blocked-by-policy ] && ok=yes\n${REWARD}`,
    // 4. A service the solution started answers the tests; /var/log is writable.
    "service/instruction.md": "Serve the text 42 on http://127.0.0.1:8000/ and keep it running.\n",
    "service/task.toml": TOML,
    "service/environment/Dockerfile":
      `FROM ${python}\n${BASH_STAND_IN}\nRUN mkdir -p /var/log\nWORKDIR /app\n`,
    "service/solution/solve.sh": [
      "#!/bin/sh",
      "mkdir -p /srv/answer && echo 42 > /srv/answer/index.html",
      "python3 -m http.server 8000 --bind 127.0.0.1 --directory /srv/answer > /var/log/answer.log 2>&1 &",
      "sleep 1",
      "",
    ].join("\n"),
    "service/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      "got=$(python3 -c \"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8000/').read().decode().strip())\")",
      '[ "$got" = 42 ] && [ -f /var/log/answer.log ] && ok=yes',
      REWARD,
    ].join("\n"),
    // Separate mode: only the artifact reaches a fresh copy of the environment.
    "separate/instruction.md": "Write 6 times 7 to /app/out.txt.\n",
    "separate/task.toml": 'artifacts = ["/app/out.txt"]\n' + TOML.replace(
      "[verifier]\n",
      '[verifier]\nenvironment_mode = "separate"\n',
    ),
    "separate/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "separate/solution/solve.sh":
      "#!/bin/sh\necho 42 > /app/out.txt\necho not-an-artifact > /app/scratch.txt\n",
    "separate/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && [ ! -e /app/scratch.txt ] && ok=yes',
      REWARD,
    ].join("\n"),
    // Separate mode in the verifier's own image, built from tests/ with the tests baked in.
    "separate-image/instruction.md": "Write 6 times 7 to /app/out.txt.\n",
    "separate-image/task.toml": 'artifacts = ["/app/out.txt"]\n' + TOML +
      "[verifier.environment]\nallow_internet = false\n",
    "separate-image/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "separate-image/solution/solve.sh": "#!/bin/sh\necho 42 > /app/out.txt\n",
    "separate-image/tests/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nCOPY . /tests/\n` +
      "RUN touch /verifier-image-marker\nWORKDIR /app\n",
    "separate-image/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && [ -e /verifier-image-marker ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 6. Programs built and run under /tmp (Go's `go test`, a checker compiled into
    // `tempfile.mkdtemp()`): the image's own /tmp is executable, as Harbor runs it.
    "tmp-exec/instruction.md": "Write 6 times 7 to /app/out.txt.\n",
    "tmp-exec/task.toml": TOML,
    "tmp-exec/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "tmp-exec/solution/solve.sh": "#!/bin/sh\nd=$(mktemp -d)\n" +
      "printf '#!/bin/sh\\necho 42\\n' > $d/say && chmod +x $d/say && $d/say > /app/out.txt\n",
    "tmp-exec/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      "d=$(mktemp -d)",
      "printf '#!/bin/sh\\ncat /app/out.txt\\n' > $d/check && chmod +x $d/check",
      '[ "$($d/check)" = 42 ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 7. Harbor's agent log directory is there, for the agent's user, before the agent runs.
    "agent-logs/instruction.md": "Log 42 to /logs/agent/answer.log and copy it to /app/out.txt.\n",
    "agent-logs/task.toml": TOML,
    "agent-logs/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "agent-logs/solution/solve.sh":
      "#!/bin/sh\necho 42 > /logs/agent/answer.log && cp /logs/agent/answer.log /app/out.txt\n",
    "agent-logs/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 8. `[agent] user` writes the working directory the image gave that user.
    "agent-user/instruction.md": "Write 6 times 7 to /app/out.txt.\n",
    "agent-user/task.toml": TOML.replace("[agent]\n", '[agent]\nuser = "agent"\n'),
    "agent-user/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\n` +
      "RUN echo 'agent:x:1000:1000::/app:/bin/sh' >> /etc/passwd && " +
      "echo 'agent:x:1000:' >> /etc/group && mkdir -p /app && chown agent:agent /app && " +
      "chmod 700 /app\n" +
      "WORKDIR /app\n",
    "agent-user/solution/solve.sh":
      '#!/bin/sh\n[ "$(id -un)" = agent ] && echo 42 > /app/out.txt\n',
    "agent-user/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && [ "$(stat -c %U /app/out.txt)" = agent ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 9. `[environment] workdir` replaces the image's WORKDIR for the agent and the tests.
    "env-workdir/instruction.md": "Write where you are to where.txt.\n",
    "env-workdir/task.toml": TOML.replace(
      "[environment]\n",
      '[environment]\nworkdir = "/srv/work"\n',
    ),
    "env-workdir/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "env-workdir/solution/solve.sh": "#!/bin/sh\npwd > where.txt\n",
    "env-workdir/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(pwd)" = /srv/work ] && [ "$(cat /srv/work/where.txt)" = /srv/work ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 10. `[environment.env]`: every process of the environment sees its variables.
    "env-vars/instruction.md": "Write $GREETING to /app/out.txt.\n",
    "env-vars/task.toml": TOML + '[environment.env]\nGREETING = "hello"\n',
    "env-vars/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "env-vars/solution/solve.sh": '#!/bin/sh\necho "$GREETING" > /app/out.txt\n',
    "env-vars/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$GREETING" = hello ] && [ "$(cat /app/out.txt)" = hello ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 11. `[environment.healthcheck]`: the agent starts once the check passes (the entrypoint
    // makes the environment ready 3 s after it starts, in the background).
    "healthcheck/instruction.md": "Write 42 to /app/out.txt once /tmp/ready exists.\n",
    "healthcheck/task.toml": TOML +
      '[environment.healthcheck]\ncommand = "test -f /tmp/ready"\nstart_period_sec = 30.0\n' +
      "start_interval_sec = 0.5\n",
    "healthcheck/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\n` +
      "RUN printf '#!/bin/sh\\n(sleep 3; touch /tmp/ready) &\\nexec \"$@\"\\n' > /entry.sh && " +
      'chmod +x /entry.sh\nENTRYPOINT ["/entry.sh"]\nWORKDIR /app\n',
    "healthcheck/solution/solve.sh": "#!/bin/sh\n[ -f /tmp/ready ] && echo 42 > /app/out.txt\n",
    "healthcheck/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 12. BuildKit's `COPY --chmod` (the legacy builder: "the --chmod option requires BuildKit").
    "buildkit/instruction.md": "Write what /usr/local/bin/say prints to /app/out.txt.\n",
    "buildkit/task.toml": TOML,
    "buildkit/environment/say.sh": "#!/bin/sh\necho 42\n",
    "buildkit/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\n` +
      "COPY --chmod=755 say.sh /usr/local/bin/say\nWORKDIR /app\n",
    "buildkit/solution/solve.sh": "#!/bin/sh\nsay > /app/out.txt\n",
    "buildkit/tests/test.sh": [
      "#!/bin/bash",
      "ok=no",
      '[ "$(cat /app/out.txt)" = 42 ] && ok=yes',
      REWARD,
    ].join("\n"),
    // 5. A reward of several keys, decided by the key the import names.
    "multi-key/instruction.md": "Create /app/dedupe.py.\n",
    "multi-key/task.toml": TOML,
    "multi-key/environment/Dockerfile": `FROM ${python}\n${BASH_STAND_IN}\nWORKDIR /app\n`,
    "multi-key/solution/solve.sh": "#!/bin/sh\necho 'pass' > /app/dedupe.py\n",
    "multi-key/tests/test.sh": [
      "#!/bin/bash",
      "c=0; [ -f /app/dedupe.py ] && c=1",
      'echo "{\\"correctness\\": $c, \\"performance\\": 0.7}" > /logs/verifier/reward.json',
      "",
    ].join("\n"),
  };
}

Deno.test({
  name: "Harbor tasks with RUN data, a verifier writing /app, an entrypoint, a service and a " +
    "multi-key reward pass suite check in shared mode",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const python = await buildPythonBase();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-harbor-env-" });
    try {
      await writeSuite(`${dir}/harbor`, tasks(python));
      const { checkDir } = await importCheckedHarborSuite(dir, {
        importArgs: ["--reward-key", "correctness"],
      });
      const manifest = JSON.parse(await Deno.readTextFile(`${dir}/suite/suite.json`));
      // Every task in Harbor's shared mode, but the two that ask for the separate one.
      deepEqual(
        manifest.tasks.filter((t: { verifier: { mode: string } }) => t.verifier.mode !== "shared")
          .map((t: { task_id: string; verifier: { mode: string } }) =>
            `${t.task_id} ${t.verifier.mode}`
          ),
        ["separate separate", "separate-image separate"],
      );
      // The service the oracle left listening was kept running for the tests, and recorded.
      const serviceRows = (await loadLedger(`${checkDir}/tasks/service/ledger.jsonl`)).rows;
      const oracle = serviceRows.find((row) => row.resolved === true)!;
      deepEqual(
        oracle.verification?.kept_processes?.map((p) => p.listening),
        [["tcp 127.0.0.1:8000"]],
      );

      // A candidate that plants a conftest.py beside its answer is flagged on its row.
      const freeze = await freezeCli(
        `${dir}/suite`,
        `${dir}/plan.json`,
        { planter: "ledgerbench/agent-solver:latest" },
      );
      equal(freeze.code, 0, freeze.stderr);
      const conftest = "import pytest\n@pytest.hookimpl(tryfirst=True)\n" +
        "def pytest_runtest_call(item):\n    pass\n";
      const run = await runCli(
        { plan: `${dir}/plan.json`, suite: `${dir}/suite`, ledger: `${dir}/ledger.jsonl` },
        {
          planter: {
            model: "scripted-model-1",
            rules: [{
              contains: "greet.py",
              reply: {
                content: "```file:greet.py\nprint('hello')\n```\n" +
                  `\`\`\`file:conftest.py\n${conftest}\`\`\`\n`,
              },
            }],
            default: { content: "" },
          },
        },
      );
      equal(run.code, 0, run.stderr);
      const { rows } = await loadLedger(`${dir}/ledger.jsonl`);
      const planted = rows.find((row) => row.task_id === "writes-app")!;
      equal(planted.resolved, true, planted.notes ?? "");
      deepEqual(planted.verification?.mode, "shared");
      deepEqual(planted.verification?.hijacks, [{ flag: "conftest", path: "/app/conftest.py" }]);
      for (const row of rows.filter((r) => r.task_id !== "writes-app")) {
        deepEqual(row.verification?.hijacks ?? [], [], `${row.task_id}: ${row.notes}`);
      }
      deepEqual(
        rows.find((row) => row.task_id === "separate")?.verification?.mode,
        "separate",
      );
    } finally {
      await removeTree(dir);
    }
  },
});
