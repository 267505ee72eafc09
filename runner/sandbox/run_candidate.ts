/**
 * One candidate episode in the sealed sandbox (seed 000, "为什么要关进断网容器").
 *
 * @module
 */
import { dockerClient } from "../docker/docker_client.ts";
import { copyTree } from "./copy_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { SandboxError } from "./sandbox_error.ts";
import { imageArgv, imagePath } from "./image_facts.ts";
import { AGENT_BUNDLE_MOUNT, BUNDLE_PATH_DIRS } from "./image_bundle.ts";
import type { SandboxSession, SessionBackend } from "./sandbox_session.ts";
import { containerSessionBackend } from "./docker_session.ts";
import { mountCandidateQuota, unmountQuota } from "./_workspace_quota.ts";
import { CANDIDATE_LIMITS } from "./sandbox_limits.ts";
import {
  type CandidateResult,
  candidateStoreLimits,
  runCandidateProtocol,
} from "./candidate_protocol.ts";

/** What to run the candidate on, and where its workspace goes. */
export interface CandidateJob {
  /** The task's workspace directory: copied, never modified, mounted at `/workspace`. */
  workspace: string;
  /**
   * Root of the artifact store: after the container exits, the workspace copy
   * is stored there (see `storeArtifact`) and the copy is removed.
   */
  artifactsRoot: string;
}

/** Options of {@linkcode runCandidate}. */
export interface RunCandidateOptions {
  /**
   * The container's environment, added to the image's fixed `ENV` (PATH,
   * HOME=/tmp, DENO_DIR=/tmp/deno, ...); nothing from the runner's own
   * environment is passed. Typically `OPENAI_BASE_URL`, `OPENAI_API_KEY`
   * (a dummy such as `"sandbox"`), `LEDGERBENCH_MODEL`.
   */
  env?: Record<string, string>;
  /**
   * Values that must never enter the sandbox (the upstream key): the run is
   * refused when any environment value or any workspace file contains one.
   */
  forbiddenValues?: readonly string[];
  /** Wall-clock cap in milliseconds; default 300000 (seed 002). */
  wallMs?: number;
  /**
   * Called once the sandbox runs, with its session, so that the relay's
   * forwarder listens in it (`forwardPort`). The candidate's own code has
   * not run yet and its wall clock has not started. If it throws, the
   * sandbox ends and `SandboxError` `hook_failed` is thrown.
   */
  onStarted?: (session: SandboxSession) => void | Promise<void>;
  /**
   * Called once the candidate has exited (what it left running is stopped),
   * while the sandbox ends and the workspace is being stored; the runner
   * closes the relay here. `runCandidate` resolves after it; if it throws,
   * `runCandidate` throws that error (after the sandbox's end).
   */
  onExited?: () => Promise<void>;
  /** Kills the candidate when aborted (result `aborted: true`, stop reason `error`). */
  signal?: AbortSignal;
  /**
   * Command replacing the image's `CMD` (tests and benchmarks), after the
   * image's `ENTRYPOINT` as in `docker run`; default the image's.
   */
  command?: string[];
  /**
   * `user[:group]` inside the container; default the runner's own uid:gid, so
   * that the workspace copy (owned by the runner) is writable without any
   * capability and the files the agent writes belong to the runner.
   */
  user?: string;
  /** Bytes kept from the end of stdout and of stderr; default 65536. */
  tailBytes?: number;
  /**
   * Largest workspace that is stored, in bytes of regular files; default
   * `CANDIDATE_LIMITS.workspaceBytes` (see `artifactError`).
   */
  maxArtifactBytes?: number;
  /** Labels added to the container (e.g. run and episode ids). */
  labels?: Record<string, string>;
  /** Directory for the temporary workspace copy; default the system temp dir. */
  tempDir?: string;
  /** Where the sandbox opens and its image is read; default the container engine (`containerSessionBackend`). */
  backend?: SessionBackend;
  /**
   * Run the agent from its bundle inside `image`, a task's own environment:
   * the bundle's directory is mounted read-only at
   * `AGENT_BUNDLE_MOUNT` and `argv` runs instead of the image's entrypoint
   * and command; the bundle's program directories are appended to the
   * image's `PATH`, and `HOME` is `/tmp` (the only writable place besides
   * the workspace).
   */
  bundle?: { dir: string; argv: string[] };
  /** A second path the workspace appears at, where the candidate starts (Harbor: `/app`). */
  workdir?: string;
  /**
   * A task's oracle files, mounted read-only at `/solution` (`suite check`'s
   * oracle only; never for an agent).
   */
  solutionDir?: string;
  /**
   * Run `argv` exactly, without the image's entrypoint (`suite check`'s
   * runner programs); ignored with `bundle`.
   */
  exactArgv?: string[];
  /** Memory in bytes (no swap), replacing `CANDIDATE_LIMITS.memoryBytes`. */
  memoryBytes?: number;
  /** CPUs in nano-CPUs; absent: no CPU limit. */
  nanoCpus?: number;
}

/**
 * Runs one candidate in the sealed sandbox by the candidate protocol
 * (`candidate_protocol.ts`: the key check, the forwarder before the
 * candidate, the wall cap, what it left running stopped, the workspace
 * stored), in a session of `backend` (the container engine's by default)
 * with exactly seed 000's flags: `--network none --read-only --cap-drop ALL
 * --security-opt no-new-privileges:true --pids-limit 128 --memory 1g` (swap
 * equal to memory), plus a tmpfs `/tmp` and a writable copy of the task
 * workspace at `/workspace` (the original is never touched). The sandbox
 * never sees the runner's environment or any hidden verifier file.
 *
 * The workspace copy lives on its own tmpfs, mounted on the host with
 * `CANDIDATE_LIMITS.workspaceBytes` and `workspaceInodes` before the
 * sandbox opens and unmounted once it is stored (needs root, as the
 * forwarder does).
 *
 * The candidate's argv is the image's entrypoint and command, or `command`
 * (or the bundle's, or `exactArgv`), `exec`'d once `onStarted` has returned.
 *
 * Cost: besides the session's open and end, one `exec` for the mount check,
 * one for the candidate, one workspace copy and the artifact store (tens of
 * ms for a small workspace).
 *
 * @param image image reference (name:tag or `sha256:` ID); never pulled
 * @param job the task's `workspace` directory (copied, never modified) and the `artifactsRoot`
 * @param options environment, caps and hooks
 * @returns what happened, with the stored artifact
 * @throws {SandboxError} `image_missing`, `forbidden_value`, `hook_failed`, `engine_error`,
 * `isolation_failed`, `workspace_failed`, `store_deadline`
 */
export async function runCandidate(
  image: string,
  job: CandidateJob,
  options: RunCandidateOptions = {},
): Promise<CandidateResult> {
  const backend = options.backend ?? containerSessionBackend(dockerClient(), options.tempDir);
  const facts = await backend.image(image);
  if (facts === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the candidate: image "${image}" is not present (images are never pulled; ` +
        `run containers/build_images.sh)`,
    );
  }
  const imageId = facts.id;
  let argv: string[];
  let bundleEnv: Record<string, string> = {};
  if (options.exactArgv !== undefined && options.bundle === undefined) {
    argv = options.exactArgv;
  } else if (options.bundle === undefined) {
    try {
      argv = imageArgv(facts, options.command);
    } catch (error) {
      throw new SandboxError(
        "engine_error",
        `Cannot run the candidate image "${image}": ${(error as Error).message}`,
      );
    }
  } else {
    argv = options.bundle.argv;
    bundleEnv = { PATH: [imagePath(facts), ...BUNDLE_PATH_DIRS].join(":"), HOME: "/tmp" };
  }

  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-candidate-" });
  const quota = `${temp}/quota`;
  let mounted = false;
  try {
    const owner = await mountCandidateQuota(quota);
    mounted = true;
    const copy = `${quota}/workspace`;
    await copyTree(job.workspace, copy, { mode: "writable" });
    const mount = (host: string, path: string, readOnly: boolean) => ({ host, path, readOnly });
    const { result } = await runCandidateProtocol({
      open: () =>
        backend.open({
          role: "candidate",
          image: imageId,
          mounts: [
            mount(copy, "/workspace", false),
            ...(options.workdir === undefined ? [] : [mount(copy, options.workdir, false)]),
            ...(options.bundle === undefined
              ? []
              : [mount(options.bundle.dir, AGENT_BUNDLE_MOUNT, true)]),
            ...(options.solutionDir === undefined
              ? []
              : [mount(options.solutionDir, "/solution", true)]),
          ],
          user: options.user ?? owner,
          cwd: options.workdir ?? "/workspace",
          pidsLimit: CANDIDATE_LIMITS.pidsLimit,
          memoryBytes: options.memoryBytes ?? CANDIDATE_LIMITS.memoryBytes,
          nanoCpus: options.nanoCpus,
          tmpfsBytes: CANDIDATE_LIMITS.tmpfsBytes,
          labels: options.labels ?? {},
        }),
      imageId,
      workspace: copy,
      argv,
      started: async (session) => {
        await options.onStarted?.(session);
        // The runner's variables win over the bundle's PATH and HOME.
        return { ...bundleEnv, ...options.env };
      },
      forbiddenValues: options.forbiddenValues ?? [],
      wallMs: options.wallMs ?? CANDIDATE_LIMITS.wallMs,
      signal: options.signal,
      tailBytes: options.tailBytes,
      keepAlive: false,
      onExited: options.onExited,
      artifactsRoot: job.artifactsRoot,
      storeLimits: {
        ...candidateStoreLimits(),
        maxBytes: options.maxArtifactBytes ?? CANDIDATE_LIMITS.workspaceBytes,
      },
    });
    return result;
  } finally {
    if (mounted) await unmountQuota(quota).catch(() => {});
    await removeTree(temp);
  }
}
