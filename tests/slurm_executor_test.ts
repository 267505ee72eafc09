/**
 * `run --executor slurm` on a real single-node Slurm cluster (slurmctld and
 * slurmd on this host, started by .ci/install_slurm.sh) with the real
 * Docker engine (issue 24, "Tests"):
 *
 * - the demo plan through Slurm gives the verdicts of the same plan run
 *   locally (same seed, same scripted providers);
 * - the node taken down mid-batch and an array task cancelled from outside
 *   become invalid `harness_error` rows naming Slurm's state, never the
 *   agent's failure; the runner killed afterwards and `--resume` complete
 *   the plan with no row lost or duplicated;
 * - Ctrl-C leaves no job and no container of the run;
 * - the upstream key, read on the node from a key file, is in no file of
 *   the shared directory, in no job script, and in no ledger row.
 *
 * Skipped when no engine or no cluster answers (failed under `CI=true`).
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { cli, cliCommand } from "./_cli_run.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { requireSlurmCluster } from "./_slurm_cluster.ts";
import { containersOf, freezeMiniPlan, miniRunArgs, twoSolverScripts } from "./_mini_plan.ts";
import { demoProviderScripts } from "../cli/demo.ts";
import { loadSuite } from "../inputs/suite.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { SAME_REQUEST_MS } from "../runner/stop_requests.ts";

const ENGINE = await requireDockerEngine("tests/slurm_executor_test.ts");
const CLUSTER = await requireSlurmCluster("tests/slurm_executor_test.ts");
const options = {
  ignore: !ENGINE.available || !CLUSTER.available,
  sanitizeResources: false,
  sanitizeOps: false,
};
const SEED = "5c0a1e24".repeat(8);

/** Runs `command` and returns its stdout; fails the test on a non-zero exit. */
async function sh(command: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder();
  if (!out.success) throw new Error(`${command} ${args.join(" ")}: ${text.decode(out.stderr)}`);
  return text.decode(out.stdout);
}

/** The ids of the jobs (array tasks) of run `runId` Slurm still has queued or running. */
async function jobsOf(runId: string): Promise<string[]> {
  const out = await sh("squeue", "--noheader", `--name=ledgerbench-${runId}`, "--format=%i %T");
  return out.split("\n").filter((line) => line.trim() !== "");
}

/** Waits until `check` holds, polling every 200 ms, for at most `seconds`. */
async function until(what: string, check: () => Promise<boolean>, seconds = 120): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** This host's Slurm node name (the single node of the test cluster). */
async function nodeName(): Promise<string> {
  return (await sh("sinfo", "--noheader", "--format=%N")).trim();
}

/** Brings `node` back from down (ReturnToService may already have), waiting until it takes jobs. */
async function restoreNode(node: string): Promise<void> {
  await until(`node "${node}" back in service`, async () => {
    const state = (await sh("sinfo", "--noheader", "--Node", `--nodes=${node}`, "--format=%T"))
      .trim();
    if (/^(down|drain)/.test(state)) {
      await new Deno.Command("scontrol", { args: ["update", `nodename=${node}`, "state=resume"] })
        .output();
    }
    return /^(idle|mixed|allocated)/.test(state);
  }, 60);
}

/** `episode_id → status/resolved` of a ledger read strictly (schema, duplicates, chain). */
async function verdicts(ledger: string): Promise<Record<string, string>> {
  const { rows } = await loadLedger(ledger);
  return Object.fromEntries(
    rows.map((row) => [row.episode_id, `${row.status}/${row.resolved}/${row.invalid_reason}`]),
  );
}

/** The command of the solver image, with `seconds` of sleep first (so a slot is caught running). */
async function slowSolverCommand(seconds: number): Promise<string> {
  const cmd = JSON.parse(
    await sh(
      "docker",
      "image",
      "inspect",
      "--format",
      "{{json .Config.Cmd}}",
      "ledgerbench/agent-solver:latest",
    ),
  ) as string[];
  return JSON.stringify(["/bin/sh", "-c", `sleep ${seconds}; exec "$0" "$@"`, ...cmd]);
}

Deno.test({
  name: "run --executor slurm gives the demo plan the verdicts of the local run",
  ...options,
}, async () => {
  await using dir = await tempDir();
  const demo = await cli(
    "demo",
    "--out",
    `${dir.path}/local`,
    "--work",
    `${dir.path}/work`,
    "--reports",
    `${dir.path}/reports`,
    "--parallel",
    "2",
  );
  equal(demo.code, 0, demo.stderr.slice(-2000));
  const suite = await loadSuite(`${dir.path}/work/suite`);
  const scripts = await demoProviderScripts(suite);
  await Deno.writeTextFile(`${dir.path}/strong.json`, JSON.stringify(scripts.strong));
  await Deno.writeTextFile(`${dir.path}/weak.json`, JSON.stringify(scripts.weak));
  await Deno.mkdir(`${dir.path}/slurm`);
  const run = await cli(
    "run",
    "--plan",
    `${dir.path}/local/plan.json`,
    "--suite",
    `${dir.path}/work/suite`,
    "--ledger",
    `${dir.path}/slurm/ledger.jsonl`,
    "--provider-script",
    `solver-strong=${dir.path}/strong.json`,
    "--provider-script",
    `solver-weak=${dir.path}/weak.json`,
    "--executor",
    "slurm",
    "--parallel",
    "4",
    "--json",
  );
  equal(run.code, 0, run.stderr.slice(-2000));
  equal(JSON.parse(run.stdout).appended, 14);
  deepEqual(
    await verdicts(`${dir.path}/slurm/ledger.jsonl`),
    await verdicts(`${dir.path}/local/ledger.jsonl`),
  );
  const { rows } = await loadLedger(`${dir.path}/slurm/ledger.jsonl`);
  const node = await nodeName();
  for (const row of rows) {
    match(row.notes ?? "", new RegExp(`ran as Slurm job \\d+_\\d+ on node "${node}"`));
  }
  deepEqual(await jobsOf("demo"), []);
});

Deno.test({
  name:
    "run --executor slurm records a downed node and a cancelled task as harness faults, and --resume completes the plan",
  ...options,
}, async () => {
  await using dir = await tempDir();
  const runId = "slurm-faults";
  const suite = await freezeMiniPlan(dir.path, {
    seed: SEED,
    runId,
    freezeArgs: [
      "--order-seed",
      "5",
      "--agent",
      "a=ledgerbench/agent-solver:latest",
      "--agent",
      "b=ledgerbench/agent-solver:latest",
      "--agent-command",
      `a=${await slowSolverCommand(8)}`,
      "--agent-command",
      `b=${await slowSolverCommand(8)}`,
      "--invalid-policy",
      "rerun-task",
      "--max-attempts",
      "3",
    ],
  });
  const scripts = await twoSolverScripts(dir.path, suite);
  const ledger = `${dir.path}/ledger.jsonl`;
  const args = miniRunArgs(dir.path, ledger, [
    ...scripts,
    "--executor",
    "slurm",
    "--parallel",
    "2",
  ]);
  const node = await nodeName();
  const first = cliCommand(args).spawn();
  try {
    // 1. The node goes down under a running slot.
    await until(
      "a running slot",
      async () => (await jobsOf(runId)).some((j) => j.endsWith("RUNNING")),
    );
    await sh("scontrol", "update", `nodename=${node}`, "state=down", "reason=ledgerbench-test");
    await until(
      "the downed slot's row",
      async () => (await rowsOf(ledger)).some((r) => /NODE_FAIL/.test(r.notes ?? "")),
    );
  } finally {
    await restoreNode(node);
  }
  // 2. An array task cancelled from outside.
  await until(
    "another running slot",
    async () => (await jobsOf(runId)).some((j) => j.endsWith("RUNNING")),
  );
  const running = (await jobsOf(runId)).find((j) => j.endsWith("RUNNING"))!.split(" ")[0];
  await sh("scancel", running);
  await until(
    "the cancelled slot's row",
    async () => (await rowsOf(ledger)).some((r) => /CANCELLED/.test(r.notes ?? "")),
  );
  // 3. The runner killed; a resume completes the plan.
  first.kill("SIGKILL");
  await first.output();
  const resume = await cli(...args, "--resume", "--json");
  equal(resume.code, 0, resume.stderr.slice(-2000));
  const { rows } = await loadLedger(ledger);
  const ids = rows.map((row) => row.episode_id);
  equal(new Set(ids).size, ids.length, "no episode id twice");
  const invalid = rows.filter((row) => row.status === "invalid");
  ok(invalid.length >= 2);
  for (const row of invalid) {
    equal(row.invalid_reason, "harness_error");
    equal(row.resolved, null);
  }
  ok(invalid.some((row) => /ended NODE_FAIL/.test(row.notes ?? "")), "a NODE_FAIL row");
  ok(invalid.some((row) => /ended CANCELLED/.test(row.notes ?? "")), "a CANCELLED row");
  // Every planned task of both agents ends in one scored row.
  const scored = rows.filter((row) => row.status === "scored").map((r) =>
    `${r.agent_id}/${r.task_id}`
  );
  equal(new Set(scored).size, scored.length, "one scored row per task");
  equal(scored.length, 2 * suite.manifest.tasks.length);
  deepEqual(await jobsOf(runId), []);
  await until(
    "no container of the run",
    () => Promise.resolve(containersOf(runId).length === 0),
    60,
  );
});

Deno.test(
  { name: "run --executor slurm: Ctrl-C leaves no job and no container", ...options },
  async () => {
    await using dir = await tempDir();
    const runId = "slurm-ctrl-c";
    const suite = await freezeMiniPlan(dir.path, {
      seed: SEED,
      runId,
      freezeArgs: [
        "--order-seed",
        "6",
        "--agent",
        "a=ledgerbench/agent-solver:latest",
        "--agent-command",
        `a=${await slowSolverCommand(30)}`,
      ],
    });
    await Deno.writeTextFile(
      `${dir.path}/a.json`,
      JSON.stringify(await suiteProviderScript(suite, { model: "m-a" })),
    );
    const ledger = `${dir.path}/ledger.jsonl`;
    const child = cliCommand(
      miniRunArgs(dir.path, ledger, [
        "--provider-script",
        `a=${dir.path}/a.json`,
        "--executor",
        "slurm",
        "--parallel",
        "2",
      ]),
    ).spawn();
    await until(
      "a running slot",
      async () => (await jobsOf(runId)).some((j) => j.endsWith("RUNNING")),
    );
    child.kill("SIGINT");
    // A second stop signal within SAME_REQUEST_MS of the first is the same keypress (a launcher's
    // forwarded copy); a deliberate second Ctrl-C comes after it.
    await new Promise((resolve) => setTimeout(resolve, SAME_REQUEST_MS + 500));
    child.kill("SIGINT");
    const out = await child.output();
    equal(out.code, 130, new TextDecoder().decode(out.stderr).slice(-2000));
    deepEqual(await jobsOf(runId), []);
    await until(
      "no container of the run",
      () => Promise.resolve(containersOf(runId).length === 0),
      60,
    );
    equal((await rowsOf(ledger)).length, 0, "the killed slots are not recorded");
  },
);

Deno.test({
  name:
    "run --executor slurm: the key read from a key file on the node is in no shared file, job script or row",
  ...options,
}, async () => {
  await using dir = await tempDir();
  const runId = "slurm-key";
  const suite = await freezeMiniPlan(dir.path, {
    seed: SEED,
    runId,
    freezeArgs: ["--order-seed", "7", "--agent", "a=ledgerbench/agent-solver:latest"],
  });
  const key = `sk-slurm-${crypto.randomUUID()}`;
  const provider = await startScriptedProvider(await suiteProviderScript(suite, { model: "m-a" }), {
    apiKey: key,
  });
  try {
    await Deno.writeTextFile(`${dir.path}/key`, key + "\n", { mode: 0o600 });
    const ledger = `${dir.path}/ledger.jsonl`;
    const run = await cliCommand(
      miniRunArgs(dir.path, ledger, [
        "--upstream",
        provider.baseUrl,
        "--executor",
        "slurm",
        "--json",
      ]),
      { env: { LEDGERBENCH_UPSTREAM_KEY: "", LEDGERBENCH_UPSTREAM_KEY_FILE: `${dir.path}/key` } },
    ).output();
    const stderr = new TextDecoder().decode(run.stderr);
    equal(run.code, 0, stderr.slice(-2000));
    const { rows } = await loadLedger(ledger);
    equal(rows.length, suite.manifest.tasks.length);
    ok(rows.every((row) => row.status === "scored" && row.resolved === true));
    // The shared directory, the ledger and the job scripts Slurm kept.
    const shared = await filesUnder(`${dir.path}/slurm`);
    ok(shared.length > 0);
    for (const file of [...shared, ledger]) {
      ok(!(await Deno.readTextFile(file)).includes(key), `the key is in "${file}"`);
    }
    const jobs = (await Deno.readTextFile(shared.find((file) => file.endsWith("/jobs"))!)).trim()
      .split("\n");
    for (const job of jobs) {
      const script = await sh("scontrol", "write", "batch_script", job, "-");
      ok(script.includes("ledgerbench: one episode slot"), script);
      ok(!script.includes(key));
      ok(!(await sh("scontrol", "show", "job", "-dd", job)).includes(key));
    }
  } finally {
    await provider.close();
  }
});

/** The rows of a ledger so far, read leniently (the run may be writing it). */
async function rowsOf(ledger: string): Promise<{ notes?: string | null }[]> {
  try {
    return (await Deno.readTextFile(ledger)).split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line)
    );
  } catch {
    return [];
  }
}

/** Every regular file below `dir`. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await filesUnder(path));
    else if (entry.isFile) found.push(path);
  }
  return found;
}

/** A temporary directory removed at the end of the test's scope. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "ledgerbench_slurm_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}
