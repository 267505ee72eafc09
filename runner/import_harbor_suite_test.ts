import { deepEqual, equal, rejects } from "node:assert/strict";
import { type HarborTask, readHarborTask } from "../inputs/harbor_task.ts";
import { loadSuite } from "../inputs/suite.ts";
import { tempDir } from "./_temp_dir_for_test.ts";
import { writeHarborSuite } from "./import_harbor_suite.ts";

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
  equal(
    await Deno.readTextFile(`${out}/tasks/fix-csv-parser/workspace/src/csvread.py`),
    await Deno.readTextFile(`${FIXTURES}/fix-csv-parser/environment/src/csvread.py`),
  );
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
