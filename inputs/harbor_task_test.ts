import { deepEqual, equal, rejects } from "node:assert/strict";
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { harborTaskDirs, readHarborTask } from "./harbor_task.ts";

const FIXTURES = new URL("../tests/fixtures/harbor_tasks", import.meta.url).pathname;

/** Writes files (path relative to `dir` -> text) and returns `dir`. */
async function write(dir: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

/** The one line the CLI would print for what `run` throws. */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    equal(error.problems.length, 1);
    return formatProblem(error.problems[0]);
  }
  throw new Error("not refused");
}

/** A minimal valid task with `files` added or replaced. */
const TASK: Record<string, string> = {
  "instruction.md": "Do it.\n",
  "task.toml": "[environment]\nallow_internet = false\n",
  "environment/Dockerfile": "FROM base\nWORKDIR /app\n",
  "tests/test.sh": "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n",
  "solution/solve.sh": "#!/bin/sh\n",
};

Deno.test("readHarborTask() maps the fixture fix-csv-parser field by field", async () => {
  const dir = `${FIXTURES}/fix-csv-parser`;
  const task = await readHarborTask(dir);
  deepEqual(task.entry, {
    task_id: "fix-csv-parser",
    lane: "default",
    // [agent] timeout_sec = 900.0 -> 900 000 ms
    limits: { token_cap: null, step_cap: null, wall_ms_cap: 900000 },
    environment: { dockerfile: "environment/Dockerfile" },
    verifier: {
      entry: "test.sh",
      mount: "/tests",
      // no environment_mode, no [verifier.environment]: Harbor's default
      mode: "shared",
      verdict: "reward",
      pass_threshold: 1,
      reward_key: "reward",
      reward_rule: "key",
      wall_ms: 120000,
      env: { PYTHONDONTWRITEBYTECODE: "1" },
      // allow_internet = false: the verifier's phase has no network either, and no host
    },
    resources: { cpus: 1, memory_mb: 2048, storage_mb: 10240 },
    source: {
      format: "harbor",
      dir,
      // sha256sum tests/fixtures/harbor_tasks/fix-csv-parser/task.toml
      task_toml_sha256: "3f6fd1a4b260d39cf71aa774bddf8e8e9405397d9683c27a5dfc7d9488f7d69a",
    },
  });
  deepEqual(task.files.map((f) => [f.from.slice(dir.length + 1), f.to, f.mode]), [
    ["instruction.md", "workspace/TASK.md", undefined],
    ["tests/test.sh", "verifier/test.sh", 0o755],
    ["tests/test_csvread.py", "verifier/test_csvread.py", undefined],
    ["solution/solve.sh", "solution/solve.sh", 0o755],
    ["environment/Dockerfile", "environment/Dockerfile", undefined],
    // COPY src/ /app/src/ lands in the workspace from the built image's /app, when it runs
    ["environment/src/csvread.py", "environment/src/csvread.py", undefined],
  ]);
  deepEqual(task.warnings, [
    "[environment] build_timeout_sec = 600 not applied (freeze builds without a time limit, as Harbor's Docker environment does)",
  ]);
});

Deno.test("readHarborTask() gives a task that asks for the internet its agent network, unless waived", async () => {
  const dir = `${FIXTURES}/fetch-release-notes`;
  const online = await readHarborTask(dir);
  deepEqual(online.entry.agent_network, { mode: "public" });
  equal(online.entry.internet_waived, undefined);
  const task = await readHarborTask(dir, { withoutInternet: true, passThreshold: 0.5 });
  equal(task.entry.agent_network, undefined);
  equal(task.entry.internet_waived, true);
  equal(task.entry.verifier?.pass_threshold, 0.5);
  // COPY notes.txt ./ after WORKDIR /app; the RUN comes before the WORKDIR
  deepEqual(task.files.filter((f) => f.to.startsWith("workspace/")).map((f) => f.to), [
    "workspace/TASK.md",
  ]);
  deepEqual(task.warnings, [
    "no solution/solve.sh: no oracle: suite check cannot prove this task",
    "asks for the internet: imported without it (internet_waived)",
    "the verifier asks for the internet ([environment] allow_internet = true): it may reach " +
    "only the hosts given with --verifier-allow-host: none",
  ]);
});

Deno.test("readHarborTask() takes Harbor's defaults: internet on, verifier 600 s; an allowlist's hosts", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, { ...TASK, "task.toml": "" });
  deepEqual((await readHarborTask(dir)).entry.agent_network, { mode: "public" });
  // Harbor's allowlist: the agent phase's own hosts, lower-cased, each once, sorted.
  const listed = await write(`${tmp.path}/t2`, {
    ...TASK,
    "task.toml": '[agent]\nnetwork_mode = "allowlist"\n' +
      'allowed_hosts = ["PyPI.org", "files.pythonhosted.org", "pypi.org"]\n',
  });
  deepEqual((await readHarborTask(listed)).entry.agent_network, {
    mode: "allowlist",
    allow_hosts: ["files.pythonhosted.org", "pypi.org"],
  });
  const empty = await write(`${tmp.path}/t3`, {
    ...TASK,
    "task.toml": '[environment]\nnetwork_mode = "allowlist"\n',
  });
  equal(
    await refusal(() => readHarborTask(empty)),
    `${empty}/task.toml:2: field "environment.allowed_hosts": network_mode = "allowlist" with ` +
      'no allowed_hosts: write the hosts, or "no-network"',
  );
  const task = await readHarborTask(dir, { withoutInternet: true });
  // VerifierConfig.timeout_sec = 600.0
  equal(task.entry.verifier?.wall_ms, 600000);
  equal(task.entry.limits.wall_ms_cap, null);
  equal(task.entry.resources, undefined);
});

Deno.test("readHarborTask() takes the prebuilt docker_image, as Harbor, unless forceBuild", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, {
    ...TASK,
    "task.toml": '[environment]\ndocker_image = "ghcr.io/x/y:1"\nallow_internet = false\n',
  });
  const task = await readHarborTask(dir);
  deepEqual(task.entry.environment, { image: "ghcr.io/x/y:1" });
  deepEqual(task.warnings, []);
  equal(task.files.some((f) => f.to.startsWith("environment/")), false);
  const forced = await readHarborTask(dir, { forceBuild: true });
  deepEqual(forced.entry.environment, { dockerfile: "environment/Dockerfile" });
  deepEqual(forced.warnings, []);
  // --force-build with nothing to build: Harbor fails too.
  const imageOnly = await write(`${tmp.path}/t2`, {
    "instruction.md": TASK["instruction.md"],
    "tests/test.sh": TASK["tests/test.sh"],
    "task.toml": '[environment]\nallow_internet = false\ndocker_image = "ghcr.io/x/y:1"\n',
  });
  await rejects(
    readHarborTask(imageOnly, { forceBuild: true }),
    (error: LedgerError) => {
      equal(
        error.message,
        `Cannot read ${imageOnly}/task.toml:3: field "environment.docker_image": --force-build, but there ` +
          'is no environment/Dockerfile to build (only the image "ghcr.io/x/y:1")',
      );
      return true;
    },
  );
});

Deno.test("readHarborTask() warns about a key outside Harbor's schema, naming file and line", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, {
    ...TASK,
    "task.toml": "[environment]\nallow_internet = false\ncpu_count = 2\n\n[extras]\na = 1\n",
  });
  deepEqual((await readHarborTask(dir)).warnings, [
    `${dir}/task.toml:5: unknown key "extras" (not in Harbor's task.toml schema): ignored`,
    `${dir}/task.toml:3: unknown key "environment.cpu_count" (not in Harbor's task.toml schema): ignored`,
  ]);
});

Deno.test("readHarborTask() refuses bad fields, TOML, ids and layouts with one line each", async () => {
  await using tmp = await tempDir();
  const cases: [string, Record<string, string>, string][] = [
    [
      "t-toml",
      { "task.toml": "[verifier]\ntimeout_sec = = 3\n" },
      "task.toml:2: invalid TOML at column 15: ",
    ],
    [
      "t-type",
      { "task.toml": '[environment]\nallow_internet = false\n[verifier]\ntimeout_sec = "long"\n' },
      'task.toml:4: field "verifier.timeout_sec": expected number, received string',
    ],
    [
      "t-memory",
      { "task.toml": "[environment]\nallow_internet = false\nmemory_mb = 16\n" },
      'task.toml:3: field "environment.memory_mb": Too small: expected number to be >=64',
    ],
    [
      "t-compose",
      {
        "environment/docker-compose.yaml":
          "services:\n  db:\n    image: x\n    network_mode: host\n",
      },
      'environment/docker-compose.yaml:4: field "services.db.network_mode": service "db": ' +
      '"network_mode" is not supported',
    ],
    [
      "Bad_Id",
      {},
      'Bad_Id: field "task_id": "Bad_Id" (the directory\'s name) must be lower-case letters',
    ],
  ];
  for (const [name, files, expected] of cases) {
    const dir = await write(`${tmp.path}/${name}`, { ...TASK, ...files });
    const line = await refusal(() => readHarborTask(dir));
    equal(
      line.startsWith(`${dir}/${expected}`) || line.startsWith(`${tmp.path}/${expected}`),
      true,
      line,
    );
  }
  const noTests = await write(`${tmp.path}/t-no-tests`, { ...TASK });
  await Deno.remove(`${noTests}/tests`, { recursive: true });
  equal(
    await refusal(() => readHarborTask(noTests)),
    `${noTests}/tests/test.sh: missing: a Harbor task's verifier is tests/test.sh`,
  );
});

Deno.test("harborTaskDirs() lists a dataset's tasks sorted, or the task itself", async () => {
  deepEqual(await harborTaskDirs(FIXTURES), [
    `${FIXTURES}/fetch-release-notes`,
    `${FIXTURES}/fix-csv-parser`,
    `${FIXTURES}/hello-image`,
  ]);
  deepEqual(await harborTaskDirs(`${FIXTURES}/hello-image`), [`${FIXTURES}/hello-image`]);
  await using tmp = await tempDir();
  await rejects(
    harborTaskDirs(tmp.path),
    /not a Harbor task directory \(no task.toml\), nor holds one/,
  );
});

const COOKBOOK = `${FIXTURES}/cookbook`;

/** The warnings every cookbook recipe's task.toml gives (same [environment] table, no allow_internet). */
const COOKBOOK_WARNINGS = [
  "asks for the internet: imported without it (internet_waived)",
  "[environment] build_timeout_sec = 600 not applied (freeze builds without a time limit, as Harbor's Docker environment does)",
];

/** What the cookbook's verifiers are told: Harbor's default internet, none of it granted. */
const NO_HOST_WARNING = "the verifier asks for the internet ([environment] allow_internet is " +
  "absent, and Harbor's default is true): it may reach only the hosts given with " +
  "--verifier-allow-host: none";

/** A cookbook recipe's manifest entry: the shared [verifier]/[agent]/[environment] tables. */
function cookbookEntry(name: string, agentMs: number, sha: string, verifier = {}) {
  return {
    task_id: name,
    lane: "default",
    // [agent] timeout_sec
    limits: { token_cap: null, step_cap: null, wall_ms_cap: agentMs },
    environment: { dockerfile: "environment/Dockerfile" },
    verifier: {
      entry: "test.sh",
      mount: "/tests",
      mode: "shared",
      verdict: "reward",
      pass_threshold: 1,
      reward_key: "reward",
      reward_rule: "key",
      // [verifier] timeout_sec = 120.0
      wall_ms: 120000,
      ...verifier,
    },
    // cpus = 1, memory_mb = 2048
    resources: { cpus: 1, memory_mb: 2048, storage_mb: 10240 },
    internet_waived: true,
    source: { format: "harbor", dir: `${COOKBOOK}/${name}`, task_toml_sha256: sha },
  };
}

// sha256sum tests/fixtures/harbor_tasks/cookbook/{simple-task,multi-reward,dns-blacklisting}/task.toml
// (one text for the three)
const SHARED_TOML_SHA = "3bdb26ab721025347b8b07521131313b533fbdaa42c656d58cd30596970348a8";

Deno.test("readHarborTask() imports the cookbook's simple-task and dns-blacklisting, verifier shared", async () => {
  for (const name of ["simple-task", "dns-blacklisting"]) {
    const task = await readHarborTask(`${COOKBOOK}/${name}`, { withoutInternet: true });
    deepEqual(task.entry, cookbookEntry(name, 120000, SHARED_TOML_SHA));
    deepEqual(task.warnings, [...COOKBOOK_WARNINGS, NO_HOST_WARNING]);
  }
  // dns-blacklisting: the build context (its entrypoint and block server) is copied, no
  // COPY goes into /app
  const dns = await readHarborTask(`${COOKBOOK}/dns-blacklisting`, { withoutInternet: true });
  deepEqual(dns.files.map((f) => f.to), [
    "workspace/TASK.md",
    "verifier/test.sh",
    "verifier/test_dns.py",
    "solution/solve.sh",
    "environment/Dockerfile",
    "environment/blacklist-patterns.txt",
    "environment/block-server.py",
    "environment/candidate-domains.txt",
    "environment/entrypoint.sh",
  ]);
});

Deno.test("readHarborTask() imports the cookbook's multi-reward under each reward rule", async () => {
  const dir = `${COOKBOOK}/multi-reward`;
  // test.sh writes {"correctness": ..., "performance": ...}: no "reward" key
  const plain = await readHarborTask(dir, { withoutInternet: true });
  deepEqual(plain.entry, cookbookEntry("multi-reward", 120000, SHARED_TOML_SHA));
  deepEqual(plain.warnings, [
    ...COOKBOOK_WARNINGS,
    NO_HOST_WARNING,
    'tests/test.sh mentions reward.json: the verdict is its key "reward" (a file without it ' +
    "is a verifier fault); choose with --reward-key KEY or --reward-rule min|mean",
  ]);
  const min = await readHarborTask(dir, { withoutInternet: true, rewardRule: "min" });
  deepEqual(
    min.entry,
    cookbookEntry("multi-reward", 120000, SHARED_TOML_SHA, { reward_rule: "min" }),
  );
  deepEqual(min.warnings, [...COOKBOOK_WARNINGS, NO_HOST_WARNING]);
  const key = await readHarborTask(dir, {
    withoutInternet: true,
    rewardKey: "correctness",
    passThreshold: 0.5,
    verifierAllowHosts: ["pypi.org", "astral.sh"],
  });
  deepEqual(key.entry.verifier, {
    ...cookbookEntry("multi-reward", 120000, SHARED_TOML_SHA).verifier,
    pass_threshold: 0.5,
    reward_key: "correctness",
    // the operator's hosts, sorted
    allow_hosts: ["astral.sh", "pypi.org"],
  });
  deepEqual(key.warnings.slice(2), [
    "the verifier asks for the internet ([environment] allow_internet is absent, and Harbor's " +
    "default is true): it may reach only the hosts given with --verifier-allow-host: " +
    "astral.sh, pypi.org",
    'tests/test.sh mentions reward.json: the verdict is its key "correctness" (a file without ' +
    "it is a verifier fault); choose with --reward-key KEY or --reward-rule min|mean",
  ]);
});

Deno.test("readHarborTask() imports the cookbook's skills, warning that skills_dir is not applied", async () => {
  const task = await readHarborTask(`${COOKBOOK}/skills`, { withoutInternet: true });
  deepEqual(
    task.entry,
    // [agent] timeout_sec = 600.0; sha256sum tests/fixtures/harbor_tasks/cookbook/skills/task.toml
    cookbookEntry(
      "skills",
      600000,
      "2b40d9955731a8259daa384e1cfa6e51d522ff01053bbc6a77d607ec98acca72",
    ),
  );
  deepEqual(task.warnings, [
    ...COOKBOOK_WARNINGS,
    '[environment] skills_dir = "/skills" not applied (the agent is not given the skills ' +
    "there; they stay in the image)",
    NO_HOST_WARNING,
  ]);
  // COPY skills/ /skills/ is outside the workdir: only in the build context
  equal(task.files.some((f) => f.to === "environment/skills/generate-greeting/SKILL.md"), true);
  equal(task.files.some((f) => f.to.startsWith("workspace/skills")), false);
});

Deno.test("readHarborTask() maps Harbor's hello-multi-step-simple: each step's instruction, tests and oracle", async () => {
  const dir = `${FIXTURES}/harbor-examples/hello-multi-step-simple`;
  const task = await readHarborTask(dir, { withoutInternet: true });
  // [steps.agent] timeout_sec = 30.0 each: 30 000 ms a step, 60 000 the episode.
  deepEqual(task.entry.limits.wall_ms_cap, 60000);
  deepEqual(task.entry.steps, [
    { name: "create-file", wall_ms_cap: 30000, verifier_wall_ms: 30000 },
    { name: "append-content", wall_ms_cap: 30000, verifier_wall_ms: 30000 },
  ]);
  equal(task.entry.step_reward, undefined);
  deepEqual(
    task.files.map((file) => `${file.from.slice(dir.length + 1)} -> ${file.to}`).sort(),
    [
      "environment/Dockerfile -> environment/Dockerfile",
      "steps/append-content/instruction.md -> steps/append-content/TASK.md",
      "steps/append-content/solution/solve.sh -> solution/append-content/solve.sh",
      "steps/append-content/tests/test.sh -> verifier/append-content/test.sh",
      "steps/create-file/instruction.md -> steps/create-file/TASK.md",
      "steps/create-file/instruction.md -> workspace/TASK.md",
      "steps/create-file/solution/solve.sh -> solution/create-file/solve.sh",
      "steps/create-file/tests/test.sh -> verifier/create-file/test.sh",
    ],
  );
});

Deno.test("readHarborTask() merges the task's tests under each step's, takes the strategy, warns of step keys", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t-steps`, {
    ...TASK,
    "task.toml": [
      'multi_step_reward_strategy = "final"',
      "[environment]",
      "allow_internet = false",
      "[agent]",
      "timeout_sec = 10",
      "[[steps]]",
      'name = "one"',
      "min_reward = 1.0",
      'artifacts = ["/app/x"]',
      "[steps.verifier]",
      'env = { K = "v" }',
      "[[steps]]",
      'name = "two"',
      "[steps.agent]",
      "timeout_sec = 5",
      'user = "agent"',
      "",
    ].join("\n"),
    "tests/helpers.sh": "shared\n",
    "steps/one/instruction.md": "One.\n",
    "steps/one/tests/helpers.sh": "the step's own\n",
    "steps/two/instruction.md": "Two.\n",
    "steps/two/tests/check.py": "\n",
  });
  const task = await readHarborTask(dir);
  deepEqual(task.entry.steps, [
    { name: "one", wall_ms_cap: 10000, verifier_env: { K: "v" }, min_reward: 1 },
    { name: "two", wall_ms_cap: 5000 },
  ]);
  equal(task.entry.step_reward, "final");
  equal(task.entry.limits.wall_ms_cap, 15000);
  const from = (to: string) => task.files.find((file) => file.to === to)?.from.slice(dir.length);
  // Harbor uploads tests/ then the step's tests/ to /tests: the step's file wins.
  equal(from("verifier/one/helpers.sh"), "/steps/one/tests/helpers.sh");
  equal(from("verifier/one/test.sh"), "/tests/test.sh");
  equal(from("verifier/two/helpers.sh"), "/tests/helpers.sh");
  equal(from("verifier/two/check.py"), "/steps/two/tests/check.py");
  deepEqual(task.warnings, [
    'step "one" has no solution/solve.sh: suite check cannot prove it',
    '[[steps]] "one": artifacts not applied',
    'step "two" has no solution/solve.sh: suite check cannot prove it',
    '[[steps]] "two": [agent] user not applied',
  ]);
});

Deno.test("readHarborTask() refuses what a multi-step task cannot be, on its line", async () => {
  await using tmp = await tempDir();
  const task = async (name: string, toml: string, files: Record<string, string> = {}) =>
    await write(`${tmp.path}/${name}`, {
      ...TASK,
      "task.toml": `[environment]\nallow_internet = false\n${toml}`,
      "steps/a/instruction.md": "A.\n",
      ...files,
    });
  const orphan = await task("orphan", "");
  equal(
    await refusal(() => readHarborTask(orphan)),
    `${orphan}/steps: a steps/ directory, but task.toml has no [[steps]]`,
  );
  // A separate verifier's own image (tests/Dockerfile): a step's own tests/ would need one each.
  const perStepImage = await task(
    "per-step-image",
    '[verifier]\nenvironment_mode = "separate"\n[[steps]]\nname = "a"\n',
    { "tests/Dockerfile": "FROM base\n", "steps/a/tests/test.sh": "#!/bin/sh\n" },
  );
  equal(
    await refusal(() => readHarborTask(perStepImage)),
    `${perStepImage}/steps/a/tests: a step's own tests/ with a separate verifier (an image per ` +
      "step) is not supported: the steps share the task's verifier",
  );
  const named = await task("named", '[[steps]]\nname = "../a"\n');
  equal(
    await refusal(() => readHarborTask(named)),
    `${named}/task.toml:3: field "steps[0].name": step "../a" must be a directory name ` +
      "(letters, digits, '.', '_', '-')",
  );
  const twice = await task("twice", '[[steps]]\nname = "a"\n[[steps]]\nname = "a"\n');
  equal(
    await refusal(() => readHarborTask(twice)),
    `${twice}/task.toml:3: field "steps[1].name": step "a" repeats`,
  );
  // In shared mode a tests/Dockerfile is only a file: the step's own tests/ are its tests.
  const stepSeparate = await task(
    "step-separate",
    '[[steps]]\nname = "a"\n[steps.verifier]\nenvironment_mode = "separate"\n',
    { "tests/Dockerfile": "FROM base\n", "steps/a/tests/test.sh": "#!/bin/sh\n" },
  );
  equal(
    await refusal(() => readHarborTask(stepSeparate)),
    `${stepSeparate}/task.toml:5: field "steps[0].verifier": step "a" sets its own verifier ` +
      "environment, which is not supported: every step is verified in the task's shared mode " +
      "here",
  );
  const windows = await task("windows", '[[steps]]\nname = "a"\n', {
    "steps/a/tests/test.bat": "@echo off\r\n",
  });
  await Deno.remove(`${windows}/tests`, { recursive: true });
  equal(
    await refusal(() => readHarborTask(windows)),
    `${windows}/steps/a/tests/test.bat: a Windows task (test.bat in place of test.sh) is not ` +
      "supported: episodes run in Linux containers",
  );
  const untested = await task("untested", '[[steps]]\nname = "a"\n');
  await Deno.remove(`${untested}/tests`, { recursive: true });
  equal(
    await refusal(() => readHarborTask(untested)),
    `${untested}/steps/a/tests/test.sh: missing, and the task has no tests/test.sh`,
  );
});

Deno.test("readHarborTask() imports the cookbook's multi-step: workdir/, verifier variables, healthcheck", async () => {
  const dir = `${COOKBOOK}/multi-step`;
  const task = await readHarborTask(dir, { withoutInternet: true });
  deepEqual(task.entry.steps, [
    { name: "scaffold", wall_ms_cap: 60000, verifier_wall_ms: 30000, min_reward: 1 },
    {
      name: "implement",
      wall_ms_cap: 90000,
      verifier_wall_ms: 30000,
      verifier_env: { EXPECTED_NAME: "Harbor", EXPECTED_GREETING: "Hello, Harbor!" },
      min_reward: 0.5,
      // interval 1 s, timeout 5 s, retries 3; Harbor's start period 0 and start interval 5 s
      healthcheck: {
        command: "test -x /app/greet.sh",
        interval_ms: 1000,
        timeout_ms: 5000,
        start_period_ms: 0,
        start_interval_ms: 5000,
        retries: 3,
      },
    },
    { name: "document", wall_ms_cap: 60000, verifier_wall_ms: 30000 },
  ]);
  equal(task.entry.limits.wall_ms_cap, 210000);
  const workdir = task.files.filter((file) => file.to.startsWith("steps/implement/workdir/"));
  deepEqual(workdir.map((file) => file.to).sort(), [
    "steps/implement/workdir/config.txt",
    "steps/implement/workdir/setup.sh",
  ]);
  deepEqual(task.warnings.filter((w) => w.startsWith("[[steps]]")), [
    '[[steps]] "document": artifacts not applied',
  ]);
});

Deno.test("readHarborTask() imports the cookbook's multi-container: its api-server a sidecar main waits for", async () => {
  const task = await readHarborTask(`${COOKBOOK}/multi-container`, { withoutInternet: true });
  deepEqual(task.entry.services, [{
    name: "api-server",
    environment: { dockerfile: "environment/api-server/Dockerfile" },
    // ["CMD", ...] quoted for /bin/sh -c; 2s, 5s, 15, 5s; Docker's start interval 5 s
    healthcheck: {
      command: "python3 -c 'import socket; s=socket.create_connection(('\\''localhost'\\''," +
        "5000),timeout=2); s.close()'",
      interval_ms: 2000,
      timeout_ms: 5000,
      start_period_ms: 5000,
      start_interval_ms: 5000,
      retries: 15,
    },
  }]);
  deepEqual(task.entry.environment_depends_on, { "api-server": "healthy" });
  equal(task.entry.environment_volumes, undefined);
});

Deno.test("readHarborTask() maps Harbor's sidecar-artifacts: the sidecar's files and collect hook for a separate verifier", async () => {
  const task = await readHarborTask(`${FIXTURES}/harbor-examples/sidecar-artifacts`, {
    withoutInternet: true,
  });
  deepEqual(task.entry.services?.map((service) => service.name), ["api"]);
  deepEqual(task.entry.verifier?.service_artifacts, [
    { service: "api", path: "/var/log/api/orders.log" },
    { service: "api", path: "/tmp/stats.json" },
  ]);
  deepEqual(task.entry.verifier?.collect, [{
    service: "api",
    command: "curl -s http://localhost:8000/stats > /tmp/stats.json",
    timeout_ms: 30000,
  }]);
  deepEqual(task.entry.verifier?.environment, { dockerfile: "verifier/Dockerfile" });
});

Deno.test("readHarborTask() takes Compose's main-only form as the Dockerfile, and refuses sidecars with a verifier in a fresh copy", async () => {
  await using tmp = await tempDir();
  // Harbor's airgapped form: only the main service, built from the Dockerfile beside it
  const mainOnly = await write(`${tmp.path}/t-compose-main`, {
    ...TASK,
    "environment/docker-compose.yaml": 'services:\n  main:\n    network_mode: "none"\n',
  });
  const imported = await readHarborTask(mainOnly);
  deepEqual(imported.entry.environment, { dockerfile: "environment/Dockerfile" });
  equal(imported.entry.services, undefined);
  deepEqual(imported.warnings.filter((w) => w.startsWith("environment/docker-compose.yaml")), [
    'environment/docker-compose.yaml: the main service\'s "network_mode" is not applied (Harbor ' +
    "sets main's own)",
    "environment/docker-compose.yaml declares only the main service: the task's environment is " +
    "one container, its Dockerfile or image",
  ]);
  const sidecarSeparate = await write(`${tmp.path}/t-sidecar-separate`, {
    ...TASK,
    "task.toml":
      '[environment]\nallow_internet = false\n[verifier]\nenvironment_mode = "separate"\n',
    "environment/docker-compose.yaml": "services:\n  db:\n    image: postgres\n",
  });
  equal(
    await refusal(() => readHarborTask(sidecarSeparate)),
    `${sidecarSeparate}/task.toml:3: field "verifier.environment_mode": sidecar services ` +
      "(environment/docker-compose.yaml: db) with a separate verifier in a fresh copy of the " +
      "task's environment are not supported: give the verifier its own environment " +
      "(tests/Dockerfile)",
  );
  // a separate verifier's tests/docker-compose.yaml is refused; in shared mode it is only a file
  const separate = await write(`${tmp.path}/t-tests-compose`, {
    ...TASK,
    "task.toml":
      '[environment]\nallow_internet = false\n[verifier]\nenvironment_mode = "separate"\n',
    "tests/docker-compose.yaml": "services:\n  main: {}\n  grader: {}\n",
  });
  equal(
    await refusal(() => readHarborTask(separate)),
    `${separate}/tests/docker-compose.yaml: a separate verifier's Compose environment is not ` +
      "supported (it declares the services main, grader; sidecars run only in Harbor's shared " +
      "mode here): give the separate verifier a tests/Dockerfile",
  );
  const shared = await write(`${tmp.path}/t-tests-compose-shared`, {
    ...TASK,
    "tests/docker-compose.yaml": "services:\n  main: {}\n",
  });
  equal((await readHarborTask(shared)).entry.verifier?.mode, "shared");
});

Deno.test("readHarborTask() warns about each key it does not apply, and is silent on metadata", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, {
    ...TASK,
    "task.toml": [
      'schema_version = "1.1"',
      'multi_step_reward_strategy = "mean"',
      'artifacts = ["/app/log.txt"]',
      "[task]",
      'name = "x/t1"',
      "[metadata]",
      'difficulty = "easy"',
      "[source]",
      'url = "https://example.com"',
      "[solution.env]",
      'TOKEN = "x"',
      "[environment]",
      "allow_internet = false",
      "gpus = 1",
      'gpu_types = ["a100"]',
      'memory = "4G"',
      'storage = "20G"',
      'workdir = "/app"',
      "[environment.env]",
      'SECRET = "do-not-print"',
      'MODE = "x"',
      "[environment.healthcheck]",
      'command = "true"',
      "[[environment.mcp_servers]]",
      'name = "files"',
      "",
    ].join("\n"),
  });
  deepEqual((await readHarborTask(dir)).warnings, [
    'multi_step_reward_strategy = "mean" not applied (a multi-step setting, and the task has no ' +
    "steps)",
    "[solution] env (TOKEN) not applied (suite check runs solve.sh without it)",
    "[environment] gpus = 1 not applied (episodes have no GPU)",
    '[environment] gpu_types = ["a100"] not applied (episodes have no GPU)',
    "[environment] mcp_servers (files) not applied (the agent is not configured with them; a " +
    "sidecar serving one runs all the same)",
    '[environment] memory = "4G" not applied (Harbor\'s older spelling: write memory_mb)',
    '[environment] storage = "20G" not applied (Harbor\'s older spelling: write storage_mb)',
    'artifacts = ["/app/log.txt"] not applied (only a separate verifier receives them; a ' +
    "shared one sees the candidate's container as it is)",
  ]);
  // [environment] workdir, env and healthcheck are applied (the healthcheck with Harbor's defaults,
  // in ms: interval 5 s, timeout 30 s, start period 0 s, start interval 5 s, 3 retries)
  const applied = (await readHarborTask(dir)).entry;
  deepEqual([applied.workdir, applied.environment_env, applied.environment_healthcheck], [
    "/app",
    { SECRET: "do-not-print", MODE: "x" },
    {
      command: "true",
      interval_ms: 5000,
      timeout_ms: 30000,
      start_period_ms: 0,
      start_interval_ms: 5000,
      retries: 3,
    },
  ]);
  // what asks for nothing says nothing
  const quiet = await write(`${tmp.path}/t2`, {
    ...TASK,
    "task.toml": "[environment]\nallow_internet = false\ngpus = 0\nmcp_servers = []\n" +
      "[environment.env]\n",
  });
  deepEqual((await readHarborTask(quiet)).warnings, []);
});
