/**
 * One episode of a multi-step task (Harbor's `[[steps]]`,
 * `src/harbor/trial/multi_step.py`) in its environment as built, step by
 * step, beside the candidate protocol's runs (`CandidatePlan.nextStep`):
 *
 * - before each step, Harbor's step preparation (`_prepare_step`): the
 *   step's `workdir/` files uploaded to the working directory (where
 *   Harbor's `pwd` finds it) and their `setup.sh` run there as the agent's
 *   user, then the step's healthcheck; for `suite check`'s oracle, the
 *   step's `solve.sh` placed at `/solution`;
 * - after each step but the last: the step verified in the task's mode
 *   (in the live environment, or a separate verifier given the step's
 *   inputs, the environment left running), its `min_reward` gate applied,
 *   the tests removed and the candidate's processes let run again
 *   (`reopenAfterStep`), and the next
 *   step's instruction written as the workspace's `TASK.md`; the next run
 *   gets the step's own wall cap within what is left of the episode's;
 * - at the end ({@link StepRun.finish}): the step that ran last verified,
 *   unless a gate ended the steps after verifying it, and the steps'
 *   results combined (`combineStepResults`).
 *
 * A first step that cannot start is the task's fault (nothing of the
 * candidate's has run: a harness error, never scored); a later one may be
 * the candidate's doing, so it is that step's failure (`step_setup_failed`)
 * and the steps end (seed 000: a candidate must never be able to choose an
 * invalid attempt).
 *
 * @module
 */
import type { StepPaths, TaskStep } from "../../analysis/schema/suite_manifest.ts";
import type { VerifyResult } from "../episode_row.ts";
import { combineStepResults, passesStepGate, type VerifiedStep } from "./harbor_steps.ts";
import { reopenAfterStep, type SharedEnvironment } from "./harbor_verifier.ts";
import { healthy } from "./environment_session.ts";
import type { RewardRule } from "./parse_reward_file.ts";
import { SandboxError } from "./sandbox_error.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import type { SandboxSession, SessionExecRun } from "./sandbox_session.ts";
import { pathIs } from "../../inputs/input_file.ts";

/** A step of the task, with its files on the host. */
export type PlacedStep = TaskStep & { files: StepPaths };

/** What a step's verification is given of the live environment. */
export interface StepEnvironment extends SharedEnvironment {
  /** A sidecar service's session by its name (a separate verifier's collect hooks and artifacts). */
  service(name: string): SandboxSession | undefined;
}

/** The live environment at the attempt's end, which the last verification may end (separate mode). */
export interface FinalStepEnvironment extends StepEnvironment {
  /** Ends the agent's container alone. */
  endAgent(): Promise<void>;
  /** Ends the container and its services. */
  end(): Promise<void>;
}

/** What {@link stepRun} runs. */
export interface StepRunOptions {
  steps: readonly PlacedStep[];
  /** `suite check`'s oracle runs in place of the agent: each step's `solve.sh` at `/solution`. */
  oracle: boolean;
  /** The agent's argv, run for every step (the oracle's is `/solution/solve.sh`). */
  agentArgv: readonly string[];
  /** The agent's user, who runs each step's `setup.sh`; absent: the environment's. */
  agentUser?: string;
  /** The episode's wall cap in ms, shared by the steps. */
  wallMs: number;
  signal: AbortSignal;
  /**
   * Verifies one step in the task's verifier mode: in the live environment
   * (shared), or in a verifier of its own given the step's inputs
   * (separate); the last step's (`environment` then a
   * {@link FinalStepEnvironment}) may end the environment.
   */
  verify(
    environment: StepEnvironment | FinalStepEnvironment,
    step: PlacedStep,
    final: boolean,
  ): Promise<VerifyResult>;
  /** The task's verifier mode, which the attempt's verification record names. */
  mode: "shared" | "separate";
  /** How the steps' rewards combine (`combineStepResults`). */
  reward: "mean" | "final";
}

/** The steps of one episode as they run ({@link stepRun}). */
export interface StepRun {
  /** The first run's argv and wall cap. */
  first: { argv: readonly string[]; wallMs: number };
  /**
   * Prepares the first step once the environment has started.
   *
   * @throws {SandboxError} `environment_unhealthy` when it cannot start (the task's fault)
   */
  start(session: SandboxSession): Promise<void>;
  /** `CandidatePlan.nextStep`: after a run, the next one, or null when the steps are over. */
  next(
    environment: StepEnvironment & { workspace: string },
    run: SessionExecRun,
  ): Promise<{ argv: readonly string[]; wallMs: number } | null>;
  /** The attempt's result, once the candidate has exited (see the module doc). */
  finish(environment: FinalStepEnvironment, rule: RewardRule): Promise<VerifyResult>;
}

/** A step's setup script, run from the working directory before the step (Harbor's). */
const STEP_SETUP = "setup.sh";

/** The failed check of a later step that could not start (see the module doc). */
const STEP_SETUP_CHECK = "step_setup_failed";

/**
 * Starts the bookkeeping of one episode's steps (see the module doc).
 *
 * @param options the steps, the agent's argv and user, the episode's wall cap and the verifier
 * @returns the run, whose hooks the sandbox calls
 */
export function stepRun(options: StepRunOptions): StepRun {
  const { steps } = options;
  const verified: VerifiedStep[] = [];
  let ran = 1;
  let spentMs = 0;
  const argv = options.oracle ? ["/solution/solve.sh"] : options.agentArgv;
  const wallOf = (step: PlacedStep) =>
    Math.min(step.wall_ms_cap ?? Infinity, options.wallMs - spentMs);
  const prepare = (session: SandboxSession, step: PlacedStep) =>
    prepareStep(session, step, options);
  return {
    first: { argv, wallMs: wallOf(steps[0]) },
    start: async (session) => {
      const problem = await prepare(session, steps[0]);
      if (problem !== null) throw new SandboxError("environment_unhealthy", problem);
    },
    next: async (environment, run) => {
      const step = steps[ran - 1];
      const next = steps[ran];
      spentMs += run.wallMs;
      if (next === undefined) return null;
      const result = await options.verify(environment, step, false);
      verified.push({ name: step.name, result });
      const goOn = result.kind === "verdict" &&
        passesStepGate(result.verification?.reward ?? null, step.min_reward) &&
        spentMs < options.wallMs && await reopenAfterStep(environment);
      if (!goOn) return null;
      await Deno.copyFile(next.files.instruction, `${environment.workspace}/TASK.md`);
      ran++;
      const problem = await prepare(environment.session, next);
      if (problem !== null) {
        verified.push({
          name: next.name,
          result: {
            kind: "verdict",
            resolved: false,
            failedChecks: [STEP_SETUP_CHECK],
            output: { stdout_tail: "", stderr_tail: `${problem}\n` },
          },
        });
        return null;
      }
      return { argv, wallMs: wallOf(next) };
    },
    finish: async (environment, rule) => {
      if (verified.length < ran) {
        const step = steps[ran - 1];
        verified.push({ name: step.name, result: await options.verify(environment, step, true) });
      }
      return combineStepResults(verified, options.reward, rule, options.mode);
    },
  };
}

/**
 * Harbor's step preparation (see the module doc).
 *
 * @returns why the step cannot start, or null
 */
async function prepareStep(
  session: SandboxSession,
  step: PlacedStep,
  options: Pick<StepRunOptions, "oracle" | "agentUser" | "signal">,
): Promise<string | null> {
  if (options.oracle) await placeSolution(session, step.files);
  if (await pathIs(step.files.workdir, "directory")) {
    // The working directory as Harbor finds it: `pwd` in the environment.
    const pwd = await session.exec({ argv: [session.busybox, "pwd"], wallMs: 30_000 });
    const workdir = pwd.stdoutTail.trim() || "/";
    await session.copyIn(step.files.workdir, workdir);
    if (await pathIs(`${step.files.workdir}/${STEP_SETUP}`, "file")) {
      const setup = await session.exec({
        argv: ["bash", `${workdir.replace(/\/$/, "")}/${STEP_SETUP}`],
        ...(options.agentUser === undefined ? {} : { user: options.agentUser }),
        wallMs: VERIFIER_LIMITS.wallMs,
        signal: options.signal,
      });
      if (setup.exitCode !== 0) {
        return `step "${step.name}": ${STEP_SETUP} exited with code ${setup.exitCode}: ` +
          (setup.stderrTail || setup.stdoutTail).trim().split("\n").slice(-3).join(" | ");
      }
    }
  }
  if (step.healthcheck !== undefined) {
    try {
      await healthy(session, step.healthcheck);
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      return `step "${step.name}": ${error.message}`;
    }
  }
  return null;
}

/** The step's oracle at `/solution`, in place of the last step's. */
async function placeSolution(session: SandboxSession, step: StepPaths): Promise<void> {
  const removed = await session.exec({
    argv: [session.busybox, "rm", "-rf", "/solution"],
    user: "0:0",
    wallMs: 60_000,
  });
  if (removed.exitCode !== 0) {
    throw new SandboxError("workspace_failed", "Cannot empty /solution for the oracle");
  }
  await session.copyIn(step.solution, "/solution");
}
