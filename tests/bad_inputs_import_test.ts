/**
 * Bad input to `ledgerbench import` and to `--tasks` (issue 11), and to the
 * options and task kinds of `suite import harbor` that issue 22 added
 * (`--reward-key`, `--reward-rule`, `--verifier-allow-host`;
 * Compose and separate-verifier tasks), through the real CLI
 * (tests/_bad_input_table.ts): a usage error exits 1 naming the option; a
 * bad source exits 2 naming its file, line and field; nothing is written then.
 */
import { badInputTests } from "./_bad_input_table.ts";

const MAP = ["--map", "agent_id=model,task_id=instance_id,resolved=resolved"];
const TABLE = "model,instance_id,resolved\nm,t1,yes\n";

badInputTests("import", [
  {
    name: "an unknown format",
    args: ["import", "csv", "{dir}/x", "--out", "{dir}/l.jsonl"],
    code: 1,
    stderr: /^error: Unknown format "csv": expected "inspect", "swebench", "harbor", "table"\n/,
  },
  {
    name: "no --out",
    args: ["import", "inspect", "{dir}/x.eval"],
    code: 1,
    stderr: /^error: Missing option: "--out"\n/,
  },
  {
    name: "an option of another format",
    args: ["import", "table", "{dir}/r.csv", "--out", "{dir}/l.jsonl", "--scorer", "s"],
    code: 1,
    stderr: /^error: Option "--scorer" does not apply to format "table" \(only "inspect"\)\n/,
  },
  {
    name: "a table without --map",
    args: ["import", "table", "{dir}/r.csv", "--out", "{dir}/l.jsonl"],
    code: 1,
    stderr: /^error: Missing option: "--map" \(format "table"\)\n/,
  },
  {
    name: "a --map entry without a column",
    args: ["import", "table", "{dir}/r.csv", "--out", "{dir}/l.jsonl", "--map", "task_id"],
    code: 1,
    stderr:
      /^error: Option "--map": Cannot read the column map entry "task_id": write FIELD=COLUMN\n/,
  },
  {
    name: "a --values pair without a meaning",
    files: { "r.csv": TABLE },
    args: [
      "import",
      "table",
      "{dir}/r.csv",
      "--out",
      "{dir}/l.jsonl",
      ...MAP,
      "--values",
      "resolved=yes",
    ],
    code: 1,
    stderr:
      /^error: Option "--values": Cannot read the value pair "yes" of resolved: write VALUE:MEANING\n/,
  },
  {
    name: "a --pass-threshold that is not a number",
    args: [
      "import",
      "inspect",
      "{dir}/x.eval",
      "--out",
      "{dir}/l.jsonl",
      "--pass-threshold",
      "abc",
    ],
    code: 1,
    stderr: /^error: Option "--pass-threshold" must be a number: "abc"\n/,
  },
  {
    name: "a table cell that is not a verdict, on its line and column",
    files: { "r.csv": "model,instance_id,resolved\nm,t1,maybe\n" },
    args: ["import", "table", "{dir}/r.csv", "--out", "{dir}/l.jsonl", ...MAP],
    code: 2,
    stderr:
      /^error: \{dir\}\/r\.csv:2: field "resolved": column 3: "maybe" is not a verdict \(accepted: true\/false, 1\/0, yes\/no\); map it with --values resolved=VALUE:MEANING\n$/,
  },
  {
    name: "a source that does not exist",
    args: ["import", "inspect", "{dir}/none.eval", "--out", "{dir}/l.jsonl"],
    code: 2,
    stderr: /^error: \{dir\}\/none\.eval: No such file or directory/,
  },
  {
    name: "a SWE-bench report that is not JSON",
    files: { "r.json": TABLE },
    args: ["import", "swebench", "{dir}/r.json", "--out", "{dir}/l.jsonl"],
    code: 2,
    stderr:
      /^error: \{dir\}\/r\.json:1: not valid JSON: unexpected "m" \(expected a value\) at column 1\n$/,
  },
  {
    name: "a task list at --tasks-out with other attempts per task",
    files: {
      "r.csv": TABLE,
      "l.tasks.json": '{"tasks":[{"task_id":"t1"}]}',
      "t.json": '{"tasks":[{"task_id":"t1"}],"attempts_per_task":2}',
    },
    args: [
      "import",
      "table",
      "{dir}/r.csv",
      "--out",
      "{dir}/l.jsonl",
      ...MAP,
      "--tasks",
      "{dir}/t.json",
    ],
    code: 2,
    stderr:
      /^error: \{dir\}\/l\.tasks\.json: field "attempts_per_task": is 1, the import's sources declare 2: importing them into this ledger would mix denominators\n$/,
  },
  {
    name: "--plan and --tasks together",
    args: [
      "summarize",
      "{root}/ledgers/examples/sample_ledger.jsonl",
      "--plan",
      "{root}/ledgers/examples/synthetic_plan.json",
      "--tasks",
      "{dir}/t.txt",
    ],
    code: 1,
    stderr: /^error: Give "--plan" or "--tasks", not both: a plan's tasks are its denominator\n/,
  },
  {
    name: "a task list with a blank line, on its line",
    files: { "t.txt": "t1\n\nt2\n" },
    args: ["censoring", "{root}/ledgers/examples/sample_ledger.jsonl", "--tasks", "{dir}/t.txt"],
    code: 2,
    stderr: /^error: \{dir\}\/t\.txt:2: is blank; one task id per line\n$/,
  },
]);

const SUITE_IMPORT = ["suite", "import", "harbor"];

/** A minimal Harbor task under `t1/` with this task.toml. */
function harborTask(toml: string, more: Record<string, string> = {}): Record<string, string> {
  const files: Record<string, string> = {
    "instruction.md": "Do it.\n",
    "task.toml": toml,
    "environment/Dockerfile": "FROM base\nWORKDIR /app\n",
    "tests/test.sh": "#!/bin/sh\necho 1 > /logs/verifier/reward.txt\n",
    ...more,
  };
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [`t1/${path}`, text]));
}

const OFFLINE = "[environment]\nallow_internet = false\n";

badInputTests("suite import harbor", [
  {
    name: "a --reward-rule that is none of key, min, mean",
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out", "--reward-rule", "max"],
    code: 1,
    stderr: /^error: Option "--reward-rule" must be one of "key", "min", "mean": "max"\n/,
  },
  {
    name: "an empty --reward-key",
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out", "--reward-key", ""],
    code: 1,
    stderr: /^error: Option "--reward-key" must be a non-empty key: ""\n/,
  },
  {
    name: "a --verifier-allow-host that is a URL",
    args: [
      ...SUITE_IMPORT,
      "{dir}/t1",
      "--out",
      "{dir}/out",
      "--verifier-allow-host",
      "pypi.org",
      "--verifier-allow-host",
      "https://pypi.org/simple",
    ],
    code: 1,
    stderr:
      /^error: Option "--verifier-allow-host" must be a host name or \*\.name, optionally :port, or "@package-indexes": "https:\/\/pypi\.org\/simple"\n/,
  },
  {
    name: "a Compose sidecar bound to a host directory",
    files: {
      "t1/instruction.md": "Do it.\n",
      "t1/task.toml": "[environment]\nallow_internet = false\n",
      "t1/environment/Dockerfile": "FROM base\n",
      "t1/environment/docker-compose.yaml":
        "services:\n  db:\n    image: x\n    volumes:\n      - ./data:/var/lib/db\n",
      "t1/tests/test.sh": "#!/bin/sh\n",
    },
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr: new RegExp(
      '^error: \\{dir\\}/t1/environment/docker-compose\\.yaml:5: field "services\\.db\\.volumes\\.0": ' +
        '"\\./data" is not a volume the file declares \\(a bind mount of the host is not ' +
        "supported\\)\\n$",
    ),
  },
  {
    name: 'environment_mode = "shared" with a [verifier.environment] table',
    files: harborTask(
      `${OFFLINE}[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ncpus = 2\n`,
    ),
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/task\.toml:4: field "verifier\.environment_mode": environment_mode = "shared" with a \[verifier\.environment\] table: the table is a separate verifier's environment \(Harbor refuses the pair too\): write "separate" or drop the table\n$/,
  },
  {
    name: "a separate verifier environment with neither tests/Dockerfile nor docker_image",
    files: harborTask(`${OFFLINE}[verifier.environment]\nmemory_mb = 4096\n`),
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/task\.toml:3: field "verifier\.environment": a separate verifier environment with neither a tests\/Dockerfile nor a docker_image: the verifier has nothing to run in\n$/,
  },
  {
    name: "an artifact inside the verdict channel",
    files: harborTask(
      `artifacts = ["/logs/verifier/reward.txt"]\n${OFFLINE}[verifier]\n` +
        'environment_mode = "separate"\n',
    ),
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/task\.toml:1: field "artifacts\.0": "\/logs\/verifier\/reward\.txt" must not be, lie inside or hold \/verifier, \/solution, \/logs\/verifier, \/ledgerbench, \/opt\/ledgerbench, \/\.ledgerbench, \/proc, \/sys, \/dev\n$/,
  },
  {
    name: "a Harbor allowed_hosts entry that is no host name",
    files: harborTask(
      `${OFFLINE}[verifier]\nnetwork_mode = "allowlist"\nallowed_hosts = ["10.0.0.0/8"]\n`,
    ),
    args: [...SUITE_IMPORT, "{dir}/t1", "--out", "{dir}/out"],
    code: 2,
    stderr:
      /^error: \{dir\}\/t1\/task\.toml:5: field "verifier\.allowed_hosts\.0": "10\.0\.0\.0\/8" must be a lower-case host name or \*\.name, optionally :port\n$/,
  },
]);
