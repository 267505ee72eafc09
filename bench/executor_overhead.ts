/**
 * The Slurm executor's added time per episode (issue 24: "`deno task bench`
 * reports the executor's added time per episode against `local` on the
 * same plan"): one plan over the mini suite (3 tasks, `agents` solver
 * agents against one scripted provider) run to a fresh ledger by
 * `runPlan` with the `local` executor and with the `slurm` one on the
 * cluster that answers here, alternately, one episode at a time, so that
 * each total is a sum of whole episodes. What the Slurm path adds per
 * episode: the job submission, the queue and node start, a new Deno process
 * on the node loading the runner, the node's checks (plan hash, suite hash,
 * image digests, hidden files), its own scripted provider, and the polling
 * of the shared directory (every 1 s by default, 250 ms here).
 *
 * Run alone: `deno run -A bench/executor_overhead.ts [rounds]`. Needs a
 * Docker engine and a Slurm cluster (.ci/install_slurm.sh).
 *
 * @module
 */
import { buildImages, VERIFIER_IMAGE } from "../runner/docker/build_images.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { slurmAvailable } from "../runner/slurm/slurm_available.ts";
import { slurmCommandsClient } from "../runner/executor/slurm_commands_client.ts";
import { MINI_SUITE } from "../suites/demo_suite.ts";
import type { BenchResult } from "./_measure.ts";

/** Options of {@link measureExecutorOverhead}. */
export interface ExecutorOverheadOptions {
  /** Rounds of (local, slurm) runs of the plan; default 2 (medians of per-episode time). */
  rounds?: number;
  /** Solver agents in the plan (3 episodes each); default 2. */
  agents?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Measures the time per episode of the plan under `local` and `slurm`
 * (see the module doc).
 *
 * @param options rounds and agents
 * @returns one result: slurm's time per episode against local's, and the added milliseconds
 * @throws {Error} when no engine or no cluster answers, or a run does not complete scored
 */
export async function measureExecutorOverhead(
  options: ExecutorOverheadOptions = {},
): Promise<BenchResult> {
  const rounds = options.rounds ?? 2;
  const engine = await dockerAvailable();
  if (!engine.available) throw new Error(`Cannot measure the executors: ${engine.reason}`);
  const cluster = await slurmAvailable();
  if (!cluster.available) throw new Error(`Cannot measure the Slurm executor: ${cluster.reason}`);
  const images = await buildImages();
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-bench-executor-" });
  try {
    const suite = await generateSuite(MINI_SUITE, {
      seed: "e8ec".padEnd(64, "0"),
      dir: `${dir}/suite`,
    });
    const script = await suiteProviderScript(suite);
    await Deno.writeTextFile(`${dir}/solver.json`, JSON.stringify(script));
    const key = crypto.randomUUID();
    const provider = await startScriptedProvider(script, { apiKey: key });
    const plan = freezePlan(suite, {
      plan_id: "bench-executor",
      created_at: new Date().toISOString(),
      order_seed: 1,
      price_table_id: "bench",
      runner_version: await runnerVersion(),
      verifier_image: VERIFIER_IMAGE,
      verifier_image_digest: images["ledgerbench/verifier"],
      agents: Array.from({ length: options.agents ?? 2 }, (_, i) => ({
        agent_id: `solver${i + 1}`,
        image: "ledgerbench/agent-solver:latest",
        image_digest: images["ledgerbench/agent-solver"],
      })),
    });
    const frozen = await writePlan(`${dir}/plan.json`, plan);
    const episodes = plan.tasks.length * plan.agents.length;
    const perEpisode = { local: [] as number[], slurm: [] as number[] };
    try {
      for (let round = 0; round < rounds; round++) {
        for (const kind of ["local", "slurm"] as const) {
          const ledgerDir = `${dir}/${kind}-${round}`;
          await Deno.mkdir(ledgerDir);
          const t0 = performance.now();
          const outcome = await runPlan({
            plan: frozen,
            suite: suite.dir,
            ledger: `${ledgerDir}/ledger.jsonl`,
            upstream: () => ({ baseUrl: provider.baseUrl, key }),
            executor: kind === "local" ? { kind } : {
              kind,
              dir: `${ledgerDir}/slurm`,
              client: slurmCommandsClient(),
              submit: { extraArgs: [] },
              upstreams: {
                upstream: [],
                provider_script: [`${dir}/solver.json`],
                expect_model: [],
                judge_upstream: null,
                judge_provider_script: null,
              },
              workerCommand: [
                Deno.execPath(),
                "run",
                "--allow-all",
                new URL("../cli/main.ts", import.meta.url).pathname,
                "slot",
              ],
              pollMs: 250,
            },
          });
          const ms = performance.now() - t0;
          if (!outcome.complete || outcome.appended.some((row) => row.resolved !== true)) {
            throw new Error(`The ${kind} run of the benchmark plan did not resolve every episode`);
          }
          perEpisode[kind].push(ms / episodes);
        }
      }
    } finally {
      await provider.close();
    }
    const local = median(perEpisode.local);
    const slurm = median(perEpisode.slurm);
    return {
      name: "slurm executor (per episode)",
      workload: `${episodes} solver episodes of the mini suite, one at a time, ${rounds} rounds ` +
        `alternating local and slurm (single-node cluster on this host)`,
      ms: slurm,
      baseline: { name: "local executor (per episode)", ms: local },
      ratio: slurm / local,
      target: null,
      peak_rss_mib: null,
      notes: [
        `added per episode: ${(slurm - local).toFixed(0)} ms ` +
        `(local ${local.toFixed(0)} ms, slurm ${
          slurm.toFixed(0)
        } ms; medians over ${rounds} rounds)`,
      ],
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const result = await measureExecutorOverhead({ rounds: Number(Deno.args[0] ?? 2) });
  console.log(JSON.stringify(result, null, 2));
}
