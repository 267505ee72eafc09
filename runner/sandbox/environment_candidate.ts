/**
 * The candidate in a task's own environment as Harbor runs it (Harbor's
 * task format): the built image's filesystem as built, its entrypoint run,
 * the agent `exec`'d into the running session, and the session kept up
 * after the agent's exit so that Harbor's shared verifier
 * (`harbor_verifier.ts`) sees the processes and services the agent left.
 *
 * The environment is opened by `environment_session.ts` (what it keeps of
 * seed 000's sandbox and what it gives up are said there); here are added
 * the key never inside, the agent started only once the relay's forwarder
 * listens, and the workspace on its own size-limited tmpfs, stored as the
 * content-addressed artifact once the agent exits. What the writable root
 * takes on the host's disk (`writableBytes`) is measured while the agent
 * runs and bounded by the task's `storage_mb`
 * ({@link ENVIRONMENT_STORAGE_BYTES} when it sets none).
 *
 * The workspace is the image's working directory as built (files its `RUN`
 * steps made included), copied out of the image, with the task's
 * `workspace/` (its `TASK.md`) on top; it is mounted at `/workspace` and at
 * the working directory, where the agent starts.
 *
 * @module
 */
import { dockerClient } from "../docker/docker_client.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import { AGENT_BUNDLE_MOUNT, BUNDLE_PATH_DIRS } from "./image_bundle.ts";
import { mountCandidateQuota, unmountQuota } from "./_workspace_quota.ts";
import { type CandidateResult, runCandidateProtocol } from "./candidate_protocol.ts";
import { containerSessionBackend } from "./docker_session.ts";
import { inspectEnvironmentImage, openEnvironmentSession } from "./environment_session.ts";
import type {
  FsChange,
  OpenSession,
  SandboxSession,
  SessionBackend,
  SessionExecRun,
  SessionProcess,
} from "./sandbox_session.ts";
import type { StepEnvironment } from "./harbor_step_run.ts";
import { openTaskPod, type TaskPod, type TaskPodSpec } from "./task_pod.ts";
import { ENVIRONMENT_STORAGE_BYTES } from "./sandbox_limits.ts";
import type { TaskHealthcheck } from "../../analysis/schema/suite_manifest.ts";

/**
 * The log directories Harbor's Docker environment mounts for the whole
 * trial (`EnvironmentPaths`; `compose_env.py`'s log mounts): the agent's
 * logs, the verifier's (emptied again before the tests run, by
 * `harbor_verifier.ts`) and the artifacts a separate verifier receives.
 */
const HARBOR_LOG_DIRS = ["/logs/agent", "/logs/verifier", "/logs/artifacts"];

/** What the environment's candidate runs. */
export interface EnvironmentCandidateOptions {
  /** The container's environment for the agent, beyond the image's `ENV`. */
  env: Record<string, string>;
  /** Values that must never enter the sandbox; refused before start. */
  forbiddenValues: readonly string[];
  /** The agent's argv (its bundle's command), or the runner program's. */
  argv: string[];
  /** The agent's bundle directory, mounted read-only at `AGENT_BUNDLE_MOUNT`; absent for a runner program. */
  bundleDir?: string;
  /** The oracle's files, mounted read-only at `/solution` (suite check's oracle only). */
  solutionDir?: string;
  /** The working directory; absent: the image's `WORKDIR`. */
  workdir?: string;
  /** Variables every process of the environment sees (the task's); `env` wins over them for the agent. */
  environmentEnv?: Record<string, string>;
  /** When the environment is ready for the agent; absent: once its entrypoint has settled. */
  healthcheck?: TaskHealthcheck;
  /** The agent's user; absent: the image's `USER`, else root. */
  user?: string;
  memoryBytes?: number;
  nanoCpus?: number;
  /**
   * The disk the agent may fill outside its workspace (the container's
   * writable layer); default {@link ENVIRONMENT_STORAGE_BYTES}. Past it the
   * agent is stopped (stop reason `error`, its doing), with a line saying so
   * at the end of its stderr.
   */
  storageBytes?: number;
  wallMs: number;
  signal: AbortSignal;
  /**
   * Called with the session once the environment has settled, before the
   * agent runs (the relay's forwarder listens here, `forwardPort`).
   */
  onStarted: (session: SandboxSession) => Promise<void>;
  /** Called once the agent's process has gone (the runner closes the relay here). */
  onExited: () => Promise<void>;
  /**
   * A multi-step task's next step (`CandidatePlan.nextStep`): told the live
   * environment as the step left it (and the workspace copy's host
   * directory, where the next instruction goes) and the step's run; returns
   * the next run's argv and wall cap, or null when the steps are over.
   */
  nextStep?: (
    environment: StepEnvironment & { workspace: string },
    run: SessionExecRun,
  ) => Promise<{ argv: readonly string[]; wallMs: number } | null>;
  labels: Record<string, string>;
  /**
   * The task's sidecar services (`task_pod.ts`), opened before the
   * environment, which joins their network namespace and mounts their
   * volumes; ended with it. Absent: none.
   */
  services?: Pick<TaskPodSpec, "services" | "dependsOn" | "volumes">;
  tempDir?: string;
  /** Where the environment opens and its image is read; default the container engine. */
  backend?: SessionBackend;
}

/** A candidate run in its environment, whose container is still up. */
export interface EnvironmentEpisode {
  /** The candidate's facts, as `runCandidate` reports them. */
  result: CandidateResult;
  /** The live environment. */
  session: OpenSession;
  /** The working directory the agent ran in and the verifier runs in. */
  workdir: string;
  /** The image's `PATH` (the verifier's, and where shadowing programs are looked for). */
  path: string;
  /** The workspace's relative paths before the agent ran. */
  workspaceBefore: ReadonlySet<string>;
  /** The workspace's relative paths once the agent has exited. */
  workspaceAfter: ReadonlySet<string>;
  /** The processes alive just before the agent ran (the image's entrypoint and its services). */
  processesBefore: SessionProcess[];
  /** The filesystem diff against the image just after the agent's exit. */
  changesAfterAgent: FsChange[];
  /**
   * A sidecar service's session, by its name (Harbor's Compose services,
   * `task_pod.ts`); undefined for a name the task lacks.
   */
  service(name: string): SandboxSession | undefined;
  /** Ends the agent's container alone, its services left running (idempotent). */
  endAgent(): Promise<void>;
  /** Ends the container and its services, and removes the workspace (idempotent). */
  end(): Promise<void>;
}

/**
 * Runs the candidate in the task's environment image and leaves its
 * container up for the verifier (see the module doc).
 *
 * @param image the environment's image ID (never pulled)
 * @param job the task's workspace directory (copied) and the artifact store's root
 * @param options the agent's argv, environment, user, limits and hooks
 * @returns the candidate's facts and the live environment; the caller must `end` it
 * @throws {SandboxError} `image_missing`, `forbidden_value`, `workspace_failed`,
 *   `engine_error`, `isolation_failed`, `hook_failed`, `store_deadline`
 */
export async function runEnvironmentCandidate(
  image: string,
  job: { workspace: string; artifactsRoot: string },
  options: EnvironmentCandidateOptions,
): Promise<EnvironmentEpisode> {
  const backend = options.backend ?? containerSessionBackend(dockerClient(), options.tempDir);
  const built = await inspectEnvironmentImage(backend, image, options.workdir);
  const workdir = built.workdir;
  const imagePath = built.path;

  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-env-" });
  const quota = `${temp}/quota`;
  const copy = `${quota}/workspace`;
  let mounted = false;
  let session: OpenSession | null = null;
  let pod: TaskPod | null = null;
  let ended: Promise<void> | null = null;
  const endAgent = async () => await session?.end();
  const end = () =>
    ended ??= (async () => {
      await endAgent();
      await pod?.end();
      if (mounted) await unmountQuota(quota).catch(() => {});
      mounted = false;
      await removeTree(temp).catch(() => {});
    })();
  try {
    await mountCandidateQuota(quota);
    mounted = true;
    const fromImage = workdir !== undefined && workdir !== "/" &&
      await backend.copyFromImage(built.imageId, workdir, copy);
    // A working directory the image lacks starts empty.
    if (!fromImage) await Deno.mkdir(copy);
    await overlay(job.workspace, copy);
    const workspaceBefore = await relativePaths(copy);
    const cwd = workdir === undefined || workdir === "/" ? "/workspace" : workdir;
    const mount = (host: string, path: string, readOnly: boolean) => ({ host, path, readOnly });
    let processesBefore: SessionProcess[] = [];
    let changesAfterAgent: FsChange[] = [];
    let workspaceAfter: ReadonlySet<string> = new Set();
    const { result, session: kept } = await runCandidateProtocol({
      open: async () => {
        if (options.services !== undefined) {
          pod = await openTaskPod(backend, {
            ...options.services,
            holderImage: built.imageId,
            labels: options.labels,
            memoryBytes: options.memoryBytes,
            nanoCpus: options.nanoCpus,
            tempDir: temp,
          });
        }
        return session = await openEnvironmentSession(
          backend,
          built,
          {
            role: "candidate",
            cwd,
            network: pod === null ? undefined : { join: pod.network },
            mounts: [
              ...pod?.mounts ?? [],
              mount(copy, "/workspace", false),
              ...(cwd === "/workspace" ? [] : [mount(copy, cwd, false)]),
              ...(options.bundleDir === undefined
                ? []
                : [mount(options.bundleDir, AGENT_BUNDLE_MOUNT, true)]),
              ...(options.solutionDir === undefined
                ? []
                : [mount(options.solutionDir, "/solution", true)]),
            ],
            labels: options.labels,
            memoryBytes: options.memoryBytes,
            nanoCpus: options.nanoCpus,
            env: options.environmentEnv,
            healthcheck: options.healthcheck,
          },
        );
      },
      imageId: built.imageId,
      workspace: copy,
      argv: options.argv,
      user: options.user,
      started: async (opened) => {
        await options.onStarted(opened);
        await makeLogDirs(opened);
        processesBefore = await opened.processes();
        // The environment's variables again, so that the key check sees them too.
        return {
          ...options.environmentEnv,
          ...(options.bundleDir === undefined
            ? {}
            : { PATH: [imagePath, ...BUNDLE_PATH_DIRS].join(":") }),
          ...options.env,
        };
      },
      forbiddenValues: options.forbiddenValues,
      wallMs: options.wallMs,
      signal: options.signal,
      storageBytes: options.storageBytes ?? ENVIRONMENT_STORAGE_BYTES,
      keepAlive: true,
      nextStep: options.nextStep === undefined
        ? undefined
        : async (opened, run) =>
          await options.nextStep!({
            session: opened,
            workdir: cwd,
            path: imagePath,
            processesBefore,
            changesAfterAgent: await opened.changes(),
            workspaceBefore,
            workspaceAfter: await relativePaths(copy),
            workspace: copy,
            service: (name) => pod?.session(name),
          }, run),
      afterExit: async (opened) => {
        changesAfterAgent = await opened.changes();
        workspaceAfter = await relativePaths(copy);
      },
      onExited: options.onExited,
      artifactsRoot: job.artifactsRoot,
    });
    return {
      result,
      session: kept!,
      workdir: cwd,
      path: imagePath,
      workspaceBefore,
      workspaceAfter,
      processesBefore,
      changesAfterAgent,
      service: (name) => pod?.session(name),
      endAgent,
      end,
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/**
 * Harbor's log directories ({@link HARBOR_LOG_DIRS}), made writable by
 * every user (the agent may run as `[agent] user`) before the agent runs,
 * as Harbor's mounts are there from the start (a task's solution may check
 * for them).
 */
async function makeLogDirs(session: SandboxSession): Promise<void> {
  const made = await session.exec({
    argv: [
      session.busybox,
      "sh",
      "-c",
      'mkdir -p "$@" && chmod 777 "$@"',
      "sh",
      ...HARBOR_LOG_DIRS,
    ],
    user: "0:0",
    wallMs: 30_000,
  });
  if (made.exitCode !== 0) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot make ${
        HARBOR_LOG_DIRS.join(", ")
      } in the task's environment: ${made.stderrTail.trim()}`,
    );
  }
}

/** Copies the task's workspace files over `dest` (a file of the task's wins over the image's). */
async function overlay(source: string, dest: string): Promise<void> {
  const out = await new Deno.Command("cp", {
    args: ["-R", "--no-preserve=ownership", `${source}/.`, `${dest}/`],
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot copy the task's workspace: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
}

/** Every relative path under `dir` (directories included). */
async function relativePaths(dir: string, prefix = ""): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const entry of Deno.readDir(prefix === "" ? dir : `${dir}/${prefix}`)) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    out.add(rel);
    if (entry.isDirectory) { for (const sub of await relativePaths(dir, rel)) out.add(sub); }
  }
  return out;
}
