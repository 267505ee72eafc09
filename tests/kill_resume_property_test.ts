/**
 * Kill and resume as a property (issue 9, "Done when"): the CLI runner is
 * SIGKILLed at 20 random points (seeded fractions of the time an
 * uninterrupted run takes here) over ten ledgers of the same plan: the run,
 * then its first `run --resume`, are each killed, and a last `--resume`
 * completes each ledger.
 * Whatever the kill points, every ledger ends with every planned episode
 * exactly once, the hash chain intact (strict read), the same verdicts as an
 * uninterrupted run, no container of the run left, no directory of a dead
 * runner left (temporary or socket directory), and no `.staging-*` entry
 * anywhere in the artifact store (issue 24: one was left in one trial).
 *
 * Skipped when no engine answers.
 *
 * @module
 */
import { deepEqual, equal } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { seededRandom } from "../analysis/seeded_random.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { cliCommand } from "./_cli_run.ts";
import { containersOf, freezeMiniPlan, miniRunArgs, twoSolverScripts } from "./_mini_plan.ts";
import { requireDockerEngine } from "./_docker_engine.ts";

const ENGINE = await requireDockerEngine("tests/kill_resume_property_test.ts");
const SEED = "4b111e55".repeat(8);
const LEDGERS = 10;
const KILLS_PER_LEDGER = 2;

/** Complete lines of a ledger (0 when it does not exist yet). */
async function completeRows(path: string): Promise<number> {
  try {
    return (await Deno.readFile(path)).filter((byte) => byte === 10).length;
  } catch {
    return 0;
  }
}

/** The `.staging-*` entries anywhere under `dir`. */
function stagedUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.name.startsWith(".staging-")) found.push(path);
    else if (entry.isDirectory) found.push(...stagedUnder(path));
  }
  return found;
}

/** `episode_id → resolved` of a ledger read strictly (schema, duplicates, hash chain). */
async function verdicts(ledger: string): Promise<Record<string, boolean | null>> {
  const { rows } = await loadLedger(ledger);
  return Object.fromEntries(rows.map((row) => [row.episode_id, row.resolved]));
}

Deno.test({
  name: "run --resume after 20 seeded random SIGKILLs: nothing lost, duplicated or changed",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-kills-" });
    // The runners' own temp root: private, so that what dead runners leave is countable.
    const tmp = await Deno.makeTempDir({ dir: "/tmp", prefix: "kr" });
    const env = { TMPDIR: tmp };
    const runId = `kills-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const suite = await freezeMiniPlan(dir, {
        seed: SEED,
        runId,
        freezeArgs: [
          "--agent",
          "a=ledgerbench/agent-solver:latest",
          "--agent",
          "b=ledgerbench/agent-solver:latest",
        ],
      });
      const scripts = await twoSolverScripts(dir, suite);
      const runArgs = (ledger: string) =>
        miniRunArgs(dir, ledger, [
          "--parallel",
          "2",
          ...scripts,
        ]);

      // The reference: one uninterrupted run.
      const reference = `${dir}/reference.jsonl`;
      const t0 = Date.now();
      const clean = await cliCommand(runArgs(reference), { env }).output();
      // Kill points fall within the time an uninterrupted run takes on this machine.
      const span = Math.max(1000, Date.now() - t0);
      equal(clean.code, 0, new TextDecoder().decode(clean.stderr));
      const expected = await verdicts(reference);
      equal(Object.keys(expected).length, 2 * suite.manifest.tasks.length);

      const random = seededRandom(SEED);
      const killedAfterMs: number[] = [];
      const pids: number[] = [];
      // How the kills landed (reported, not asserted: it depends on the machine's speed).
      const landed = { runner_killed: 0, rows_at_kills: [] as number[] };
      for (let l = 0; l < LEDGERS; l++) {
        const ledger = `${dir}/ledger-${l}.jsonl`;
        for (let k = 0; k < KILLS_PER_LEDGER; k++) {
          // From the runner's start (before the first episode) to about the batch's end.
          const delay = 100 + Math.floor(random() * span);
          killedAfterMs.push(delay);
          const args = [...runArgs(ledger), ...(k === 0 ? [] : ["--resume"])];
          const child = cliCommand(args, { env }).spawn();
          pids.push(child.pid);
          await new Promise((resolve) => setTimeout(resolve, delay));
          try {
            child.kill("SIGKILL");
          } catch {
            // it had already finished
          }
          const status = await child.output();
          if (status.signal === "SIGKILL") landed.runner_killed++;
          landed.rows_at_kills.push(await completeRows(ledger));
        }
        const last = cliCommand([...runArgs(ledger), "--resume"], { env }).spawn();
        pids.push(last.pid);
        const finished = await last.output();
        equal(finished.code, 0, new TextDecoder().decode(finished.stderr));
        deepEqual(await verdicts(ledger), expected, `ledger ${l}`);
      }

      equal(killedAfterMs.length, 20);
      console.log(
        `kills: ${JSON.stringify({ span_ms: span, delays_ms: killedAfterMs, ...landed })}`,
      );
      deepEqual(containersOf(runId), []);
      // The last resume of each ledger swept every dead runner's directory and removed its own.
      deepEqual([...Deno.readDirSync(tmp)].map((entry) => entry.name), []);
      deepEqual(
        [...Deno.readDirSync("/tmp")].map((entry) => entry.name).filter((name) =>
          pids.some((pid) => name.startsWith(`ledgerbench-sockets-${pid}-`))
        ),
        [],
      );
      // Whatever a killed runner had staged in the store, the runners after it removed.
      deepEqual(stagedUnder(`${dir}/artifacts`), []);
    } finally {
      for (const id of containersOf(runId)) {
        new Deno.Command("docker", { args: ["rm", "-f", id], stdout: "null", stderr: "null" })
          .outputSync();
      }
      for (const path of [dir, tmp]) {
        await new Deno.Command("chmod", { args: ["-R", "u+rwX", path] }).output();
        await Deno.remove(path, { recursive: true });
      }
    }
  },
});
