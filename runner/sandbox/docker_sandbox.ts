/**
 * The sandboxed implementation of {@link EpisodeSandbox} (seed 000 §03–04),
 * on a session backend (`SessionBackend`: the container engine's, Docker or
 * Podman, by default): it picks each task's protocols, all written once on
 * the session seam, and holds no engine code of its own. The candidate:
 * the sealed sandbox with seed 000's flags (`runCandidate`), or the task's
 * own environment as Harbor runs it (`runEnvironmentCandidate`), each by the
 * one candidate protocol, with the relay's forwarder listening in it before
 * the candidate's own code runs (`forwardPort`). The verifier: the sealed
 * one in its own sandbox (`runVerifier`), or Harbor's shared or separate
 * mode (`harbor_verifier.ts`).
 *
 * @module
 */
import type { AgentEgress } from "../egress/agent_egress.ts";
import type { EgressRequest } from "../../analysis/schema/egress_request.ts";
import { agentProxyEnvironment, openAgentEgress } from "./agent_egress_session.ts";
import { episodeLabels } from "../remove_orphans.ts";
import {
  type CandidateRequest,
  type CandidateRun,
  type EpisodeSandbox,
  relayEnvironment,
  type VerifierRequest,
} from "./episode_sandbox.ts";
import { runCandidate } from "./run_candidate.ts";
import { GATE_BUSYBOX } from "./_gate.ts";
import { runVerifier, type RunVerifierOptions } from "./run_verifier.ts";
import { verifierResult, type VerifierTaskSettings } from "./sealed_verifier.ts";
import { VERIFIER_LIMITS } from "./sandbox_limits.ts";
import type { ImageBundle } from "./image_bundle.ts";
import { SandboxError } from "./sandbox_error.ts";
import { type EnvironmentEpisode, runEnvironmentCandidate } from "./environment_candidate.ts";
import { inspectEnvironmentImage, openEnvironmentSession } from "./environment_session.ts";
import { containerSessionBackend } from "./docker_session.ts";
import { dockerClient } from "../docker/docker_client.ts";
import {
  harborVerifyResult,
  runSeparateVerifier,
  runSharedVerifier,
  type SharedVerifierSettings,
} from "./harbor_verifier.ts";
import { type PlacedStep, type StepEnvironment, type StepRun, stepRun } from "./harbor_step_run.ts";
import type { SandboxProxy } from "./sandbox_proxy.ts";
import type { SandboxSession, SessionBackend } from "./sandbox_session.ts";
import type { TaskHealthcheck } from "../../analysis/schema/suite_manifest.ts";
import type { TaskPodSpec } from "./task_pod.ts";
import {
  EGRESS_RESOLVE_VARIABLE,
  type EgressResolve,
  parseEgressResolve,
} from "../egress/egress_resolve.ts";

/**
 * What one task asks of its sandbox (its manifest entry, with its frozen
 * environment image): `taskSettings` in `task_settings.ts` builds it.
 */
export interface TaskSandboxSettings {
  /** The task's own environment image ID, run by both containers; absent: the default images. */
  environmentImage?: string;
  /** A second path the workspace appears at, where both start. */
  workdir?: string;
  /** Variables every process of the task's own environment sees (Harbor's `[environment.env]`). */
  environmentEnv?: Record<string, string>;
  /** When the task's own environment is ready for the agent (Harbor's `[environment.healthcheck]`). */
  environmentHealthcheck?: TaskHealthcheck;
  /** Memory in bytes and nano-CPUs for both containers. */
  memoryBytes?: number;
  nanoCpus?: number;
  /** The disk the agent may fill in a task environment's writable layer (Harbor's modes). */
  storageBytes?: number;
  /** The verifier's entry, verdict and mount (and the same memory and CPUs). */
  verifier: VerifierTaskSettings;
  /** The verifier's wall cap in ms; absent: `VERIFIER_LIMITS.wallMs`. */
  verifierWallMs?: number;
  /** Variables for the verifier's environment. */
  verifierEnv?: Record<string, string>;
  /**
   * Where the verifier runs (Harbor's `[verifier] environment_mode`): `sealed` (absent), the verifier's
   * own container against the stored artifact; `shared`, Harbor's default,
   * `tests/test.sh` in the candidate's own live container after the agent's
   * exit (`harbor_verifier.ts`), the task's environment run as built
   * (`environment_candidate.ts`); `separate`, Harbor's separate verifier
   * environment, into which only `/logs/artifacts` and
   * {@link TaskSandboxSettings.verifierArtifacts} are copied.
   */
  verifierMode?: "sealed" | "shared" | "separate";
  /** The user the shared verifier runs as; absent: root. */
  verifierUser?: string;
  /** The agent's user in the task's environment; absent: the image's. */
  agentUser?: string;
  /** The hosts the Harbor-mode verifier may reach through the egress proxy; absent: none. */
  verifierAllowHosts?: readonly string[];
  /**
   * What the agent may reach through its own recording egress proxy (the
   * task's `agent_network` under the plan's `agent_egress`); absent: no
   * network, no proxy.
   */
  agentEgress?: AgentEgress;
  /**
   * A multi-step task's steps (Harbor's `[[steps]]`), with their files on
   * the host (`stepPaths`), run in order in one environment
   * (`harbor_step_run.ts`), and how their rewards combine (the task's
   * `step_reward`); absent: one instruction, one verification.
   */
  multiStep?: { steps: readonly PlacedStep[]; reward: "mean" | "final" };
  /**
   * The sidecar services of the task's environment, each with its frozen
   * image ID, what the agent's environment waits for and mounts
   * (`task_pod.ts`); absent: one container.
   */
  services?: Pick<TaskPodSpec, "services" | "dependsOn" | "volumes">;
  /** Separate mode: Harbor's collect hooks (`verifier.collect`, `runSeparateVerifier`). */
  verifierCollect?: readonly {
    service: string;
    command: string;
    timeoutMs: number;
    user?: string;
  }[];
  /** Separate mode: the paths copied out of the sidecars (`verifier.service_artifacts`). */
  verifierServiceArtifacts?: readonly { service: string; path: string }[];
  /** Separate mode: the paths copied into the verifier's environment besides `/logs/artifacts`. */
  verifierArtifacts?: readonly string[];
  /**
   * Separate mode: the verifier environment's image ID (its tests baked in,
   * as Harbor builds it from `tests/`); absent: the task's environment
   * anew, the tests uploaded.
   */
  verifierEnvironmentImage?: string;
}

/**
 * The note every row of a task verified by a reward file carries: such a
 * verifier (Harbor's `test.sh`) runs candidate code itself, with its own
 * rights, unless it goes through `$LEDGERBENCH_AS_CANDIDATE`; its verdict is
 * only as strong as that script.
 */
export const REWARD_NOTE = "verdict from the task's reward file: its verifier may run candidate " +
  "code with the verifier's rights (not through $LEDGERBENCH_AS_CANDIDATE)";

/**
 * What `runVerifier` needs of a task's settings, for the sandbox's verifier
 * and for a re-verification (`reverify.ts`) alike: the entry, verdict rule
 * and mount, the workdir, the resources, the wall cap and variables, and the
 * kit when the task has its own environment.
 *
 * @param settings the task's settings
 * @param kitDir the exported verifier image, used only when the task has its own environment
 * @returns the options (the image to run is `settings.environmentImage`, else the verifier image)
 */
export function taskVerifierOptions(
  settings: TaskSandboxSettings,
  kitDir: string | undefined,
): Pick<RunVerifierOptions, "task" | "kitDir" | "wallMs" | "env"> {
  return {
    task: {
      ...settings.verifier,
      workdir: settings.workdir,
      memoryBytes: settings.memoryBytes,
      nanoCpus: settings.nanoCpus,
    },
    kitDir: settings.environmentImage === undefined ? undefined : kitDir,
    wallMs: settings.verifierWallMs,
    env: settings.verifierEnv,
  };
}

/** Options of {@link createDockerSandbox}. */
export interface DockerSandboxOptions {
  /** Image IDs to run, per agent id (the plan's digests, checked at start). */
  agentImages: Record<string, string>;
  /** The verifier image ID. */
  verifierImage: string;
  /** Per task id, what it asks of its sandbox; a task absent here asks nothing. */
  tasks?: Record<string, TaskSandboxSettings>;
  /**
   * Per agent id, its image exported as a bundle (`exportImageBundle`), for
   * the tasks with their own environment; needed for every agent when one
   * task has one.
   */
  agentBundles?: Record<string, ImageBundle>;
  /** The verifier image exported as a kit, for the tasks with their own environment. */
  verifierKit?: ImageBundle;
  /** Port the forwarder listens on inside the sandbox; default 18080. */
  port?: number;
  /** Directory for the containers' temporary files; default the system temp dir. */
  tempDir?: string;
  /**
   * Where the verifiers' egress proxy connects for a named host
   * (`egress_resolve.ts`); default: `LEDGERBENCH_EGRESS_RESOLVE`'s entries.
   */
  egressResolve?: EgressResolve;
  /** Where every sandbox opens and every image is read; default the container engine's. */
  backend?: SessionBackend;
  /**
   * The plan froze a passed suite check (`Plan.suite_check`): in Harbor's
   * modes a test run past its timeout is then the candidate's failure
   * (`SharedVerifierSettings.oracleFinishedInTime`). Absent: false.
   */
  oracleFinishedInTime?: boolean;
}

/**
 * Creates the Docker sandbox: the candidate in a container with seed 000's
 * flags, running the plan's agent `command` instead of the image's `CMD`
 * when it names one (refused when it holds a forbidden value), and the
 * verifier in its own container.
 *
 * @param options the images, the forwarder's port and the temporary directory
 * @returns the sandbox for `createEpisodeExecutor`
 * @throws {Error} when `LEDGERBENCH_EGRESS_RESOLVE` holds an entry that is not `HOST:PORT=ADDRESS:PORT`
 */
export function createDockerSandbox(options: DockerSandboxOptions): EpisodeSandbox {
  const port = options.port ?? 18080;
  const egressResolve = options.egressResolve ??
    parseEgressResolve(Deno.env.get(EGRESS_RESOLVE_VARIABLE) ?? "");
  const settingsOf = (taskId: string): TaskSandboxSettings =>
    options.tasks?.[taskId] ?? { verifier: {} };
  /** The bundle of `agentId`, which a task with its own environment needs. */
  const bundleOf = (agentId: string): ImageBundle & { command: string[] } => {
    const bundle = options.agentBundles?.[agentId];
    if (bundle === undefined || bundle.command === null) {
      throw new SandboxError(
        "bundle_invalid",
        `Cannot run agent "${agentId}" in a task's own environment: its image has no ` +
          "ledgerbench.bundle-command label (containers/build_images.sh writes it)",
      );
    }
    return { ...bundle, command: bundle.command };
  };
  const backend = options.backend ?? containerSessionBackend(dockerClient(), options.tempDir);
  /** Shared-mode environments whose candidate has run and whose verifier has not, by episode. */
  const live = new Map<string, EnvironmentEpisode>();
  /** A multi-step task's steps, by episode, from the candidate's start to its verification. */
  const stepsOf = new Map<string, StepRun>();
  /** Harbor's verifier settings of a task (a step's own timeout and variables over the task's). */
  const harborSettings = (
    settings: TaskSandboxSettings,
    verifier: { dir: string; expectedDigest: string },
    signal: AbortSignal,
    step?: PlacedStep,
  ): SharedVerifierSettings => ({
    verifierDir: verifier.dir,
    expectedVerifierDigest: verifier.expectedDigest,
    ...(step === undefined ? {} : { testsDir: step.files.tests }),
    reward: settings.verifier.reward ?? { passThreshold: 1, rewardKey: "reward", rule: "key" },
    user: settings.verifierUser,
    env: step?.verifier_env === undefined
      ? settings.verifierEnv
      : { ...settings.verifierEnv, ...step.verifier_env },
    wallMs: step?.verifier_wall_ms ?? settings.verifierWallMs ?? VERIFIER_LIMITS.wallMs,
    signal,
    allowHosts: settings.verifierAllowHosts,
    egressResolve,
    oracleFinishedInTime: options.oracleFinishedInTime,
  });
  /**
   * A verification in Harbor's modes: shared, in the live environment; or
   * separate, in a verifier environment of its own given the task's
   * artifacts (and a step's `artifacts`), which ends the live environment
   * when `end` is given (the attempt's last verification) and leaves it
   * running otherwise (a step's, the next step to come).
   */
  const harborVerification = async (
    environment: StepEnvironment,
    settings: TaskSandboxSettings,
    harbor: SharedVerifierSettings,
    job: {
      labels: Record<string, string>;
      artifacts: readonly string[];
      end: { endAgent(): Promise<void>; end(): Promise<void> } | undefined;
    },
  ) => {
    if (settings.verifierMode !== "separate") {
      return harborVerifyResult("shared", await runSharedVerifier(environment, harbor));
    }
    const verifierImage = settings.verifierEnvironmentImage ?? settings.environmentImage!;
    return harborVerifyResult(
      "separate",
      await runSeparateVerifier({
        candidate: environment.session,
        artifacts: [...settings.verifierArtifacts ?? [], ...job.artifacts],
        collect: settings.verifierCollect,
        serviceArtifacts: settings.verifierServiceArtifacts,
        service: environment.service,
        endCandidate: job.end?.endAgent ?? (() => Promise.resolve()),
        endServices: job.end?.end,
        uploadTests: settings.verifierEnvironmentImage === undefined,
        startVerifier: () => startSeparateVerifier(backend, verifierImage, settings, job.labels),
      }, harbor),
    );
  };
  return {
    describeEnvironment: (agent, taskId) => {
      const settings = settingsOf(taskId);
      const environmentImage = settings.environmentImage;
      return {
        sandbox: "docker",
        agent_image_digest: options.agentImages[agent.agent_id],
        verifier_image_digest: options.verifierImage,
        ...(environmentImage === undefined ? {} : {
          task_image_digest: environmentImage,
          agent_bundle_digest: options.agentBundles?.[agent.agent_id]?.digest,
        }),
        notes: settings.verifier.reward === undefined ? [] : [REWARD_NOTE],
      };
    },
    startCandidate: async (request: CandidateRequest): Promise<CandidateRun> => {
      const { agent } = request;
      const settings = settingsOf(request.episode.task_id);
      const program = request.program;
      const bundle = settings.environmentImage === undefined || program !== undefined
        ? undefined
        : bundleOf(agent.agent_id);
      let forwarder: { close(): Promise<void> } | null = null;
      // The agent's own recording proxy, for a task that gives it a network.
      let agentProxy: SandboxProxy | null = null;
      let agentRequests: EgressRequest[] | undefined;
      const closeForwarder = async () => {
        await forwarder?.close().catch(() => {});
        forwarder = null;
        if (agentProxy !== null) {
          await agentProxy.close();
          agentRequests = agentProxy.requests();
          agentProxy = null;
        }
      };
      // The candidate's code runs only once onStarted has returned, so the
      // forwarders hold their ports first and cannot miss the candidate.
      const relayHooks = {
        onStarted: async (session: SandboxSession) => {
          await steps?.start(session);
          forwarder = await session.forwardPort(port, request.relaySocket);
          if (settings.agentEgress !== undefined) {
            agentProxy = await openAgentEgress(session, settings.agentEgress, egressResolve);
          }
        },
        onExited: async () => {
          await closeForwarder();
          await request.onExited();
        },
      };
      // suite check's programs: the oracle's solve.sh, or a program that changes nothing.
      const programArgv = program === undefined
        ? undefined
        : program.kind === "oracle"
        ? ["/solution/solve.sh"]
        : [GATE_BUSYBOX, "true"];
      const environmentArgv = programArgv ?? [
        ...bundle?.command ?? [],
        ...(agent.command?.slice(1) ?? []),
      ];
      // A multi-step task's steps, each verified after it but the last (`harbor_step_run.ts`).
      const steps = settings.multiStep === undefined ? undefined : stepRun({
        steps: settings.multiStep.steps,
        reward: settings.multiStep.reward,
        oracle: program?.kind === "oracle",
        agentArgv: environmentArgv,
        agentUser: settings.agentUser,
        wallMs: request.wallMs,
        signal: request.signal,
        mode: settings.verifierMode === "separate" ? "separate" : "shared",
        verify: (environment, step, final) =>
          harborVerification(
            environment,
            settings,
            harborSettings(settings, request.verifier, request.signal, step),
            {
              labels: episodeLabels(request.episode),
              artifacts: step.artifacts ?? [],
              // Only the last step's separate verification ends the environment.
              end: final && "endAgent" in environment ? environment : undefined,
            },
          ),
      });
      if (steps !== undefined) stepsOf.set(request.episode.episode_id, steps);
      try {
        const harborMode = settings.verifierMode === "shared" ||
          settings.verifierMode === "separate";
        if (harborMode && settings.environmentImage !== undefined) {
          const environment = await runEnvironmentCandidate(settings.environmentImage, {
            workspace: request.workspace,
            artifactsRoot: request.artifactsRoot,
          }, {
            env: {
              ...agent.env,
              ...(settings.agentEgress === undefined ? {} : agentProxyEnvironment()),
              ...relayEnvironment(port, request.model),
            },
            forbiddenValues: request.forbiddenValues,
            argv: [...steps?.first.argv ?? environmentArgv],
            bundleDir: bundle?.dir,
            solutionDir: program?.kind === "oracle" && steps === undefined
              ? program.solutionDir
              : undefined,
            nextStep: steps?.next,
            services: settings.services,
            workdir: settings.workdir,
            environmentEnv: settings.environmentEnv,
            healthcheck: settings.environmentHealthcheck,
            user: settings.agentUser,
            memoryBytes: settings.memoryBytes,
            nanoCpus: settings.nanoCpus,
            storageBytes: settings.storageBytes,
            wallMs: steps?.first.wallMs ?? request.wallMs,
            signal: request.signal,
            ...relayHooks,
            labels: episodeLabels(request.episode),
            tempDir: options.tempDir,
            backend,
          });
          live.set(request.episode.episode_id, environment);
          await closeForwarder();
          return {
            ...environment.result,
            ...(agentRequests === undefined ? {} : { agentEgress: agentRequests }),
          };
        }
        const image = settings.environmentImage ?? options.agentImages[agent.agent_id];
        const candidate = await runCandidate(image, {
          workspace: request.workspace,
          artifactsRoot: request.artifactsRoot,
        }, {
          // The plan's agent env cannot name the runner's variables (the schema refuses them).
          env: {
            ...agent.env,
            ...(settings.agentEgress === undefined ? {} : agentProxyEnvironment()),
            ...relayEnvironment(port, request.model),
          },
          command: agent.command,
          // In the task's environment the bundle's command runs, with the
          // plan's command's arguments (its first word names the image's program).
          bundle: bundle === undefined
            ? undefined
            : { dir: bundle.dir, argv: [...bundle.command, ...(agent.command?.slice(1) ?? [])] },
          exactArgv: programArgv,
          solutionDir: program?.kind === "oracle" ? program.solutionDir : undefined,
          workdir: settings.workdir,
          memoryBytes: settings.memoryBytes,
          nanoCpus: settings.nanoCpus,
          forbiddenValues: request.forbiddenValues,
          wallMs: request.wallMs,
          ...relayHooks,
          signal: request.signal,
          labels: episodeLabels(request.episode),
          tempDir: options.tempDir,
          backend,
        });
        await closeForwarder();
        return agentRequests === undefined
          ? candidate
          : { ...candidate, agentEgress: agentRequests };
      } finally {
        await closeForwarder();
      }
    },
    endEpisode: async (episode) => {
      const environment = live.get(episode.episode_id);
      live.delete(episode.episode_id);
      stepsOf.delete(episode.episode_id);
      await environment?.end();
    },
    runVerifier: async (request: VerifierRequest) => {
      const settings = settingsOf(request.episode.task_id);
      const environment = live.get(request.episode.episode_id);
      if (environment !== undefined) {
        live.delete(request.episode.episode_id);
        const verifier = {
          dir: request.verifierDir,
          expectedDigest: request.expectedVerifierDigest,
        };
        const harbor = harborSettings(settings, verifier, request.signal);
        const steps = stepsOf.get(request.episode.episode_id);
        stepsOf.delete(request.episode.episode_id);
        try {
          if (steps !== undefined) {
            return await steps.finish(environment, harbor.reward);
          }
          return await harborVerification(environment, settings, harbor, {
            labels: episodeLabels(request.episode),
            artifacts: [],
            end: environment,
          });
        } finally {
          await environment.end();
        }
      }
      const taskImage = settings.environmentImage;
      if (taskImage !== undefined && options.verifierKit === undefined) {
        throw new SandboxError(
          "bundle_invalid",
          `Cannot verify task "${request.episode.task_id}" in its own environment: no verifier kit`,
        );
      }
      const outcome = await runVerifier(taskImage ?? options.verifierImage, {
        artifact: request.artifact,
        verifierDir: request.verifierDir,
        expectedVerifierDigest: request.expectedVerifierDigest,
      }, {
        ...taskVerifierOptions(settings, options.verifierKit?.dir),
        tempDir: options.tempDir,
        labels: episodeLabels(request.episode),
        signal: request.signal,
        backend,
      });
      // The verdict or fault with the sealed record and the verifier's output tails.
      return verifierResult(outcome);
    },
  };
}

/**
 * Starts a separate verifier's environment (Harbor's separate mode): the
 * verifier's image (or the task's, fresh) run as built, with no mount, in
 * the image's working directory (`/` when it sets none), with the task's
 * resources.
 */
async function startSeparateVerifier(
  backend: SessionBackend,
  image: string,
  settings: TaskSandboxSettings,
  labels: Record<string, string>,
): Promise<{ session: SandboxSession; workdir: string; end: () => Promise<void> }> {
  // A fresh copy of the task's environment runs in the task's workdir; the verifier's own image in its own.
  const built = await inspectEnvironmentImage(
    backend,
    image,
    settings.verifierEnvironmentImage === undefined ? settings.workdir : undefined,
  );
  const workdir = built.workdir ?? "/";
  const session = await openEnvironmentSession(backend, built, {
    role: "verifier",
    cwd: workdir,
    mounts: [],
    // A fresh copy of the task's environment has its variables; the verifier's own image, its own.
    env: settings.verifierEnvironmentImage === undefined ? settings.environmentEnv : undefined,
    healthcheck: settings.verifierEnvironmentImage === undefined
      ? settings.environmentHealthcheck
      : undefined,
    labels,
    memoryBytes: settings.memoryBytes,
    nanoCpus: settings.nanoCpus,
  });
  return { session, workdir, end: () => session.end() };
}
