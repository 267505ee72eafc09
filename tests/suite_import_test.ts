/**
 * `ledgerbench suite import harbor` end to end: the real CLI on the Harbor
 * fixtures (`tests/fixtures/harbor_tasks/`), and its one-line answer to
 * each bad input.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { PACKAGE_INDEX_HOSTS } from "../runner/egress/agent_egress.ts";
import { loadSuite } from "../inputs/suite.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { type BadInputCase, badInputTests } from "./_bad_input_table.ts";
import { cliInProcess, ROOT } from "./_cli_run.ts";

const FIXTURES = "tests/fixtures/harbor_tasks";

Deno.test("suite import harbor: a dataset directory becomes a suite that loads, with its hash", async () => {
  await using tmp = await tempDir();
  const out = `${tmp.path}/tb`;
  // --width 400: the warnings pinned whole, unfolded
  const run = await cliInProcess(
    "suite",
    "import",
    "harbor",
    FIXTURES,
    "--out",
    out,
    "--without-internet",
    "--width",
    "400",
  );
  equal(run.code, 0, run.stderr);
  const suite = await loadSuite(out);
  equal(
    run.stdout,
    `Imported 3 tasks (harbor) into ${out} (suite "tb")\n` +
      "  fetch-release-notes  environment/Dockerfile  verifier shared  " +
      "internet waived  4 files\n" +
      "  fix-csv-parser  environment/Dockerfile  verifier shared  6 files\n" +
      "  hello-image  image ledgerbench-demo-agent:latest  verifier shared  " +
      "3 files\n" +
      `suite sha256: ${suite.sha256}\n`,
  );
  equal(
    run.stderr,
    `warning: ${FIXTURES}/fetch-release-notes: no solution/solve.sh: no oracle: suite check ` +
      "cannot prove this task\n" +
      `warning: ${FIXTURES}/fetch-release-notes: asks for the internet: imported without it ` +
      "(internet_waived)\n" +
      `warning: ${FIXTURES}/fetch-release-notes: the verifier asks for the internet ` +
      "([environment] allow_internet = true): it may reach only the hosts given with " +
      "--verifier-allow-host: none\n" +
      `warning: ${FIXTURES}/fix-csv-parser: [environment] build_timeout_sec = 600 not applied ` +
      "(freeze builds without a time limit, as Harbor's Docker environment does)\n",
  );
  deepEqual(suite.manifest.tasks.map((t) => [t.task_id, t.internet_waived, t.source?.dir]), [
    ["fetch-release-notes", true, `${FIXTURES}/fetch-release-notes`],
    ["fix-csv-parser", undefined, `${FIXTURES}/fix-csv-parser`],
    ["hello-image", undefined, `${FIXTURES}/hello-image`],
  ]);
});

Deno.test("suite import harbor --json: one task, its id, suite hash and warnings", async () => {
  await using tmp = await tempDir();
  const out = `${tmp.path}/one`;
  const run = await cliInProcess(
    "suite",
    "import",
    "harbor",
    `${FIXTURES}/fix-csv-parser`,
    "--out",
    out,
    "--suite-id",
    "csv",
    "--pass-threshold",
    "0.5",
    "--json",
  );
  equal(run.code, 0, run.stderr);
  const payload = JSON.parse(run.stdout);
  const suite = await loadSuite(out);
  deepEqual(payload, {
    command: "suite import",
    format: "harbor",
    out,
    suite_id: "csv",
    suite_sha256: suite.sha256,
    skipped: [],
    tasks: [{
      task_id: "fix-csv-parser",
      source: `${FIXTURES}/fix-csv-parser`,
      environment: "environment/Dockerfile",
      verifier: "shared",
      internet_waived: false,
      agent_network: "none",
      steps: 1,
      services: [],
      files: 6,
      warnings: [
        "[environment] build_timeout_sec = 600 not applied (freeze builds without a time limit, as Harbor's Docker environment does)",
      ],
    }],
  });
  equal(suite.manifest.tasks[0].verifier?.pass_threshold, 0.5);
});

const COOKBOOK = `${FIXTURES}/cookbook`;

Deno.test("suite import harbor: the cookbook's recipes with reward and verifier-host options", async () => {
  await using tmp = await tempDir();
  const out = `${tmp.path}/cookbook`;
  const run = await cliInProcess(
    "suite",
    "import",
    "harbor",
    `${COOKBOOK}/simple-task`,
    `${COOKBOOK}/multi-reward`,
    `${COOKBOOK}/dns-blacklisting`,
    `${COOKBOOK}/skills`,
    "--out",
    out,
    "--without-internet",
    "--reward-rule",
    "min",
    "--reward-key",
    "correctness",
    "--verifier-allow-host",
    "PyPI.org",
    "--verifier-allow-host",
    "*.pythonhosted.org",
    // the warnings pinned whole, unfolded
    "--width",
    "400",
  );
  equal(run.code, 0, run.stderr);
  const suite = await loadSuite(out);
  equal(
    run.stdout,
    `Imported 4 tasks (harbor) into ${out} (suite "cookbook")\n` +
      "  simple-task  environment/Dockerfile  verifier shared  internet waived  " +
      "5 files\n" +
      "  multi-reward  environment/Dockerfile  verifier shared  internet waived  " +
      "6 files\n" +
      "  dns-blacklisting  environment/Dockerfile  verifier shared  " +
      "internet waived  9 files\n" +
      "  skills  environment/Dockerfile  verifier shared  internet waived  6 files\n" +
      `suite sha256: ${suite.sha256}\n`,
  );
  const common = (name: string) => [
    `warning: ${COOKBOOK}/${name}: asks for the internet: imported without it (internet_waived)`,
    `warning: ${COOKBOOK}/${name}: [environment] build_timeout_sec = 600 not applied (freeze ` +
    "builds without a time limit, as Harbor's Docker environment does)",
  ];
  const hosts = (name: string) =>
    `warning: ${COOKBOOK}/${name}: the verifier asks for the internet ([environment] ` +
    "allow_internet is absent, and Harbor's default is true): it may reach only the hosts " +
    "given with --verifier-allow-host: *.pythonhosted.org, pypi.org";
  equal(
    run.stderr,
    [
      ...common("simple-task"),
      hosts("simple-task"),
      ...common("multi-reward"),
      hosts("multi-reward"),
      ...common("dns-blacklisting"),
      hosts("dns-blacklisting"),
      ...common("skills"),
      `warning: ${COOKBOOK}/skills: [environment] skills_dir = "/skills" not applied (the ` +
      "agent is not given the skills there; they stay in the image)",
      hosts("skills"),
    ].join("\n") + "\n",
  );
  for (const task of suite.manifest.tasks) {
    deepEqual(task.verifier, {
      entry: "test.sh",
      mount: "/tests",
      mode: "shared",
      verdict: "reward",
      pass_threshold: 1,
      reward_key: "correctness",
      reward_rule: "min",
      wall_ms: 120000,
      // lower-cased, sorted
      allow_hosts: ["*.pythonhosted.org", "pypi.org"],
    });
  }
});

Deno.test("suite --help opens with an example", async () => {
  const run = await cliInProcess("suite", "--help");
  equal(run.code, 0);
  match(
    run.stdout,
    /^Work with suite directories[^\n]*\n\nImport the Terminal-Bench[^\n]*\n {2}deno task ledgerbench suite import harbor /,
  );
});

/** A minimal Harbor task, under `t1/` unless `dir` is given, with `files` replaced. */
function task(files: Record<string, string> = {}, dir = "t1"): Record<string, string> {
  const base: Record<string, string> = {
    "instruction.md": "Do it.\n",
    "task.toml": "[environment]\nallow_internet = false\n",
    "environment/Dockerfile": "FROM base\nWORKDIR /app\nCOPY src/ ./src/\n",
    "environment/src/a.py": "print(1)\n",
    "tests/test.sh": "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n",
    "solution/solve.sh": "#!/bin/sh\n",
  };
  const all = { ...base, ...files };
  return Object.fromEntries(
    Object.entries(all).filter(([, text]) => text !== "").map(([path, text]) => [
      `${dir}/${path}`,
      text,
    ]),
  );
}

const IMPORT = ["suite", "import", "harbor"];

const CASES: BadInputCase[] = [
  {
    name: "a TOML syntax error names the file, line and column",
    files: task({ "task.toml": "[environment]\nallow_internet = false\ncpus = = 2\n" }),
    args: [...IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr: /^error: \{dir\}\/t1\/task\.toml:3: invalid TOML at column 8: [^\n]+\n$/,
  },
  {
    name: "an allowlist without hosts, for the agent",
    files: task({ "task.toml": '[environment]\nnetwork_mode = "allowlist"\n' }),
    args: [...IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/task\.toml:2: field "environment\.allowed_hosts": network_mode = "allowlist" with no allowed_hosts: write the hosts, or "no-network"\n$/,
  },
  {
    name: "no tests/test.sh",
    files: task({ "tests/test.sh": "", "tests/test_a.py": "assert True\n" }),
    args: [...IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/tests\/test\.sh: missing: a Harbor task's verifier is tests\/test\.sh\n$/,
  },
  {
    name: "a docker-compose.yaml service without an image or a build",
    files: task({ "environment/docker-compose.yaml": "services:\n  main: {}\n  db: {}\n" }),
    args: [...IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/environment\/docker-compose\.yaml:3: field "services\.db": a service needs an image or a build\n$/,
  },
  {
    name: "a task id that is not lower-case letters, digits, dashes and underscores",
    files: task({}, "Fix_CSV"),
    args: [...IMPORT, "{dir}/Fix_CSV", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/Fix_CSV: field "task_id": "Fix_CSV" \(the directory's name\) must be lower-case letters, digits, dashes and underscores, starting with a letter or digit: rename the directory\n$/,
  },
  {
    name: "--out is not empty",
    files: { ...task(), "out/keep.txt": "mine\n" },
    args: [...IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr: /^error: \{dir\}\/out: exists and is not empty: give a new directory to --out\n$/,
  },
  {
    name: "the same task id from two sources",
    files: { ...task(), ...task({}, "more/t1") },
    args: [...IMPORT, "{dir}/t1", "{dir}/more", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/more\/t1: field "task_id": task "t1" is imported twice \(first from "\{dir\}\/t1"\): ids are the directories' names and must be unique\n$/,
  },
  {
    name: "an unknown subcommand lists import and check",
    args: ["suite", "verify", "{dir}"],
    code: 1,
    stderr:
      /^error: Unknown subcommand "verify": expected "import", "check"\n\nWork with suite directories/,
  },
  {
    name: "suite check without an engine says so, before anything is written",
    files: {
      "s/suite.json": '{"suite_id": "s", "tasks": [{"task_id": "t"}]}',
      "s/tasks/t/workspace/TASK.md": "Do it.\n",
      "s/tasks/t/verifier/verify.sh": "echo\n",
    },
    args: ["suite", "check", "{dir}/s"],
    env: { DOCKER_HOST: "unix:///nonexistent/docker.sock" },
    code: 3,
    stderr:
      /^error: Cannot check the suite: No Docker socket at "\/nonexistent\/docker\.sock": start the engine \(see \.ci\/install_docker\.sh\) or set DOCKER_HOST \(the check runs in the Docker sandbox\)\n$/,
  },
  {
    name: "freeze of a suite whose task names an environment, without an engine",
    files: {
      "s/suite.json":
        '{"suite_id": "s", "tasks": [{"task_id": "t", "environment": {"image": "x:1"}}]}',
      "s/tasks/t/workspace/TASK.md": "Do it.\n",
      "s/tasks/t/verifier/verify.sh": "echo\n",
    },
    args: [
      "freeze",
      "--without-agent-check",
      "the test freezes plans without an agent check",
      "--suite",
      "{dir}/s",
      "--out",
      "{dir}/plan.json",
      "--agent",
      "a=img:1",
      "--image-digest",
      `img:1=sha256:${"a".repeat(64)}`,
      "--image-digest",
      `ledgerbench/verifier:latest=sha256:${"b".repeat(64)}`,
    ],
    env: { DOCKER_HOST: "unix:///nonexistent/docker.sock" },
    code: 3,
    stderr:
      /^error: Cannot prepare the tasks' own environments: No Docker socket at "\/nonexistent\/docker\.sock": .* \(a task that names an environment needs the local engine to build or find it\)\n$/,
  },
  {
    name: "suite check of a directory without a suite names its manifest",
    args: ["suite", "check", "{dir}/none"],
    code: 2,
    stderr: /^error: \/\S+\/none\/suite\.json: No such file or directory \(os error 2\)\n$/,
  },
  {
    name: "an unknown format",
    args: [...IMPORT.slice(0, 2), "inspect", "{dir}", "--out", "{dir}/out"],
    code: 1,
    stderr: /^error: Unknown format "inspect": expected "harbor"\n/,
  },
  {
    name: "no --out",
    args: [...IMPORT, "{dir}"],
    code: 1,
    stderr: /^error: Missing option: "--out"\n/,
  },
];

badInputTests("suite import", CASES);

Deno.test("suite import harbor --skip-refused: the other tasks imported, each refused one named and recorded", async () => {
  await using tmp = await tempDir();
  // Harbor's example tasks, and one whose sidecar asks for the host's network.
  const harbor = `${tmp.path}/harbor`;
  const copied = await new Deno.Command("cp", {
    args: ["-R", `${ROOT}tests/fixtures/harbor_tasks/harbor-examples`, harbor],
  }).output();
  equal(copied.code, 0);
  for (
    const [path, text] of Object.entries(task({
      "environment/docker-compose.yaml": "services:\n  db:\n    image: x\n" +
        "    network_mode: host\n",
    }, "host-db"))
  ) {
    await Deno.mkdir(`${harbor}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${harbor}/${path}`, text);
  }
  const out = `${tmp.path}/examples`;
  const run = await cliInProcess(
    "suite",
    "import",
    "harbor",
    harbor,
    "--out",
    out,
    "--without-internet",
    "--skip-refused",
    "--width",
    "400",
  );
  equal(run.code, 0, run.stderr);
  const compose = `${harbor}/host-db/environment/docker-compose.yaml:4: field ` +
    '"services.db.network_mode": service "db": "network_mode" is not supported';
  const skippedLines = run.stderr.split("\n").filter((line) => line.startsWith("skipped: "));
  deepEqual(skippedLines, [`skipped: ${compose}`]);
  match(
    run.stdout,
    /^Imported 10 tasks \(harbor\) into .* \(suite "examples"\), 1 refused task skipped\n/,
  );
  const suite = await loadSuite(out);
  deepEqual(suite.manifest.import_skipped, [{ dir: `${harbor}/host-db`, reason: compose }]);
  // Without the option, one refused task refuses the import, and nothing is written.
  const refused = await cliInProcess(
    "suite",
    "import",
    "harbor",
    harbor,
    "--out",
    `${tmp.path}/none`,
  );
  equal(refused.code, 2);
  equal(await Deno.stat(`${tmp.path}/none`).then(() => true, () => false), false);
});

Deno.test("suite import harbor --verifier-allow-host @package-indexes gives the verifier the package indexes", async () => {
  await using tmp = await tempDir();
  const run = await cliInProcess(
    "suite",
    "import",
    "harbor",
    `${COOKBOOK}/simple-task`,
    "--out",
    `${tmp.path}/suite`,
    "--without-internet",
    "--verifier-allow-host",
    "@Package-Indexes",
    "--verifier-allow-host",
    "astral.sh",
  );
  equal(run.code, 0, run.stderr);
  const suite = await loadSuite(`${tmp.path}/suite`);
  // The suite keeps a verifier's hosts sorted.
  deepEqual(
    suite.manifest.tasks[0].verifier?.allow_hosts,
    [...PACKAGE_INDEX_HOSTS, "astral.sh"].sort(),
  );
});
