/**
 * The `local` executor: each episode in this machine's sandbox (the Docker
 * engine, or the host under the operator's explicit `--unsandboxed`),
 * through the one episode skeleton (run_episode.ts). The `run` process uses
 * it by default, and each node of a cluster uses it for the slot it was
 * given (run_slot.ts), so an episode runs the same way wherever it runs.
 *
 * @module
 */
import type { Plan, PlannedAgent } from "../../analysis/schema/records.ts";
import type { ResolvedEnvironment } from "../environment_check.ts";
import type { EpisodeExecutor } from "../run_batch.ts";
import { createEpisodeExecutor } from "../run_episode.ts";
import type { Upstream } from "../relay/upstream.ts";
import { createDockerSandbox } from "../sandbox/docker_sandbox.ts";
import { createHostSandbox } from "../sandbox/host_sandbox.ts";

/** Options of {@link createLocalExecutor}. */
export interface LocalExecutorOptions {
  plan: Plan;
  /** SHA-256 of the plan file, recorded in every row. */
  planSha256: string;
  /** What `checkEnvironment` resolved on this machine. */
  environment: ResolvedEnvironment;
  /** The artifact store's root. */
  artifactsRoot: string;
  /** The upstream of each agent's model calls. */
  upstream: (agent: PlannedAgent) => Upstream;
  /** The upstream of the plan's LLM judge, when the suite has a judged task. */
  judgeUpstream?: Upstream;
  /** `--unsandboxed`: agent id → argv of its host command; absent: Docker. */
  unsandboxed?: Record<string, string[]>;
  /**
   * The run's frozen digests of the hidden verifier files; default the ones
   * `environment` computed here (a node gets the run's, so a node whose
   * copy differs is caught by the verifier's check).
   */
  verifierDigests?: Record<string, string>;
  /** This runner's temporary directory. */
  tempDir: string;
}

/**
 * Builds the sandbox the options name and the episode executor over it.
 *
 * @param options plan, resolved environment, stores, upstreams
 * @returns the executor for `runBatch`
 */
export function createLocalExecutor(options: LocalExecutorOptions): EpisodeExecutor {
  const { environment, unsandboxed } = options;
  const sandbox = unsandboxed !== undefined
    ? createHostSandbox({ commands: unsandboxed, tempDir: options.tempDir })
    : createDockerSandbox({
      agentImages: environment.agentImages,
      // Resolved: checkEnvironment refuses a sandboxed run without it.
      verifierImage: environment.verifierImage!,
      tasks: environment.taskSettings,
      agentBundles: environment.agentBundles,
      verifierKit: environment.verifierKit ?? undefined,
      tempDir: options.tempDir,
      // Every task's tests finished within their timeout on its oracle at the check.
      oracleFinishedInTime: options.plan.suite_check?.state === "passed",
    });
  return createEpisodeExecutor(sandbox, {
    plan: options.plan,
    planSha256: options.planSha256,
    suite: environment.suite,
    artifactsRoot: options.artifactsRoot,
    upstream: options.upstream,
    judgeUpstream: options.judgeUpstream,
    runnerVersion: environment.runnerVersion,
    verifierDigests: options.verifierDigests ?? environment.verifierDigests,
    tempDir: options.tempDir,
  });
}
