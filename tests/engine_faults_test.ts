/**
 * The runner under engine and operator faults on the real engine (issue 9,
 * items 1, 2 and 8):
 * - a second engine, started by this test, is SIGKILLed while two episodes
 *   run and restarted 5 s later: the runner finishes, the two in-flight
 *   episodes are `invalid harness_error`, the batch halts, nothing else is
 *   written;
 * - a second SIGINT, and a SIGTERM, abort the running episodes: they are
 *   never written, and `run --resume` runs them.
 *
 * Skipped when no engine answers.
 *
 * @module
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cliCommand } from "./_cli_run.ts";
import { freezeMiniPlan, miniRunArgs } from "./_mini_plan.ts";
import { docker, secondEngineSupported, startSecondEngine } from "./_second_engine.ts";
import { dockerSocketPath } from "../runner/docker/docker_client.ts";
import { SAME_REQUEST_MS } from "../runner/stop_requests.ts";

const ENGINE = await requireDockerEngine("tests/engine_faults_test.ts");
const SEED = "e9e9e9e9".repeat(8);
const SOLVER = "ledgerbench/agent-solver:latest";
const VERIFIER = "ledgerbench/verifier:latest";
const SHARED = `unix://${dockerSocketPath()}`;

/** A frozen mini plan for agents a and b whose candidates sleep; returns the run's argv. */
async function freezeSleepers(
  dir: string,
  runId: string,
  options: { sleepS: number; wallMs: number },
): Promise<string[]> {
  const command = JSON.stringify(["sleep", String(options.sleepS)]);
  await freezeMiniPlan(dir, {
    seed: SEED,
    runId,
    freezeArgs: [
      "--order-seed",
      "5",
      "--wall-ms",
      String(options.wallMs),
      "--agent",
      `a=${SOLVER}`,
      "--agent",
      `b=${SOLVER}`,
      "--agent-command",
      `a=${command}`,
      "--agent-command",
      `b=${command}`,
    ],
  });
  await Deno.writeTextFile(`${dir}/script.json`, JSON.stringify({ rules: [] }));
  await Deno.mkdir(`${dir}/run`);
  return miniRunArgs(dir, `${dir}/run/ledger.jsonl`, [
    "--parallel",
    "2",
    "--provider-script",
    `${dir}/script.json`,
  ]);
}

/** Ids of the containers of run `runId` on the engine at `host`, running ones only when asked. */
function containersOf(host: string, runId: string, running = false): string[] {
  const out = docker(host, [
    "ps",
    "-q",
    ...(running ? [] : ["-a"]),
    "--filter",
    `label=ledgerbench.run=${runId}`,
  ]);
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line !== "");
}

async function until(what: string, ms: number, done: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function rowsOf(ledger: string) {
  try {
    await Deno.stat(ledger);
  } catch (error) {
    // a run that recorded nothing leaves no ledger: the writer creates it with its first row
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return (await loadLedger(ledger, { allowEmpty: true })).rows;
}

Deno.test({
  name:
    "run: an engine SIGKILLed under two episodes and restarted 5 s later records both as harness_error and halts",
  ignore: !ENGINE.available || !secondEngineSupported(),
  async fn() {
    await buildImages();
    const engine = await startSecondEngine([SOLVER, VERIFIER]);
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-engine-kill-" });
    const runId = `kill-${crypto.randomUUID().slice(0, 8)}`;
    let child: Deno.ChildProcess | null = null;
    try {
      // Candidates sleep 60 s under a 10 s wall cap, which falls after the restart: the waits
      // sent to the killed engine are never answered (before the fix the runner hung for good).
      const args = await freezeSleepers(dir, runId, { sleepS: 60, wallMs: 10_000 });
      child = cliCommand(args, { env: { DOCKER_HOST: engine.host } }).spawn();
      const output = child.output();
      await until(
        "two running candidates",
        60_000,
        () => containersOf(engine.host, runId, true).length === 2,
      );
      await new Promise((resolve) => setTimeout(resolve, 500)); // both past their gates
      await engine.kill();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await engine.restart();
      const timer = setTimeout(() => child?.kill("SIGKILL"), 90_000);
      const result = await output;
      clearTimeout(timer);
      const stderr = new TextDecoder().decode(result.stderr);
      equal(result.signal, null, `the runner hung: ${stderr}`);
      equal(result.code, 3, stderr);
      match(new TextDecoder().decode(result.stdout), /halted: the batch halted at invalid episode/);
      const rows = await rowsOf(`${dir}/run/ledger.jsonl`); // strict: schema, duplicates, chain
      equal(rows.length, 2, stderr);
      for (const row of rows) {
        deepEqual([row.status, row.invalid_reason, row.resolved], [
          "invalid",
          "harness_error",
          null,
        ]);
        // 'harness error: Cannot wait for container "af1f7d454d66": the engine did not tell the
        // exit of its exec'd process within 30000 ms: ...' (the candidate is exec'd in its session)
        match(row.notes ?? "", /^harness error: Cannot \w+ (for )?container "[0-9a-f]{12}": /);
      }
      deepEqual(containersOf(engine.host, runId), []);
    } finally {
      try {
        child?.kill("SIGKILL");
        await child?.status;
      } catch {
        // it exited on its own
      }
      await engine.stop();
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * Runs the sleepers' batch on the shared engine, sends `signals` (200 ms
 * apart) once two candidates run, and returns the exit, the output and the
 * ledger's episode ids; checks that no container or temporary directory is
 * left. Then resumes and checks that the batch completes with every episode
 * once, at attempt 1.
 */
async function signalAndResume(signals: Deno.Signal[]) {
  const dir = await Deno.makeTempDir({ prefix: "lbs-" });
  const runId = `sig-${crypto.randomUUID().slice(0, 8)}`;
  try {
    const args = await freezeSleepers(dir, runId, { sleepS: 5, wallMs: 30_000 });
    await Deno.mkdir(`${dir}/t`);
    const env = { TMPDIR: `${dir}/t` };
    const child = cliCommand(args, { env }).spawn();
    const output = child.output();
    try {
      await until(
        "two running candidates",
        60_000,
        () => containersOf(SHARED, runId, true).length === 2,
      );
    } catch (error) {
      try {
        child.kill("SIGKILL");
      } catch {
        // it exited already
      }
      const failed = await output;
      throw new Error(`${(error as Error).message}: ${new TextDecoder().decode(failed.stderr)}`);
    }
    for (const [i, signal] of signals.entries()) {
      // A deliberate second signal: past the window in which a copy of the first is the same
      // request (runner/stop_requests.ts).
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, SAME_REQUEST_MS + 200));
      child.kill(signal);
    }
    const result = await output;
    const stopped = {
      code: result.code,
      signal: result.signal,
      stdout: new TextDecoder().decode(result.stdout),
      stderr: new TextDecoder().decode(result.stderr),
      rows: (await rowsOf(`${dir}/run/ledger.jsonl`)).map((r) => ({
        id: r.episode_id,
        status: r.status,
        resolved: r.resolved,
        stop: r.stop_reason,
      })),
      containers: containersOf(SHARED, runId),
      tempDirs: [...Deno.readDirSync(`${dir}/t`)].map((e) => e.name),
    };
    const resumed = await cliCommand([...args, "--resume"], { env }).output();
    const rows = await rowsOf(`${dir}/run/ledger.jsonl`); // strict: schema, duplicates, chain
    return {
      stopped,
      resumed: { code: resumed.code, stderr: new TextDecoder().decode(resumed.stderr) },
      rows,
      containers: containersOf(SHARED, runId),
    };
  } finally {
    for (const id of containersOf(SHARED, runId)) docker(SHARED, ["rm", "-f", id]);
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Checks the resumed batch: 6 rows, each episode once at attempt 1, none left behind. */
function checkResumed(outcome: Awaited<ReturnType<typeof signalAndResume>>) {
  equal(outcome.resumed.code, 0, outcome.resumed.stderr);
  equal(outcome.rows.length, 6);
  equal(new Set(outcome.rows.map((r) => r.episode_id)).size, 6);
  deepEqual(outcome.rows.map((r) => r.attempt), [1, 1, 1, 1, 1, 1]);
  deepEqual(outcome.containers, []);
}

Deno.test({
  name:
    "run: a second SIGINT kills the running episodes without recording them, and --resume runs them",
  ignore: !ENGINE.available,
  async fn() {
    await buildImages();
    const outcome = await signalAndResume(["SIGINT", "SIGINT"]);
    const { stopped } = outcome;
    equal(stopped.code, 130, stopped.stderr);
    deepEqual(stopped.rows, []);
    const killed =
      /2 running episode\(s\) killed, not recorded \(--resume runs them\): (\S+), (\S+)$/m
        .exec(stopped.stdout);
    ok(killed, stopped.stdout);
    match(stopped.stderr, /SIGINT: killing running episodes \(not recorded; --resume runs them\)/);
    deepEqual(stopped.containers, []);
    deepEqual(stopped.tempDirs, []);
    checkResumed(outcome);
    for (const id of killed.slice(1, 3)) {
      const row = outcome.rows.find((r) => r.episode_id === id);
      deepEqual([row?.status, row?.stop_reason], ["scored", "completed"]); // a full run of `sleep 5`
    }
  },
});

Deno.test({
  name:
    "run: SIGTERM stops starting episodes, records the running ones, leaves nothing behind, and exits 143",
  ignore: !ENGINE.available,
  async fn() {
    await buildImages();
    const outcome = await signalAndResume(["SIGTERM"]);
    const { stopped } = outcome;
    equal(stopped.code, 143, stopped.stderr);
    equal(stopped.signal, null);
    match(stopped.stdout, /interrupted: resume with --resume/);
    match(stopped.stderr, /SIGTERM: no new episode starts; running ones finish and are recorded/);
    equal(stopped.rows.length, 2);
    for (const row of stopped.rows) deepEqual([row.status, row.stop], ["scored", "completed"]);
    deepEqual(stopped.containers, []);
    deepEqual(stopped.tempDirs, []);
    checkResumed(outcome);
  },
});
