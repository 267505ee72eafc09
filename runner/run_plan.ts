/**
 * Everything `ledgerbench run` does, as one function the CLI, the demo, the
 * tests and the benchmark share: load the frozen plan (hash checked), check
 * the environment against it (runner version, suite hash, image digests),
 * build the episode executor in its sandbox (Docker, or the host under
 * `--unsandboxed`), and run or resume the batch.
 *
 * @module
 */
import type { FrozenPlan } from "./freeze_plan.ts";
import { checkEnvironment, imageDriftCheck, type ImageResolver } from "./environment_check.ts";
import { type BatchOutcome, runBatch } from "./run_batch.ts";
import type { Upstream } from "./relay/upstream.ts";
import { createLocalExecutor } from "./executor/local_executor.ts";
import { createSlurmExecutor, type SlurmExecutor } from "./executor/slurm_executor.ts";
import type { SlurmClient, SlurmSubmitOptions } from "./executor/slurm_client.ts";
import { slotTimeLimit } from "./executor/slot_time_limit.ts";
import type { SlotUpstreamOptions } from "../analysis/schema/executor_slot.ts";
import type { PlannedAgent } from "../analysis/schema/records.ts";
import type { ProgressSink } from "./progress.ts";
import { runnerVersion } from "./runner_version.ts";
import { removeOrphans } from "./remove_orphans.ts";
import { acquireLedgerLock } from "./ledger_lock.ts";
import { createRunTempDir, removeDeadRunnerTempDirs } from "./run_temp_dir.ts";

/**
 * Where the episodes run: `local` (this machine, the default) or `slurm`
 * (each slot a task of a Slurm job array, runner/executor/slurm_executor.ts).
 */
export type ExecutorChoice =
  | { kind: "local" }
  | {
    kind: "slurm";
    /** The shared directory the slots' requests and rows go through. */
    dir: string;
    /** The sbatch options; the time limit defaults to `slotTimeLimit`'s. */
    submit: Omit<SlurmSubmitOptions, "timeLimitMinutes"> & { timeLimitMinutes?: number };
    client: SlurmClient;
    /** The upstream options each node resolves for itself (never a key). */
    upstreams: SlotUpstreamOptions;
    /** The command an array task runs before the request's path. */
    workerCommand: readonly string[];
    /** How often results and job states are read; default 1000 ms. */
    pollMs?: number;
  };

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
  /**
   * The upstream of each agent's model calls; required by the `local`
   * executor (under `slurm` each node starts its own from the options).
   */
  upstream?: (agent: PlannedAgent) => Upstream;
  /** The upstream of the plan's LLM judge; required when the suite has a judged task (issue 14). */
  judgeUpstream?: Upstream;
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
  /** Where the episodes run; default `local`. */
  executor?: ExecutorChoice;
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
  const unsandboxed = options.unsandboxed;
  const choice = options.executor ?? { kind: "local" };
  if (choice.kind === "local" && unsandboxed === undefined && options.resume) {
    const removed = await removeOrphans(runId);
    if (removed.length > 0) {
      options.progress?.note(
        `resume: removed ${removed.length} container(s) left behind by the interrupted run "${runId}"`,
      );
    }
  }
  // One check for both sandboxes (issue 12): a mismatch is an EnvironmentMismatchError.
  const environment = await checkEnvironment(plan, {
    suiteDir: options.suite,
    runnerVersion: version,
    resolveImage: options.resolveImage,
    hostCommands: unsandboxed,
    tempDir: temp.path,
    imagesOnNodes: choice.kind === "slurm",
  });
  let slurm: SlurmExecutor | null = null;
  try {
    if (choice.kind === "slurm") {
      slurm = await createSlurmExecutor({
        runId,
        dir: choice.dir,
        client: choice.client,
        submit: {
          ...choice.submit,
          timeLimitMinutes: slotTimeLimit(plan, environment.suite, choice.submit.timeLimitMinutes),
        },
        workerCommand: choice.workerCommand,
        pollMs: choice.pollMs,
        note: warn,
        request: {
          plan: absolutePath(frozen.path),
          plan_sha256: frozen.sha256,
          suite: absolutePath(options.suite),
          artifacts: absolutePath(artifacts),
          cwd: Deno.cwd(),
          verifier_digests: environment.verifierDigests,
          upstreams: choice.upstreams,
        },
      });
    }
    const outcome = await runBatch(plan, {
      runId,
      ledger: options.ledger,
      resume: options.resume,
      parallel: options.parallel,
      progress: options.progress,
      signal: options.signal,
      hardSignal: options.hardSignal,
      // Under Slurm each node checks its images before its slot (run_slot.ts).
      beforeEpisode: unsandboxed === undefined && slurm === null
        ? imageDriftCheck(plan, { resolveImage: options.resolveImage })
        : undefined,
      execute: slurm?.execute ?? createLocalExecutor({
        plan,
        planSha256: frozen.sha256,
        environment,
        artifactsRoot: artifacts,
        upstream: options.upstream ?? (() => {
          throw new Error("A local run needs the agents' upstreams");
        }),
        judgeUpstream: options.judgeUpstream,
        unsandboxed,
        tempDir: temp.path,
      }),
    });
    return { ...outcome, plan: frozen, runId };
  } finally {
    await slurm?.close();
  }
}

/** `path` made absolute against the working directory (the nodes read it there). */
function absolutePath(path: string): string {
  return path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
}
