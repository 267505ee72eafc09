import { deepEqual, equal, rejects } from "node:assert/strict";
import { LedgerError } from "../analysis/ledger_error.ts";
import { loadSuite } from "./suite.ts";

/** Writes a suite directory: the manifest text and, per task, the files given. */
async function suiteDir(manifest: unknown, files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "suite_" });
  await Deno.writeTextFile(`${dir}/suite.json`, JSON.stringify(manifest));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

/** Every problem of a refused suite, as `field: message` (the file is always suite.json). */
async function problems(dir: string): Promise<string[]> {
  try {
    await loadSuite(dir);
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return error.problems.map((p) => `${p.field}: ${p.message}`);
  }
  return [];
}

const TASK = {
  "tasks/fix-parser/workspace/TASK.md": "Fix the parser.\n",
  "tasks/fix-parser/verifier/verify.ts": "console.log(JSON.stringify({ resolved: true }));\n",
};

Deno.test("loadSuite() reads a hand-written suite: no seed, a verify.ts, every default from the schema", async () => {
  const dir = await suiteDir({ suite_id: "mine", tasks: [{ task_id: "fix-parser" }] }, TASK);
  const suite = await loadSuite(dir);
  deepEqual(suite.manifest, {
    schema_version: 1,
    suite_id: "mine",
    lane_weights: {},
    tasks: [{
      task_id: "fix-parser",
      lane: "default",
      limits: { token_cap: null, step_cap: null, wall_ms_cap: null },
    }],
  });
  equal(suite.sha256.length, 64);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadSuite() names every problem of a hand-written manifest at once", async () => {
  // The new user needed eight freeze attempts, one field each: all are named together.
  const dir = await suiteDir({ tasks: [{ lane: "A", limits: { token_cap: -1 } }] }, {});
  deepEqual(await problems(dir), [
    "suite_id: missing (required; expected string)",
    "tasks.0.task_id: missing (required; expected string)",
    "tasks.0.limits.token_cap: Too small: expected number to be >=0",
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("loadSuite() refuses a half seed, a repeated task, and a task without its files", async () => {
  const seedOnly = await suiteDir(
    { suite_id: "s", seed_sha256: "a".repeat(64), tasks: [{ task_id: "fix-parser" }] },
    TASK,
  );
  deepEqual(await problems(seedOnly), [
    'public_seed: "seed_sha256" and "public_seed" go together: both for a generated suite, ' +
    "neither for a hand-written one",
  ]);
  const twice = await suiteDir(
    { suite_id: "s", tasks: [{ task_id: "fix-parser" }, { task_id: "fix-parser" }] },
    TASK,
  );
  deepEqual(await problems(twice), [
    'tasks.1.task_id: duplicate task "fix-parser" (first at tasks.0)',
  ]);
  const noVerifier = await suiteDir({ suite_id: "s", tasks: [{ task_id: "fix-parser" }] }, {
    "tasks/fix-parser/workspace/TASK.md": "Fix it.\n",
    "tasks/fix-parser/verifier/data.txt": "42\n",
  });
  const [message] = await problems(noVerifier);
  equal(
    message.replaceAll(noVerifier, "{dir}").replace(/\/private/, ""),
    ': task "fix-parser" has no verifier entry point: expected ' +
      '"{dir}/tasks/fix-parser/verifier/verify.sh" or "{dir}/tasks/fix-parser/verifier/verify.ts", ' +
      'or a "verifier.entry"',
  );
  const entryNotExecutable = await suiteDir({
    suite_id: "s",
    tasks: [{ task_id: "fix-parser", verifier: { entry: "test.sh" } }],
  }, {
    "tasks/fix-parser/workspace/TASK.md": "Fix it.\n",
    "tasks/fix-parser/verifier/test.sh": "exit 0\n",
  });
  equal(
    (await problems(entryNotExecutable))[0].replaceAll(entryNotExecutable, "{dir}"),
    ': task "fix-parser": verifier entry "{dir}/tasks/fix-parser/verifier/test.sh" is not an executable file',
  );
  await Deno.chmod(`${entryNotExecutable}/tasks/fix-parser/verifier/test.sh`, 0o755);
  equal((await loadSuite(entryNotExecutable)).manifest.tasks[0].verifier?.verdict, "line");
  const noDockerfile = await suiteDir({
    suite_id: "s",
    tasks: [{ task_id: "fix-parser", environment: { dockerfile: "environment/Dockerfile" } }],
  }, TASK);
  equal(
    (await problems(noDockerfile))[0].replaceAll(noDockerfile, "{dir}"),
    ': task "fix-parser": Dockerfile "{dir}/tasks/fix-parser/environment/Dockerfile" does not exist',
  );
  const badPaths = await suiteDir({
    suite_id: "s",
    tasks: [
      { task_id: "fix-parser", workdir: "/app/../etc", environment: { dockerfile: "../x" } },
      { task_id: "over-hidden", workdir: "/verifier", verifier: { mount: "/ledgerbench/channel" } },
    ],
  }, TASK);
  deepEqual((await problems(badPaths)).map((p) => p.split(": ")[0]), [
    "tasks.0.environment.dockerfile",
    "tasks.0.workdir",
    "tasks.1.workdir",
    "tasks.1.verifier.mount",
  ]);
  for (const dir of [seedOnly, twice, noVerifier, entryNotExecutable, noDockerfile, badPaths]) {
    await Deno.remove(dir, { recursive: true });
  }
  await rejects(() => loadSuite("/nonexistent/suite"), LedgerError);
});
