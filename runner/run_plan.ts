/**
 * Everything `ledgerbench run` does, as one function the CLI, the demo, the
 * tests and the benchmark share: load the frozen plan (hash checked), check
 * the environment against it (runner version, suite hash, image digests),
 * build the episode executor, and run or resume the batch.
 *
 * @module
 */
import type { FrozenPlan } from "./freeze_plan.ts";
import { checkEnvironment, imageDriftCheck, type ImageResolver } from "./environment_check.ts";
import { type BatchOutcome, runBatch } from "./run_batch.ts";
import { createDockerExecutor, type Upstream } from "./run_episode.ts";
import { createHostExecutor } from "./run_host_episode.ts";
import type { PlannedAgent } from "../analysis/schema.ts";
import type { ProgressSink } from "./progress.ts";
import { runnerVersion } from "./runner_version.ts";
import { loadSuite } from "../inputs/suite.ts";
import { removeOrphans } from "./remove_orphans.ts";
import { acquireLedgerLock } from "./ledger_lock.ts";
import { createRunTempDir, removeDeadRunnerTempDirs } from "./run_temp_dir.ts";

/** Options of {@link runPlan}. */
export interface RunPlanOptions {
  /**
   * The frozen plan, loaded once by the caller with its hash checked
   * (`loadPlan(path, { frozen: true })` in inputs/plan.ts).
   */
  plan: FrozenPlan;
  /** The suite directory the plan was frozen on. */
  suite: string;
  /** The ledger file. */
  ledger: string;
  /** Run id (first part of every episode id); default the plan id. */
  runId?: string;
  resume?: boolean;
  /** Episodes at once; default 1. */
  parallel?: number;
  /** Artifact store root; default `<ledger directory>/artifacts`. */
  artifacts?: string;
  /** The upstream of each agent's model calls. */
  upstream: (agent: PlannedAgent) => Upstream;
  progress?: ProgressSink;
  /** Stops starting episodes (running ones finish and are recorded). */
  signal?: AbortSignal;
  /** Kills running episodes too; their rows are never written (a resume runs them). */
  hardSignal?: AbortSignal;
  /**
   * Run candidates as host processes instead of containers: only when the
   * operator asked explicitly. Every row then records `sandbox: "unsandboxed"`.
   * Maps agent id → argv of the host command.
   */
  unsandboxed?: Record<string, string[]>;
  /** Image lookup (tests); default the engine's. */
  resolveImage?: ImageResolver;
  /**
   * Where this runner's temporary directory goes (per-episode directories
   * are made inside it); default `TMPDIR` or `/tmp`.
   */
  tempDir?: string;
}

/** The batch outcome with the plan it ran. */
export interface RunPlanOutcome extends BatchOutcome {
  plan: FrozenPlan;
  runId: string;
}

/**
 * Loads, checks and runs a frozen plan, holding the ledger's lock
 * (ledger_lock.ts) throughout; first removes what runners that are gone left
 * in the temporary directory (run_temp_dir.ts).
 *
 * @param options plan, suite, ledger, upstreams and run settings
 * @returns how the batch ended
 * @throws {LedgerLockedError} when another runner holds the ledger's lock
 * @throws {Error} when the ledger's directory does not exist, the environment differs from the plan
 *   (`EnvironmentMismatchError`), the ledger belongs to another run, or a
 *   resumed batch had halted (`BatchHaltedError`)
 */
export async function runPlan(options: RunPlanOptions): Promise<RunPlanOutcome> {
  await using _lock = await acquireLedgerLock(options.ledger);
  const warn = options.progress ? (m: string) => options.progress!.note(m) : undefined;
  const swept = await removeDeadRunnerTempDirs(options.tempDir, warn);
  if (swept.length > 0) {
    options.progress?.note(
      `removed ${swept.length} temporary director${
        swept.length === 1 ? "y" : "ies"
      } left by runners that are gone`,
    );
  }
  await using temp = await createRunTempDir(options.tempDir, warn);
  const frozen = options.plan;
  const plan = frozen.value;
  const version = await runnerVersion();
  const runId = options.runId ?? plan.plan_id;
  const ledgerDir = options.ledger.includes("/")
    ? options.ledger.slice(0, options.ledger.lastIndexOf("/"))
    : ".";
  const artifacts = options.artifacts ?? `${ledgerDir}/artifacts`;
  const batch = {
    runId,
    ledger: options.ledger,
    resume: options.resume,
    parallel: options.parallel,
    progress: options.progress,
    signal: options.signal,
    hardSignal: options.hardSignal,
  };
  let outcome: BatchOutcome;
  if (options.unsandboxed !== undefined) {
    const suite = await loadSuite(options.suite);
    const mismatches: string[] = [];
    if (plan.environment.runner_version !== version) {
      mismatches.push(
        `runner version is "${version}", the plan froze "${plan.environment.runner_version}"`,
      );
    }
    if (plan.suite_sha256 !== suite.sha256) {
      mismatches.push(`suite hashes to "${suite.sha256}", the plan froze "${plan.suite_sha256}"`);
    }
    for (const agent of plan.agents) {
      if (options.unsandboxed[agent.agent_id] === undefined) {
        mismatches.push(`no host command for agent "${agent.agent_id}"`);
      }
    }
    if (mismatches.length > 0) {
      throw new Error(`Cannot run the plan unsandboxed: ${mismatches.join("; ")}`);
    }
    outcome = await runBatch(plan, {
      ...batch,
      execute: createHostExecutor({
        plan,
        planSha256: frozen.sha256,
        suite,
        artifactsRoot: artifacts,
        upstream: options.upstream,
        runnerVersion: version,
        commands: options.unsandboxed,
        tempDir: temp.path,
      }),
    });
  } else {
    if (options.resume) {
      const removed = await removeOrphans(runId);
      if (removed.length > 0) {
        options.progress?.note(
          `resume: removed ${removed.length} container(s) left behind by the interrupted run "${runId}"`,
        );
      }
    }
    const environment = await checkEnvironment(plan, {
      suiteDir: options.suite,
      runnerVersion: version,
      resolveImage: options.resolveImage,
    });
    outcome = await runBatch(plan, {
      ...batch,
      beforeEpisode: imageDriftCheck(plan, { resolveImage: options.resolveImage }),
      execute: createDockerExecutor({
        plan,
        planSha256: frozen.sha256,
        suite: environment.suite,
        artifactsRoot: artifacts,
        upstream: options.upstream,
        runnerVersion: version,
        agentImages: environment.agentImages,
        verifierImage: environment.verifierImage,
        verifierDigests: environment.verifierDigests,
        tempDir: temp.path,
      }),
    });
  }
  return { ...outcome, plan: frozen, runId };
}
