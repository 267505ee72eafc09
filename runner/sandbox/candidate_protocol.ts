/**
 * The candidate protocol, written once on the session seam
 * (`sandbox_session.ts`) for every sandbox a candidate runs in: the sealed
 * sandbox (`run_candidate.ts`), a task's own environment as Harbor runs it
 * (`environment_candidate.ts`) and the `--unsandboxed` host
 * (`host_sandbox.ts`). Each of those only prepares the workspace copy and
 * says how its sandbox opens; the rules are here (seed 000, §03–04):
 *
 * - nothing of the candidate runs before the sandbox is open, its
 *   workspace checked (`/workspace` is the runner's size-limited tmpfs,
 *   where the sandbox has a filesystem of its own) and the relay's
 *   forwarder listening (`started`);
 * - the key never enters: the candidate's environment, argv and workspace
 *   are checked against `forbiddenValues` before it runs (refused, never run);
 * - the wall cap and the abort kill it, and a task's `storage_mb` stops it
 *   when the sandbox's writable root passes it (its doing, said at the end
 *   of its stderr);
 * - once it has exited, what it left running is stopped (unless the
 *   sandbox stays up for Harbor's shared verifier), the relay is closed
 *   (`onExited`) and the workspace is stored as a content-addressed
 *   artifact under `CANDIDATE_LIMITS`' bounds, concurrently with the
 *   sandbox's end.
 *
 * @module
 */
import type { Artifact } from "./artifact_store.ts";
import type { ProcessEnd } from "./process_end.ts";
import type { OpenSession, SandboxSession, SessionExecRun } from "./sandbox_session.ts";
import { tailText } from "./tail_text.ts";
import { SandboxError } from "./sandbox_error.ts";
import { refuseForbiddenValues } from "./forbidden_values.ts";
import { type StoreLimits, storeWorkspace } from "./store_workspace.ts";
import { workspaceMountProblem } from "./_workspace_quota.ts";
import { CANDIDATE_LIMITS } from "./sandbox_limits.ts";

/** How often the writable root is measured while the candidate runs, in ms. */
const STORAGE_SAMPLE_MS = 2_000;

/** The sandbox's view of one finished candidate episode. */
export interface CandidateResult extends ProcessEnd {
  /** The image ID the sandbox ran (resolved once, before it opened); empty on the host. */
  imageId: string;
  /** The sandbox's container, or null where none ran. */
  containerId: string | null;
  /** The kernel's OOM killer ended a process of the sandbox (`SandboxSession.oomKilled`). */
  oomKilled: boolean;
  /**
   * The sandbox's stop reason: `wall_cap` when the cap killed it; `error` when
   * aborted, OOM-killed or exited non-zero; else `completed`. The relay's
   * reasons (`token_cap`, `step_cap`, `rate_limited`) take precedence and are
   * merged by the runner. Its `wallMs` and `startedAt` count from the
   * candidate's start, after the forwarder listens, as the wall cap does.
   */
  stopReason: "completed" | "wall_cap" | "error";
  /** Bounded tails of the candidate's stdout and stderr. */
  stdoutTail: string;
  stderrTail: string;
  /** Forks refused by the pids limit (null where there is none or it is unreadable). */
  pidsLimitHits: number | null;
  /** The stored workspace, or null when it could not be stored (see `artifactError`). */
  artifact: Artifact | null;
  /**
   * Why the workspace was not stored, all of it the candidate's own doing (a
   * scored failure, not a harness fault): files beyond the store's bytes in
   * apparent size, a name that is not UTF-8, an entry deeper than
   * `CANDIDATE_LIMITS.workspaceDepth` or a path longer than
   * `workspacePathBytes`. Paths in it are relative to the workspace.
   */
  artifactError: string | null;
}

/** One candidate run, as a sandbox prepares it. */
export interface CandidatePlan {
  /** Opens the sandbox (nothing of the candidate runs in it yet). */
  open(): Promise<OpenSession>;
  /** The image ID it runs, for the result; empty where none runs. */
  imageId: string;
  /** The host directory of the workspace copy the candidate writes (stored afterwards). */
  workspace: string;
  /** The candidate's argv. */
  argv: readonly string[];
  /** The user it runs as; default the sandbox's. */
  user?: string;
  /**
   * Called once the sandbox is open, before the key check: the relay's
   * forwarder listens here. Returns the candidate's environment (beyond the
   * image's), which may name the port it got.
   */
  started(session: SandboxSession): Promise<Record<string, string>>;
  /** Values (the upstream key) that must never reach the candidate. */
  forbiddenValues: readonly string[];
  wallMs: number;
  signal?: AbortSignal;
  /** Bytes kept from the end of stdout and of stderr; default 65536. */
  tailBytes?: number;
  /** Stop the candidate when the sandbox's writable root passes this many bytes; absent: no bound. */
  storageBytes?: number;
  /**
   * Keep the sandbox up, with what the candidate left running, for a
   * verifier that runs in it (Harbor's shared mode); the caller ends it.
   */
  keepAlive: boolean;
  /**
   * A multi-step task's next step (Harbor's `[[steps]]`): called after each
   * run of the candidate that was neither aborted nor stopped for its
   * storage, with the sandbox and that run; it verifies the step and
   * prepares the next, and returns the next run's argv and wall cap, or
   * null when the steps are over. The runs are reported as one
   * ({@link joinStepRuns}). Absent: one run.
   */
  nextStep?(
    session: SandboxSession,
    run: SessionExecRun,
  ): Promise<{ argv: readonly string[]; wallMs: number } | null>;
  /** Called once the candidate has exited, before the workspace is stored (a diff, a listing). */
  afterExit?(session: SandboxSession): Promise<void>;
  /** Called once the candidate has exited (the runner closes the relay here). */
  onExited?(): Promise<void>;
  /** The artifact store's root. */
  artifactsRoot: string;
  /** The store's bounds; default {@link candidateStoreLimits}. */
  storeLimits?: StoreLimits;
}

/**
 * Runs one candidate by the protocol above (see the module doc).
 *
 * @param plan how the sandbox opens, what runs, and its hooks
 * @returns the candidate's facts, and the sandbox when it is kept up (else null)
 * @throws {SandboxError} `forbidden_value`, `workspace_failed`, `hook_failed`,
 *   the backend's own (`engine_error`, `isolation_failed`, ...), `store_deadline`
 */
export async function runCandidateProtocol(
  plan: CandidatePlan,
): Promise<{ result: CandidateResult; session: OpenSession | null }> {
  const session = await plan.open();
  let kept = false;
  try {
    if (session.capabilities.ownFilesystem) {
      const problem = await workspaceMountProblem(session);
      if (problem !== null) {
        throw new SandboxError("workspace_failed", `Cannot start the candidate: ${problem}`);
      }
    }
    let env: Record<string, string>;
    try {
      env = await plan.started(session);
    } catch (error) {
      throw new SandboxError(
        "hook_failed",
        `The started hook failed for the candidate's sandbox: ${
          error instanceof Error ? error.message : error
        }`,
        { cause: error },
      );
    }
    await refuseForbiddenValues(
      { env, argv: plan.argv, workspace: plan.workspace },
      plan.forbiddenValues,
    );
    const full = new AbortController();
    const storage = plan.storageBytes;
    const sampler = storage === undefined ? undefined : setInterval(async () => {
      if (!full.signal.aborted && (await session.writableBytes() ?? 0) > storage) full.abort();
    }, STORAGE_SAMPLE_MS);
    const runs: SessionExecRun[] = [];
    try {
      let next: { argv: readonly string[]; wallMs: number } | null = plan;
      while (next !== null) {
        const step: SessionExecRun = await session.exec({
          argv: next.argv,
          env,
          ...(plan.user === undefined ? {} : { user: plan.user }),
          wallMs: next.wallMs,
          signal: plan.signal === undefined
            ? full.signal
            : AbortSignal.any([plan.signal, full.signal]),
          tailBytes: plan.tailBytes,
        });
        runs.push(step);
        next = plan.nextStep === undefined || step.aborted || full.signal.aborted
          ? null
          : await plan.nextStep(session, step);
      }
    } finally {
      clearInterval(sampler);
    }
    let run = joinStepRuns(runs, plan.tailBytes);
    if (full.signal.aborted) {
      run = {
        ...run,
        stderrTail: `${run.stderrTail}\nledgerbench: the sandbox's writable root passed ` +
          `${Math.round(storage! / 1024 ** 2)} MiB (the task's storage_mb): the candidate was ` +
          "stopped\n",
      };
    }
    // Nothing the candidate left running may write the workspace while it is stored: a writer
    // would make the copy differ from its digest, an invalid attempt the candidate chose (seed
    // 000: it must never be able to). Its processes are stopped here; with the sandbox kept for
    // the shared verifier (Harbor's shared mode), they run again once the workspace is stored,
    // as Harbor leaves them running for the tests (where the verifier stops them in turn).
    const stopped = session.capabilities.processControl ? await session.stopAllBut(new Set()) : [];
    const [oomKilled, pidsLimitHits] = await Promise.all([
      session.oomKilled(),
      session.pidsLimitHits(),
    ]);
    // The relay closes while the workspace is stored and the sandbox ends.
    const exiting = Promise.resolve(plan.onExited?.());
    exiting.catch(() => {}); // awaited below
    try {
      await plan.afterExit?.(session);
    } catch (error) {
      await exiting.catch(() => {});
      throw error;
    }
    const [stored, exited] = await Promise.allSettled([
      storeWorkspace(
        plan.workspace,
        plan.artifactsRoot,
        plan.storeLimits ?? candidateStoreLimits(),
      ),
      exiting,
      plan.keepAlive ? undefined : session.end(),
    ]);
    if (stored.status === "rejected") throw stored.reason;
    if (exited.status === "rejected") throw exited.reason;
    if (plan.keepAlive && stopped.length > 0) await session.resume(stopped);
    kept = plan.keepAlive;
    return {
      result: {
        imageId: plan.imageId,
        containerId: session.id,
        exitCode: run.exitCode,
        oomKilled,
        wallCapHit: run.wallCapHit,
        aborted: run.aborted,
        stopReason: candidateStopReason({ ...run, oomKilled }),
        wallMs: run.wallMs,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        stdoutTail: run.stdoutTail,
        stderrTail: run.stderrTail,
        pidsLimitHits,
        artifact: stored.value.artifact as Artifact | null,
        artifactError: stored.value.artifactError,
      },
      session: kept ? session : null,
    };
  } finally {
    if (!kept) await session.end();
  }
}

/**
 * A multi-step candidate's runs as one: the first start and the last end,
 * the wall times summed, the first non-zero exit code, the cap or the
 * abort if any run hit it, and the output tails joined, each run's after a
 * line naming it, bounded as one run's are. One run is itself.
 *
 * @param runs the runs, in order (at least one)
 * @param tailBytes the bytes each tail keeps; default 65536
 * @returns the runs as one
 * @example
 * ```ts
 * import { joinStepRuns } from "./candidate_protocol.ts";
 * import { equal } from "node:assert/strict";
 * const run = (exitCode: number, out: string) => ({
 *   exitCode, wallCapHit: false, aborted: false, wallMs: 5, startedAt: "a", finishedAt: "b",
 *   stdoutTail: out, stderrTail: "",
 * });
 * const joined = joinStepRuns([run(0, "one\n"), run(2, "two\n")]);
 * equal(joined.exitCode, 2);
 * equal(joined.wallMs, 10);
 * equal(joined.stdoutTail, "[step 1]\none\n[step 2]\ntwo\n");
 * ```
 */
export function joinStepRuns(runs: readonly SessionExecRun[], tailBytes = 65536): SessionExecRun {
  if (runs.length === 1) return runs[0];
  const tail = (pick: (run: SessionExecRun) => string) => {
    const joined = new TextEncoder().encode(
      runs.map((run, i) => `[step ${i + 1}]\n${pick(run)}`).join(""),
    );
    return tailText(joined, tailBytes);
  };
  return {
    exitCode: runs.find((run) => run.exitCode !== 0)?.exitCode ?? 0,
    wallCapHit: runs.some((run) => run.wallCapHit),
    aborted: runs.some((run) => run.aborted),
    wallMs: runs.reduce((sum, run) => sum + run.wallMs, 0),
    startedAt: runs[0].startedAt,
    finishedAt: runs[runs.length - 1].finishedAt,
    stdoutTail: tail((run) => run.stdoutTail),
    stderrTail: tail((run) => run.stderrTail),
  };
}

/**
 * The sandbox's stop reason of a candidate run: `wall_cap` when the cap
 * killed it; `error` when aborted, OOM-killed or exited non-zero; else
 * `completed` (`CandidateResult.stopReason`).
 *
 * @param run what the candidate's process did
 * @returns the stop reason
 */
export function candidateStopReason(
  run: Pick<CandidateResult, "wallCapHit" | "aborted" | "oomKilled" | "exitCode">,
): CandidateResult["stopReason"] {
  return run.wallCapHit
    ? "wall_cap"
    : run.aborted || run.oomKilled || run.exitCode !== 0
    ? "error"
    : "completed";
}

/**
 * The limits every sandbox stores a workspace within (`storeWorkspace`):
 * `CANDIDATE_LIMITS`' workspace bytes, depth, path length and deadline.
 *
 * @returns the limits
 */
export function candidateStoreLimits(): StoreLimits {
  return {
    maxBytes: CANDIDATE_LIMITS.workspaceBytes,
    maxDepth: CANDIDATE_LIMITS.workspaceDepth,
    maxPathBytes: CANDIDATE_LIMITS.workspacePathBytes,
    deadlineMs: CANDIDATE_LIMITS.storeDeadlineMs,
  };
}
