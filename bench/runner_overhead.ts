/**
 * Runner benchmarks (issue 3, "Benchmarks"): the per-episode harness overhead
 * against a bare `docker run --rm` of the same command (goal: at most 1.5×),
 * and throughput at `--parallel` 1, 2 and 4.
 *
 * Run alone: `deno run -A bench/runner_overhead.ts [repetitions]` prints the
 * figures as JSON. Needs a Docker engine; builds the images offline first.
 *
 * @module
 */
import { Plan } from "../analysis/schema/records.ts";
import { buildImages, VERIFIER_IMAGE } from "../runner/docker/build_images.ts";
import { dockerAvailable } from "../runner/docker/docker_available.ts";
import { freezePlan, writePlan } from "../runner/freeze_plan.ts";
import { generateSuite } from "../runner/generate_suite.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import { createEpisodeExecutor } from "../runner/run_episode.ts";
import { createDockerSandbox } from "../runner/sandbox/docker_sandbox.ts";
import { runPlan } from "../runner/run_plan.ts";
import { runnerVersion } from "../runner/runner_version.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { digestTree } from "../runner/sandbox/digest_tree.ts";
import { taskPaths } from "../analysis/schema/suite_manifest.ts";
import { MINI_SUITE } from "../suites/demo_suite.ts";
import type { BenchResult } from "./_measure.ts";

/** Options of {@link measureRunnerOverhead}. */
export interface RunnerOverheadOptions {
  /** Timed repetitions of the bare run and of the episode (default 5; medians reported). */
  repetitions?: number;
  /** Parallelism levels of the throughput runs (default [1, 2, 4]). */
  parallel?: number[];
  /** Episodes per throughput run (default 8: 4 tasks' worth of 2 agents on the mini suite, repeated). */
  agents?: number;
}

/** The figures, in milliseconds unless named otherwise. */
export interface RunnerOverhead {
  repetitions: number;
  /** Median of `docker run --rm -v <workspace>:/workspace ledgerbench/agent-nocall`. */
  bare_docker_run_ms: number;
  /**
   * Median of one runner episode of the same agent: relay, forwarder
   * (listener in the container's namespace), candidate with seed 000's
   * flags, network isolation check, workspace copy, artifact
   * store, evidence gate and row (the agent makes no call, so no verifier).
   */
  episode_ms: number;
  /**
   * episode_ms / bare_docker_run_ms (goal ≤ 1.5). It can be below 1: the
   * runner creates the candidate with the Engine API's `NetworkDisabled`
   * beside `--network none` (runc's own empty namespace, no libnetwork
   * sandbox), while the bare run's default network still gets a libnetwork
   * sandbox from the engine; the bare command itself is left as it is.
   */
  overhead_ratio: number;
  /** Median of a full solver episode: one model call and the verifier container. */
  full_episode_ms: number;
  /** One entry per parallelism level. */
  throughput: Array<
    { parallel: number; episodes: number; seconds: number; episodes_per_minute: number }
  >;
  /** The same figures as `bench/_measure.ts` records. */
  results: BenchResult[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * Measures the runner's overhead and throughput on the local engine.
 *
 * Method: the bare run and the runner episode alternate, repetition by
 * repetition, so drift hits both alike; each figure is the median. The
 * throughput runs freeze a plan over the mini suite (3 tasks) with
 * `agents` solver agents against a scripted provider and time `runPlan` at
 * each parallelism level (a fresh ledger each time). Cost: about
 * 2 × repetitions + levels × 3 × agents container runs.
 *
 * @param options repetitions, parallelism levels, agents per throughput run
 * @returns the figures
 * @throws {Error} when no Docker engine is reachable
 */
export async function measureRunnerOverhead(
  options: RunnerOverheadOptions = {},
): Promise<RunnerOverhead> {
  const repetitions = options.repetitions ?? 5;
  const levels = options.parallel ?? [1, 2, 4];
  const agentCount = options.agents ?? 4;
  const engine = await dockerAvailable();
  if (!engine.available) throw new Error(`Cannot measure the runner: ${engine.reason}`);
  const images = await buildImages();
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-bench-" });
  const key = crypto.randomUUID();
  const suite = await generateSuite(MINI_SUITE, {
    seed: "be7c4".padEnd(64, "0"),
    dir: `${dir}/suite`,
  });
  const provider = await startScriptedProvider(await suiteProviderScript(suite), { apiKey: key });
  try {
    const version = await runnerVersion();
    const agents = Array.from({ length: agentCount }, (_, i) => ({
      agent_id: `solver${i + 1}`,
      image: "ledgerbench/agent-solver:latest",
      image_digest: images["ledgerbench/agent-solver"],
    }));
    const base = {
      created_at: new Date().toISOString(),
      order_seed: 1,
      price_table_id: "bench",
      runner_version: version,
      verifier_image: VERIFIER_IMAGE,
      verifier_image_digest: images["ledgerbench/verifier"],
    };
    const plan = freezePlan(suite, {
      ...base,
      plan_id: "bench",
      agents: [
        {
          agent_id: "nocall",
          image: "ledgerbench/agent-nocall:latest",
          image_digest: images["ledgerbench/agent-nocall"],
        },
        {
          agent_id: "solver",
          image: "ledgerbench/agent-solver:latest",
          image_digest: images["ledgerbench/agent-solver"],
        },
      ],
    });
    const verifierDigests: Record<string, string> = {};
    for (const task of suite.manifest.tasks) {
      verifierDigests[task.task_id] =
        (await digestTree(taskPaths(suite.dir, task.task_id).verifier)).digest;
    }
    // The runner's own Docker path (run_plan.ts): the skeleton in the Docker sandbox.
    const sandbox = createDockerSandbox({
      agentImages: {
        nocall: images["ledgerbench/agent-nocall"],
        solver: images["ledgerbench/agent-solver"],
      },
      verifierImage: images["ledgerbench/verifier"],
    });
    const execute = createEpisodeExecutor(sandbox, {
      plan: Plan.parse(plan),
      planSha256: "0".repeat(64),
      suite,
      artifactsRoot: `${dir}/artifacts`,
      upstream: () => ({ baseUrl: provider.baseUrl, key }),
      runnerVersion: version,
      verifierDigests,
    });
    const task = suite.manifest.tasks[0];
    const workspace = taskPaths(suite.dir, task.task_id).workspace;
    const episode = (agent: string, i: number) => ({
      run_id: "bench",
      agent_id: agent,
      task_id: task.task_id,
      lane: task.lane,
      position: 0,
      attempt: i + 1,
      episode_id: `bench/${agent}/${task.task_id}/${i + 1}`,
    });
    const signal = new AbortController().signal;
    const bare: number[] = [];
    const runner: number[] = [];
    const full: number[] = [];
    for (let i = -1; i < repetitions; i++) {
      const t0 = performance.now();
      const out = await new Deno.Command("docker", {
        args: [
          "run",
          "--rm",
          "-v",
          `${workspace}:/workspace:ro`,
          "ledgerbench/agent-nocall:latest",
        ],
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!out.success) {
        throw new Error(`Cannot run the bare container: ${new TextDecoder().decode(out.stderr)}`);
      }
      const t1 = performance.now();
      const row = await execute(episode("nocall", i + 1), { notes: [], signal });
      const t2 = performance.now();
      const solved = await execute(episode("solver", i + 1), { notes: [], signal });
      const t3 = performance.now();
      if (row.status !== "scored" || solved.resolved !== true) {
        throw new Error(`Benchmark episode went wrong: ${row.notes} / ${solved.notes}`);
      }
      if (i >= 0) { // the first round warms caches and is not counted
        bare.push(t1 - t0);
        runner.push(t2 - t1);
        full.push(t3 - t2);
      }
    }

    const throughput: RunnerOverhead["throughput"] = [];
    for (const parallel of levels) {
      const runDir = `${dir}/p${parallel}`;
      await Deno.mkdir(runDir);
      const frozen = await writePlan(
        `${runDir}/plan.json`,
        freezePlan(suite, { ...base, plan_id: `p${parallel}`, agents }),
      );
      const t0 = performance.now();
      const outcome = await runPlan({
        plan: frozen,
        suite: suite.dir,
        ledger: `${runDir}/ledger.jsonl`,
        parallel,
        upstream: () => ({ baseUrl: provider.baseUrl, key }),
      });
      const seconds = (performance.now() - t0) / 1000;
      const episodes = outcome.appended.length;
      throughput.push({
        parallel,
        episodes,
        seconds: round(seconds),
        episodes_per_minute: round((episodes / seconds) * 60),
      });
    }
    const bareMs = round(median(bare));
    const episodeMs = round(median(runner));
    const ratio = Math.round((episodeMs / bareMs) * 100) / 100;
    const serial = throughput[0];
    return {
      repetitions,
      bare_docker_run_ms: bareMs,
      episode_ms: episodeMs,
      overhead_ratio: ratio,
      full_episode_ms: round(median(full)),
      throughput,
      results: [
        {
          name: "runner episode",
          workload: `agent-nocall, median of ${repetitions}`,
          ms: episodeMs,
          baseline: { name: "docker run --rm", ms: bareMs },
          ratio,
          target: "≤ 1.5",
          peak_rss_mib: null,
          notes: [
            `full solver episode (one model call + verifier container): ${round(median(full))} ms`,
          ],
        },
        ...throughput.slice(1).map((t) => ({
          name: `throughput --parallel ${t.parallel}`,
          workload: `${t.episodes} solver episodes on the mini suite`,
          ms: round(t.seconds * 1000),
          baseline: { name: "--parallel 1", ms: round(serial.seconds * 1000) },
          ratio: Math.round((t.seconds / serial.seconds) * 100) / 100,
          target: null,
          peak_rss_mib: null,
          notes: [
            `${t.episodes_per_minute} episodes/min vs ${serial.episodes_per_minute} at --parallel 1`,
          ],
        })),
      ],
    };
  } finally {
    await provider.close();
    await new Deno.Command("chmod", { args: ["-R", "u+rwX", dir] }).output();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const repetitions = Deno.args[0] === undefined ? 5 : Number(Deno.args[0]);
  const figures = await measureRunnerOverhead({ repetitions });
  console.log(JSON.stringify({ ...figures, results: undefined }, null, 2));
}
