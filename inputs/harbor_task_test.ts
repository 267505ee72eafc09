import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import { tempDir } from "../runner/_temp_dir_for_test.ts";
import { dockerfileWorkspace, harborTaskDirs, readHarborTask } from "./harbor_task.ts";

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
    workdir: "/app",
    verifier: {
      entry: "test.sh",
      mount: "/tests",
      verdict: "reward",
      pass_threshold: 1,
      reward_key: "reward",
      wall_ms: 120000,
      env: { PYTHONDONTWRITEBYTECODE: "1" },
    },
    resources: { cpus: 1, memory_mb: 2048 },
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
    ["environment/src/csvread.py", "environment/src/csvread.py", undefined],
    // COPY src/ /app/src/ with WORKDIR /app
    ["environment/src/csvread.py", "workspace/src/csvread.py", undefined],
  ]);
  deepEqual(task.warnings, ["[environment] storage_mb = 10240 not applied (no disk quota)"]);
});

Deno.test("readHarborTask() refuses a task that asks for the internet, unless waived", async () => {
  const dir = `${FIXTURES}/fetch-release-notes`;
  equal(
    await refusal(() => readHarborTask(dir)),
    `${dir}/task.toml:14: field "environment.allow_internet": task "fetch-release-notes" asks ` +
      "for the internet (allow_internet = true); episodes have no network: pass " +
      '--without-internet to import it without (recorded as "internet_waived")',
  );
  const task = await readHarborTask(dir, { withoutInternet: true, passThreshold: 0.5 });
  equal(task.entry.internet_waived, true);
  equal(task.entry.verifier?.pass_threshold, 0.5);
  // COPY notes.txt ./ after WORKDIR /app; the RUN comes before the WORKDIR
  deepEqual(task.files.filter((f) => f.to.startsWith("workspace/")).map((f) => f.to), [
    "workspace/TASK.md",
    "workspace/notes.txt",
  ]);
  deepEqual(task.warnings, [
    "no solution/solve.sh: no oracle: suite check cannot prove this task",
    "asks for the internet: imported without it (internet_waived)",
  ]);
});

Deno.test("readHarborTask() takes Harbor's defaults: internet on, verifier 600 s", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, { ...TASK, "task.toml": "" });
  equal(
    await refusal(() => readHarborTask(dir)),
    `${dir}/task.toml: field "environment.allow_internet": task "t1" asks for the internet ` +
      "(allow_internet is absent, and Harbor's default is true); episodes have no network: " +
      'pass --without-internet to import it without (recorded as "internet_waived")',
  );
  const task = await readHarborTask(dir, { withoutInternet: true });
  // VerifierConfig.timeout_sec = 600.0
  equal(task.entry.verifier?.wall_ms, 600000);
  equal(task.entry.limits.wall_ms_cap, null);
  equal(task.entry.resources, undefined);
});

Deno.test("readHarborTask() prefers the Dockerfile to docker_image, and warns", async () => {
  await using tmp = await tempDir();
  const dir = await write(`${tmp.path}/t1`, {
    ...TASK,
    "task.toml": '[environment]\ndocker_image = "ghcr.io/x/y:1"\nallow_internet = false\n',
  });
  const task = await readHarborTask(dir);
  deepEqual(task.entry.environment, { dockerfile: "environment/Dockerfile" });
  match(task.warnings[0], /^\[environment\] docker_image "ghcr.io\/x\/y:1" not used/);
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
      { "environment/docker-compose.yaml": "services: {}\n" },
      "environment/docker-compose.yaml: a Compose environment is not supported",
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

Deno.test("dockerfileWorkspace() resolves COPY forms into the workdir", async () => {
  await using tmp = await tempDir();
  const context = await write(`${tmp.path}/env`, {
    "a.py": "a\n",
    "b.py": "b\n",
    "data/x.csv": "x\n",
    "etc/conf": "c\n",
  });
  await Deno.writeTextFile(
    `${context}/Dockerfile`,
    [
      "# escape=\\",
      "FROM builder AS build",
      "WORKDIR /elsewhere",
      "FROM base",
      "COPY etc/conf /etc/conf",
      "WORKDIR /srv",
      "WORKDIR app",
      'COPY --chown=1000:1000 ["a.py", "./"]',
      "COPY *.py lib/",
      "COPY data \\",
      "  /srv/app/data",
      "COPY --from=build /x /elsewhere/",
      "RUN echo hi",
    ].join("\n") + "\n",
  );
  const found = await dockerfileWorkspace(`${context}/Dockerfile`, context);
  equal(found.workdir, "/srv/app");
  deepEqual(found.files.map((f) => [f.from.slice(context.length + 1), f.to]), [
    ["a.py", "workspace/a.py"],
    ["a.py", "workspace/lib/a.py"],
    ["b.py", "workspace/lib/b.py"],
    ["data/x.csv", "workspace/data/x.csv"],
  ]);
  deepEqual(found.warnings, [
    `${context}/Dockerfile:13: RUN in the workdir "/srv/app": what it writes there is hidden ` +
    "by the workspace mount (only COPY and ADD files are carried over)",
  ]);
});

Deno.test("dockerfileWorkspace() refuses what it cannot resolve into the workdir, naming the line", async () => {
  await using tmp = await tempDir();
  const context = await write(`${tmp.path}/env`, { "a.py": "a\n", "a.tar.gz": "z" });
  const cases: [string, string][] = [
    ["ADD https://example.com/a.py /app/", 'source "https://example.com/a.py" is a URL'],
    ["COPY --from=build /x ./", 'option "--from=build"'],
    ["COPY *.rs ./", 'source "*.rs" matches nothing in the build context'],
    ["COPY ../secret ./", 'source "../secret" is outside the build context'],
    ["ADD a.tar.gz ./", 'ADD unpacks the archive "a.tar.gz"'],
    ["COPY a.py $DEST", 'destination "$DEST" uses a variable'],
  ];
  for (const [line, why] of cases) {
    await Deno.writeTextFile(`${context}/Dockerfile`, `FROM base\nWORKDIR /app\n${line}\n`);
    equal(
      await refusal(() => dockerfileWorkspace(`${context}/Dockerfile`, context)),
      `${context}/Dockerfile:3: ${line.split(" ")[0]} into the workdir "/app" cannot be resolved ` +
        `(${why}); the workspace mount would hide it`,
    );
  }
  // the same forms elsewhere than the workdir are the image's business
  await Deno.writeTextFile(
    `${context}/Dockerfile`,
    "FROM base\nADD https://example.com/a /opt/\nWORKDIR /app\n",
  );
  deepEqual((await dockerfileWorkspace(`${context}/Dockerfile`, context)).files, []);
  // a workdir over a place the sandbox reserves is refused by the manifest's own rule
  await Deno.writeTextFile(`${context}/Dockerfile`, "FROM base\nWORKDIR /verifier\n");
  match(
    await refusal(() => dockerfileWorkspace(`${context}/Dockerfile`, context)),
    new RegExp(
      `^${context}/Dockerfile:2: WORKDIR "/verifier" must not be or lie inside /workspace, `,
    ),
  );
  // /workspace itself is where the workspace already is
  await Deno.writeTextFile(
    `${context}/Dockerfile`,
    "FROM base\nWORKDIR /workspace\nCOPY a.py ./\n",
  );
  deepEqual(
    (await dockerfileWorkspace(`${context}/Dockerfile`, context)).files.map((f) => f.to),
    ["workspace/a.py"],
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
