/**
 * Kill and resume on the real engine (issue 3: "A killed runner resumes with
 * `run --resume`: no episode lost, none duplicated, the chain intact"): the
 * CLI runner is SIGKILLed mid-batch, its last line is then torn as a write
 * cut short would leave it, and `run --resume` completes the batch.
 *
 * Skipped when no engine answers.
 *
 * @module
 */
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, cliCommand } from "./_cli_run.ts";
import { containersOf, freezeMiniPlan, miniRunArgs, twoSolverScripts } from "./_mini_plan.ts";

const ENGINE = await requireDockerEngine("tests/resume_test.ts");
const SEED = "7e5e7e5e".repeat(8);

async function completeLines(path: string): Promise<number> {
  try {
    const bytes = await Deno.readFile(path);
    return bytes.filter((b) => b === 10).length;
  } catch {
    return 0;
  }
}

Deno.test({
  name:
    "run --resume after SIGKILL and a torn last line: every episode once, chain intact, torn bytes kept aside",
  ignore: !ENGINE.available,
  async fn() {
    await buildImages();
    const dir = await Deno.makeTempDir({ prefix: "ledgerbench-resume-" });
    const runId = `resume-${crypto.randomUUID().slice(0, 8)}`;
    try {
      const suite = await freezeMiniPlan(dir, {
        seed: SEED,
        runId,
        freezeArgs: [
          "--order-seed",
          "3",
          "--agent",
          "a=ledgerbench/agent-solver:latest",
          "--agent",
          "b=ledgerbench/agent-solver:latest",
        ],
      });
      const scripts = await twoSolverScripts(dir, suite);
      await Deno.mkdir(`${dir}/run`);
      const ledger = `${dir}/run/ledger.jsonl`;
      const runArgs = miniRunArgs(dir, ledger, [
        "--parallel",
        "2",
        ...scripts,
      ]);

      // Kill the runner outright once two rows are on disk.
      const child = cliCommand(runArgs).spawn();
      const deadline = Date.now() + 120_000;
      while ((await completeLines(ledger)) < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.kill("SIGKILL");
      const status = await child.status;
      equal(status.signal, "SIGKILL");
      const killed = await loadLedger(ledger, { allowEmpty: true });
      ok(killed.valid_rows >= 2 && killed.valid_rows < 6, `rows at the kill: ${killed.valid_rows}`);

      // Tear the last row as a write cut short would: drop its newline and 20 bytes.
      const bytes = await Deno.readFile(ledger);
      const lastStart = bytes.lastIndexOf(10, bytes.length - 2) + 1;
      const tornRow = JSON.parse(
        new TextDecoder().decode(bytes.subarray(lastStart, bytes.length - 1)),
      );
      await Deno.writeFile(ledger, bytes.subarray(0, bytes.length - 21));

      // Without --resume the ledger is refused; with a wrong plan hash the plan is refused.
      const refused = await cli(...runArgs);
      equal(refused.code, 2);
      match(refused.stderr, /already holds rows; pass --resume/);
      const wrongPlan = await cli(...runArgs, "--resume", "--plan-sha256", "0".repeat(64));
      equal(wrongPlan.code, 2);
      match(
        wrongPlan.stderr,
        /its SHA-256 is [0-9a-f]{64}, but --plan-sha256 publishes 0{64}: the plan was changed after it was frozen/,
      );

      const resumed = await cli(...runArgs, "--resume");
      equal(resumed.code, 0, resumed.stderr);
      match(resumed.stderr, /ended in a torn line .*moved to/);
      match(resumed.stdout, /torn final line \(\d+ bytes\) moved to/);

      const final = await loadLedger(ledger); // strict: schema, duplicates, hash chain
      equal(final.valid_rows, 6);
      const expected = ["a", "b"].flatMap((agent) =>
        suite.manifest.tasks.map((t) => `${runId}/${agent}/${t.task_id}/1`)
      );
      deepEqual(final.rows.map((r) => r.episode_id).sort(), expected.sort());
      const rerun = final.rows.find((r) => r.episode_id === tornRow.episode_id)!;
      match(rerun.notes, /re-run after its torn ledger line was moved to/);
      const sidecar = (await Deno.readTextFile(`${ledger}.torn.jsonl`)).trim().split("\n").map((
        l,
      ) => JSON.parse(l));
      equal(sidecar.length, 1);
      equal(sidecar[0].episode_id, tornRow.episode_id);
      notEqual(sidecar[0].text.length, 0);
      // Containers left by the killed runner were removed; the resumed run removed its own.
      deepEqual(containersOf(runId), []);
    } finally {
      for (const id of containersOf(runId)) {
        new Deno.Command("docker", { args: ["rm", "-f", id], stdout: "null", stderr: "null" })
          .outputSync();
      }
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
