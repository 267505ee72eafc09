import { deepEqual, equal, rejects } from "node:assert/strict";
import { type HarborTask, harborTaskDirs, readHarborTask } from "../inputs/harbor_task.ts";
import { loadSuite } from "../inputs/suite.ts";
import { tempDir } from "./_temp_dir_for_test.ts";
import { writeHarborSuite } from "./import_harbor_suite.ts";
import { SuiteTaskEntry } from "../analysis/schema/suite_manifest.ts";

const FIXTURES = new URL("../tests/fixtures/harbor_tasks", import.meta.url).pathname;

/** The names in a directory, sorted. */
async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("writeHarborSuite() writes a suite that loads, entry points executable", async () => {
  await using tmp = await tempDir();
  const task = await readHarborTask(`${FIXTURES}/fix-csv-parser`);
  // a test.sh without its execute bit still becomes executable
  const plain = `${tmp.path}/src/plain-task`;
  await Deno.mkdir(`${plain}/tests`, { recursive: true });
  await Deno.writeTextFile(`${plain}/instruction.md`, "Do it.\n");
  await Deno.writeTextFile(`${plain}/task.toml`, '[environment]\ndocker_image = "img"\n');
  await Deno.writeTextFile(`${plain}/tests/test.sh`, "#!/bin/sh\n", { mode: 0o644 });
  await Deno.chmod(`${plain}/tests/test.sh`, 0o644);
  const second = await readHarborTask(plain, { withoutInternet: true });
  const out = `${tmp.path}/suite`;
  const suite = await writeHarborSuite(out, [task, second], { suiteId: "tb-mini" });
  equal(suite.dir, await Deno.realPath(out));
  equal(suite.manifest.suite_id, "tb-mini");
  deepEqual(suite.manifest.tasks.map((t) => t.task_id), ["fix-csv-parser", "plain-task"]);
  equal(suite.sha256, (await loadSuite(out)).sha256);
  equal((await Deno.stat(`${out}/tasks/plain-task/verifier/test.sh`)).mode! & 0o777, 0o755);
  equal((await Deno.stat(`${out}/tasks/fix-csv-parser/solution/solve.sh`)).mode! & 0o777, 0o755);
  // the Dockerfile is copied byte for byte
  deepEqual(
    await Deno.readFile(`${out}/tasks/fix-csv-parser/environment/Dockerfile`),
    await Deno.readFile(`${FIXTURES}/fix-csv-parser/environment/Dockerfile`),
  );
  // the workspace holds the prompt only: the built image's /app is added when the task runs
  deepEqual(await names(`${out}/tasks/fix-csv-parser/workspace`), ["TASK.md"]);
  deepEqual(await names(tmp.path), ["src", "suite"]);
});

Deno.test("writeHarborSuite() default suite id is the directory's name; an empty --out is fine", async () => {
  await using tmp = await tempDir();
  const out = `${tmp.path}/my-suite`;
  await Deno.mkdir(out);
  const suite = await writeHarborSuite(out, [await readHarborTask(`${FIXTURES}/hello-image`)]);
  equal(suite.manifest.suite_id, "my-suite");
});

Deno.test("writeHarborSuite() refuses a non-empty --out and repeated ids, leaving nothing", async () => {
  await using tmp = await tempDir();
  const task = await readHarborTask(`${FIXTURES}/hello-image`);
  const out = `${tmp.path}/full`;
  await Deno.mkdir(out);
  await Deno.writeTextFile(`${out}/x`, "");
  await rejects(
    writeHarborSuite(out, [task]),
    { message: `Cannot read ${out}: exists and is not empty: give a new directory to --out` },
  );
  await rejects(
    writeHarborSuite(`${tmp.path}/twice`, [task, { ...task, dir: "other/hello-image" }]),
    {
      message: 'Cannot read other/hello-image: field "task_id": task "hello-image" is imported ' +
        `twice (first from "${FIXTURES}/hello-image"): ids are the directories' names and must be unique`,
    },
  );
  deepEqual(await names(tmp.path), ["full"]);
});

Deno.test("writeHarborSuite() removes its temporary directory when a copy fails", async () => {
  await using tmp = await tempDir();
  const task = await readHarborTask(`${FIXTURES}/hello-image`);
  const broken: HarborTask = {
    ...task,
    files: [...task.files, { from: `${tmp.path}/gone.txt`, to: "workspace/gone.txt" }],
  };
  await rejects(writeHarborSuite(`${tmp.path}/out`, [broken]), /gone\.txt: No such file/);
  deepEqual(await names(tmp.path), []);
});

Deno.test("writeHarborSuite() keeps the cookbook's recipes and a separate verifier as read", async () => {
  await using tmp = await tempDir();
  const cookbook = (await harborTaskDirs(`${FIXTURES}/cookbook`)).filter((dir) =>
    !/multi-step|multi-container/.test(dir)
  );
  const tasks = await Promise.all(
    cookbook.map((dir) => readHarborTask(dir, { withoutInternet: true, rewardRule: "min" })),
  );
  const separate = `${tmp.path}/src/grade-separately`;
  for (
    const [path, text] of Object.entries({
      "instruction.md": "Write /tmp/answer.json.\n",
      "task.toml": 'artifacts = ["/tmp/answer.json"]\n[environment]\ndocker_image = "img"\n' +
        'allow_internet = false\n[verifier]\nenvironment_mode = "separate"\nuser = "grader"\n',
      "tests/test.sh": "#!/bin/sh\n",
      "tests/Dockerfile": "FROM img\nCOPY . /tests/\n",
    })
  ) {
    const file = `${separate}/${path}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
  tasks.push(await readHarborTask(separate, { verifierAllowHosts: ["pypi.org"] }));
  const out = `${tmp.path}/suite`;
  const suite = await writeHarborSuite(out, tasks);
  deepEqual(suite.manifest.tasks, tasks.map((task) => task.entry));
  deepEqual(
    suite.manifest.tasks.map((t) => [t.task_id, t.verifier?.mode, t.verifier?.reward_rule]),
    [
      ["dns-blacklisting", "shared", "min"],
      ["multi-reward", "shared", "min"],
      ["simple-task", "shared", "min"],
      ["skills", "shared", "min"],
      ["grade-separately", "separate", "key"],
    ],
  );
  const last = suite.manifest.tasks[4];
  deepEqual(last.verifier?.environment, { dockerfile: "verifier/Dockerfile" });
  deepEqual(last.verifier?.artifacts, ["/tmp/answer.json"]);
  deepEqual(last.verifier?.allow_hosts, ["pypi.org"]);
  equal(last.verifier?.user, "grader");
  // the verifier's Dockerfile sits in its build context, the hidden verifier/
  equal(
    await Deno.readTextFile(`${out}/tasks/grade-separately/verifier/Dockerfile`),
    "FROM img\nCOPY . /tests/\n",
  );
});

Deno.test("SuiteTaskEntry refuses verifier fields outside their mode, with one message each", () => {
  const issues = (entry: unknown) =>
    SuiteTaskEntry.safeParse(entry).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const task = { task_id: "t", environment: { image: "img" } };
  deepEqual(
    issues({
      ...task,
      verifier: {
        user: "grader",
        allow_hosts: ["pypi.org"],
        artifacts: ["/app/a"],
        environment: { image: "grader" },
      },
    }),
    [
      'verifier.user: "user" applies only to mode "shared" or "separate", not "sealed"',
      'verifier.allow_hosts: "allow_hosts" applies only to mode "shared" or "separate", not "sealed"',
      'verifier.artifacts: "artifacts" applies only to mode "separate", not "sealed"',
      'verifier.environment: "environment" applies only to mode "separate", not "sealed"',
    ],
  );
  deepEqual(issues({ task_id: "t", verifier: { mode: "shared" } }), [
    'verifier.verdict: must be "reward" in mode "shared" (Harbor\'s reward file)',
    'environment: is required with verifier mode "shared" (the verifier runs in the task\'s own ' +
    "environment)",
  ]);
  deepEqual(
    issues({
      ...task,
      verifier: {
        mode: "separate",
        verdict: "reward",
        mount: "/tests",
        artifacts: ["/tests/x", "/proc/1", "/logs/artifacts/a"],
        allow_hosts: ["PyPI.org", "pypi.org:70000", "*.pythonhosted.org:443"],
        reward_rule: "max",
      },
    }),
    [
      'verifier.reward_rule: Invalid option: expected one of "key"|"min"|"mean"',
      "verifier.allow_hosts.0: must be a lower-case host name or *.name, optionally :port",
      "verifier.allow_hosts.1: must have a port of 1 to 65535",
      "verifier.artifacts.1: must not be, lie inside or hold /verifier, /solution, /logs/verifier, " +
      "/ledgerbench, /opt/ledgerbench, /.ledgerbench, /proc, /sys, /dev",
    ],
  );
  // an artifact inside the mount or holding it, once the fields themselves are valid
  deepEqual(
    issues({
      ...task,
      verifier: {
        mode: "separate",
        verdict: "reward",
        mount: "/srv/tests",
        artifacts: ["/srv/tests/x", "/srv", "/srv/data"],
      },
    }),
    [
      'verifier.artifacts.0: must not be, lie inside or hold the verifier\'s mount "/srv/tests" ' +
      "(the hidden files)",
      'verifier.artifacts.1: must not be, lie inside or hold the verifier\'s mount "/srv/tests" ' +
      "(the hidden files)",
    ],
  );
  // the defaults: sealed, the key "reward"
  deepEqual(SuiteTaskEntry.parse({ task_id: "t", verifier: {} }).verifier, {
    mode: "sealed",
    verdict: "line",
    pass_threshold: 1,
    reward_key: "reward",
    reward_rule: "key",
  });
  equal(SuiteTaskEntry.safeParse({ task_id: "t", agent_user: "" }).success, false);
});
