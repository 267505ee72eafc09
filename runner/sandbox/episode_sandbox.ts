/**
 * The one interface between the episode skeleton (`run_episode.ts`: relay,
 * candidate, evidence gate, verifier, classification, episode log, row) and
 * the place an episode runs. Docker (`docker_sandbox.ts`) and the
 * explicit `--unsandboxed` host (`host_sandbox.ts`) implement it; a later
 * backend (Kubernetes) implements the same three members and reuses the
 * skeleton, the environment check and every classification rule unchanged.
 *
 * What the skeleton does, so that no backend does it again: it starts the
 * episode's relay (which alone holds the upstream key and records every call)
 * on a unix socket, names the agent's model, computes the wall cap, closes
 * the relay when the backend reports that the candidate has exited, applies
 * the evidence gate and the classification, and writes the row and the
 * episode's log. A backend only runs processes and moves files.
 *
 * @module
 */
import type { EgressRequest } from "../../analysis/schema/egress_request.ts";
import type { PlannedAgent, RunnerEnvName } from "../../analysis/schema/records.ts";
import type { PlannedEpisode } from "../batch_state.ts";
import type { CandidateFacts, VerifyResult } from "../episode_row.ts";
import type { Artifact } from "./artifact_store.ts";

/** Where an episode runs, as its row records it (`Environment` without the runner's fields). */
export interface SandboxDescription {
  /** `docker`, or `unsandboxed` only for the operator's explicit `--unsandboxed`. */
  sandbox: "docker" | "unsandboxed";
  /** The image ID the candidate runs, or null when no image runs. */
  agent_image_digest: string | null;
  /** The image ID the verifier runs, or null when no image runs. */
  verifier_image_digest: string | null;
  /** The task's own environment image, when it has one. */
  task_image_digest?: string;
  /** The digest of the agent's bundle brought into that environment. */
  agent_bundle_digest?: string;
  /** Notes every row of this sandbox carries before the runner's (e.g. that it is unsandboxed). */
  notes: readonly string[];
}

/**
 * The agent ids of `suite check`'s two runner-owned programs,
 * which run in place of an agent and make no model call.
 */
export const RUNNER_PROGRAM_AGENTS = { oracle: "oracle", noChange: "no-change" } as const;

/**
 * A runner-owned program run in place of the agent (`suite check`): the
 * task's oracle (`solve.sh` of `solutionDir`, mounted read-only at
 * `/solution` and executed directly), or a program that changes nothing.
 */
export type RunnerProgram = { kind: "oracle"; solutionDir: string } | { kind: "no_change" };

/** What the skeleton asks of {@link EpisodeSandbox.startCandidate}. */
export interface CandidateRequest {
  /** The scheduled episode (for labels and names). */
  episode: PlannedEpisode;
  /** The plan's agent: its `env` and, where the backend honours it, its `command`. */
  agent: PlannedAgent;
  /**
   * Run this runner-owned program instead of the agent (`suite check`), in
   * the same sandbox; a backend that cannot must throw.
   */
  program?: RunnerProgram;
  /** The model the relay is pinned to, named to the agent as `LEDGERBENCH_MODEL`. */
  model: string;
  /** The task's workspace directory: copied, never modified. */
  workspace: string;
  /** The artifact store's root, where the workspace copy is stored once the candidate exits. */
  artifactsRoot: string;
  /** The relay's unix socket: the candidate's only way to the model. */
  relaySocket: string;
  /** Values (the upstream key) that must never reach the candidate. */
  forbiddenValues: readonly string[];
  /** The wall cap in milliseconds. */
  wallMs: number;
  /**
   * The task's hidden verifier directory and its frozen digest, for a
   * multi-step task, whose steps but the last are verified between the
   * agent's runs (`harbor_steps.ts`).
   */
  verifier: { dir: string; expectedDigest: string };
  /** Aborted when the operator insists on stopping now: kill the candidate. */
  signal: AbortSignal;
  /**
   * To call once, as soon as no process of the candidate is left and the
   * forwarder to the relay is closed (the skeleton closes the relay here).
   */
  onExited: () => Promise<void>;
}

/** What {@link EpisodeSandbox.startCandidate} reports. */
export interface CandidateRun extends Omit<CandidateFacts, "artifactDigest"> {
  /** The stored workspace, or null when it could not be stored (`artifactError` says why). */
  artifact: Artifact | null;
  /** Bounded tail of the candidate's stderr (for the episode's log only). */
  stderrTail: string;
  /**
   * Every request the agent sent through its egress proxy, allowed or
   * denied (`TaskSandboxSettings.agentEgress`); absent: it had no network.
   */
  agentEgress?: readonly EgressRequest[];
}

/** What the skeleton asks of {@link EpisodeSandbox.runVerifier}. */
export interface VerifierRequest {
  /** The scheduled episode (for labels and names). */
  episode: PlannedEpisode;
  /** The candidate's stored workspace, given to the verifier read-only. */
  artifact: Artifact;
  /** The task's hidden verifier directory on the host. */
  verifierDir: string;
  /** Its digest frozen for the run (`digestTree`, by the environment check). */
  expectedVerifierDigest: string;
  /** Aborted when the operator insists on stopping now. */
  signal: AbortSignal;
}

/**
 * Where an episode's candidate and verifier run. A backend must guarantee:
 *
 * - **The candidate's sandbox.** `startCandidate` runs the agent on a
 *   writable copy of `workspace` (the original is never touched) with an
 *   environment of its own: the plan's agent `env` and
 *   {@link relayEnvironment} (whose values win), nothing of the runner's
 *   environment and never a `forbiddenValues` entry (refuse to start
 *   instead, by throwing). Docker adds seed 000's flags (`--network none`,
 *   read-only root, `--cap-drop ALL`, `no-new-privileges`, pids 128, 1 GB
 *   without swap, the workspace on its own size-limited tmpfs) and checks the
 *   network isolation; a backend that cannot give these must describe itself
 *   as `unsandboxed`, as the host does.
 * - **The relay is the only way out.** The candidate reaches `relaySocket`
 *   through a loopback port that is listening before the candidate's own
 *   code runs, and reaches nothing else; the backend closes that forwarder
 *   when the candidate exits, then calls `onExited` once.
 * - **The wall cap.** The candidate is killed at `wallMs` (stop reason
 *   `wall_cap`) or when `signal` aborts (`error`); a crash, an OOM kill or a
 *   non-zero exit is `error`; else `completed`. `wallMs` in the result is
 *   measured by the runner from the moment the candidate's code may run.
 * - **The artifact.** Once the candidate has exited the workspace copy is
 *   stored content-addressed in `artifactsRoot`; a workspace the candidate
 *   made unstorable is `artifact: null` with `artifactError`, not a throw.
 * - **The verifier.** `runVerifier` runs in its own sandbox against the
 *   read-only artifact; the hidden files of `verifierDir` are copied in only
 *   now (after the candidate exited), checked against
 *   `expectedVerifierDigest` before the run and unchanged after it; every
 *   fault (setup, crash, timeout, no verdict, changed files) is a `fault`
 *   result, never a candidate failure.
 * - **Faults of the harness throw.** Anything that is not the candidate's
 *   or the verifier's doing (engine, forwarder, copy) throws: the skeleton
 *   records an invalid `harness_error` row.
 */
export interface EpisodeSandbox {
  /**
   * The environment the rows of this agent's episodes at this task record.
   *
   * @param agent the plan's agent
   * @param taskId the task (which may bring its own environment)
   * @returns the sandbox kind, the image digests and the notes
   */
  describeEnvironment(agent: PlannedAgent, taskId: string): SandboxDescription;
  /**
   * Runs the candidate to its end (see the interface's guarantees).
   *
   * @param request the episode, the agent, the workspace, the relay and the caps
   * @returns what happened, with the stored artifact
   * @throws {Error} on a harness fault or a refused start
   */
  startCandidate(request: CandidateRequest): Promise<CandidateRun>;
  /**
   * Runs the verifier against the stored artifact (see the interface's guarantees).
   *
   * @param request the episode, the artifact, the hidden files and their frozen digest
   * @returns the verdict or the verifier's fault
   * @throws {Error} on a harness fault
   */
  runVerifier(request: VerifierRequest): Promise<VerifyResult>;
  /**
   * Ends whatever the episode left running (a shared-mode
   * environment is kept up from the candidate's exit to its verification);
   * called once per episode after its row is classified, whether or not its
   * verifier ran. Never throws. Absent: nothing outlives a call.
   *
   * @param episode the episode
   */
  endEpisode?(episode: PlannedEpisode): Promise<void>;
}

/**
 * The runner's variables every candidate gets, whatever its sandbox:
 * `OPENAI_BASE_URL` (`/v1` on the forwarder), `ANTHROPIC_BASE_URL` and
 * `GOOGLE_GEMINI_BASE_URL` (the same forwarder without `/v1`, as the
 * Anthropic SDK, and the Gemini SDK and CLI, which add their API version,
 * expect), placeholder keys (the real one lives in the relay only) and
 * `LEDGERBENCH_MODEL`.
 *
 * @param port the loopback port the candidate reaches the relay on
 * @param model the model the relay is pinned to
 * @returns the variables, by `RUNNER_ENV_NAMES`
 * @example
 * ```ts
 * import { relayEnvironment } from "./episode_sandbox.ts";
 * import { equal } from "node:assert/strict";
 * const env = relayEnvironment(18080, "default");
 * equal(env.OPENAI_BASE_URL, "http://127.0.0.1:18080/v1");
 * equal(env.ANTHROPIC_BASE_URL, "http://127.0.0.1:18080");
 * ```
 */
export function relayEnvironment(port: number, model: string): Record<RunnerEnvName, string> {
  return {
    OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
    OPENAI_API_KEY: "sandbox",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
    ANTHROPIC_API_KEY: "sandbox",
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    GEMINI_API_KEY: "sandbox",
    LEDGERBENCH_MODEL: model,
  };
}
