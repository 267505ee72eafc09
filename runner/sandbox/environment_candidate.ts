/**
 * The candidate in a task's own environment as Harbor runs it (issue 22):
 * the built image's filesystem as built, its entrypoint run, the agent
 * `exec`'d into the running container, and the container kept up after the
 * agent's exit so that Harbor's shared verifier (`harbor_verifier.ts`) sees
 * the processes and services the agent left.
 *
 * What it keeps of seed 000's sandbox: no network (only the relay's
 * forwarder on loopback), `no-new-privileges`, a pids and memory limit,
 * every capability dropped but {@link ENVIRONMENT_CAPABILITIES}, the key
 * never inside, the candidate's code held at the gate until the forwarder
 * listens, and the workspace on its own size-limited tmpfs, stored as the
 * content-addressed artifact once the agent exits. What it gives up, because
 * Harbor's tasks need it: the root filesystem is writable (apt, `/var/log`,
 * `/etc/hosts`), the container runs as the image's user (root by default)
 * with the capabilities package installs need, and unprivileged processes
 * may bind ports below 1024 (a task's own server on port 80). What the
 * writable layer takes on the host's disk is measured while the agent runs
 * and bounded by the task's `storage_mb` ({@link ENVIRONMENT_STORAGE_BYTES}
 * when it sets none).
 *
 * The workspace is the image's working directory as built (files its `RUN`
 * steps made included), copied out of the image, with the task's
 * `workspace/` (its `TASK.md`) on top; it is mounted at `/workspace` and at
 * the working directory, where the agent starts.
 *
 * @module
 */
import type Docker from "dockerode";
import { dockerClient } from "../docker/docker_client.ts";
import { imageDigest } from "../docker/image_digest.ts";
import { engineCall } from "../docker/engine_call.ts";
import { type Artifact } from "./artifact_store.ts";
import { storeWorkspace } from "./store_workspace.ts";
import { removeTree } from "./remove_tree.ts";
import { sandboxCreateOptions } from "./_run_container.ts";
import { SandboxError } from "./sandbox_error.ts";
import { createGate, GATE_BUSYBOX } from "./_gate.ts";
import { AGENT_BUNDLE_MOUNT, BUNDLE_PATH_DIRS, unpackFromImage } from "./image_bundle.ts";
import { unmountQuota, workspaceMountProblem } from "./_workspace_quota.ts";
import {
  CANDIDATE_LIMITS,
  type CandidateResult,
  DEFAULT_PATH,
  findForbidden,
  mountCandidateQuota,
  storeLimits,
} from "./run_candidate.ts";
import { type DockerSession, startDockerSession } from "./docker_session.ts";
import type { FsChange, SessionProcess } from "./sandbox_session.ts";
import { RESERVED_CONTAINER_PATHS } from "../suite_manifest.ts";
import { layerBytes } from "./_layer_bytes.ts";

/**
 * The capabilities a task's own environment keeps after `--cap-drop ALL`:
 * what `apt-get install` and `dpkg` need as root (owners, modes, the `_apt`
 * sandbox user) and `KILL`; Docker's default set without `NET_RAW`,
 * `MKNOD`, `SYS_CHROOT`, `SETPCAP`, `SETFCAP`, `AUDIT_WRITE` and
 * `NET_BIND_SERVICE` (low ports are opened by a sysctl instead).
 */
export const ENVIRONMENT_CAPABILITIES = [
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "SETUID",
  "SETGID",
  "KILL",
] as const;

/**
 * The disk an agent may fill in its environment's writable layer when the
 * task sets no `storage_mb`: Harbor's own default, 10 GiB.
 */
export const ENVIRONMENT_STORAGE_BYTES = 10_240 * 1024 ** 2;

/** How often the writable layer is measured while the agent runs, in ms. */
const STORAGE_SAMPLE_MS = 2_000;

/** The keep-alive command's last argument (seconds), by which its process is told apart. */
const KEEP_ALIVE_SECONDS = "2147483647";

/** A task environment's pids limit: a package install forks more than an agent alone. */
const ENVIRONMENT_PIDS_LIMIT = 512;

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
  /** Called with the init PID before the gate opens (the relay's forwarder binds here). */
  onStarted: (pid: number) => Promise<void>;
  /** Called once the agent's process has gone (the runner closes the relay here). */
  onExited: () => Promise<void>;
  labels: Record<string, string>;
  tempDir?: string;
  docker?: Docker;
}

/** A candidate run in its environment, whose container is still up. */
export interface EnvironmentEpisode {
  /** The candidate's facts, as `runCandidate` reports them. */
  result: CandidateResult;
  /** The live container. */
  session: DockerSession;
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
  /** Ends the container and removes the workspace (idempotent). */
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
  const docker = options.docker ?? dockerClient();
  const forbidden = options.forbiddenValues.filter((value) => value !== "");
  for (const [name, value] of Object.entries(options.env)) {
    if (forbidden.some((secret) => value.includes(secret) || name.includes(secret))) {
      throw new SandboxError(
        "forbidden_value",
        `Refusing to start the candidate: environment variable "${name}" contains a forbidden value`,
      );
    }
  }
  const built = await inspectEnvironmentImage(docker, image, options.workdir);
  const workdir = built.workdir;
  const imagePath = built.path;

  const temp = await Deno.makeTempDir({ dir: options.tempDir, prefix: "ledgerbench-env-" });
  const quota = `${temp}/quota`;
  const copy = `${quota}/workspace`;
  let mounted = false;
  let session: DockerSession | null = null;
  let stopSession: (() => Promise<void>) | null = null;
  let ended: Promise<void> | null = null;
  const end = () =>
    ended ??= (async () => {
      await stopSession?.();
      if (mounted) await unmountQuota(quota).catch(() => {});
      mounted = false;
      await removeTree(temp).catch(() => {});
    })();
  try {
    await mountCandidateQuota(quota);
    mounted = true;
    await Deno.mkdir(copy);
    if (workdir !== undefined && workdir !== "/") {
      await extractDirectory(docker, built.imageId, workdir, copy);
    }
    await overlay(job.workspace, copy);
    const leak = forbidden.length === 0 ? null : await findForbidden(copy, forbidden);
    if (leak !== null) {
      throw new SandboxError(
        "forbidden_value",
        `Refusing to start the candidate: workspace file "${leak}" contains a forbidden value`,
      );
    }
    const workspaceBefore = await relativePaths(copy);
    const cwd = workdir === undefined || workdir === "/" ? "/workspace" : workdir;
    const user = built.user;
    const started = await startEnvironmentSession(docker, built, {
      role: "candidate",
      cwd,
      binds: [
        `${copy}:/workspace:rw`,
        ...(cwd === "/workspace" ? [] : [`${copy}:${cwd}:rw`]),
        ...(options.bundleDir === undefined
          ? []
          : [`${options.bundleDir}:${AGENT_BUNDLE_MOUNT}:ro`]),
        ...(options.solutionDir === undefined ? [] : [`${options.solutionDir}:/solution:ro`]),
      ],
      labels: options.labels,
      memoryBytes: options.memoryBytes,
      nanoCpus: options.nanoCpus,
      onStarted: options.onStarted,
      beforeOpen: async (pid) => {
        const problem = await workspaceMountProblem(pid);
        if (problem !== null) {
          throw new SandboxError("workspace_failed", `Cannot start the candidate: ${problem}`);
        }
      },
      tempDir: temp,
    });
    stopSession = started.end;
    session = started.session;
    await entrypointSettled(session.pid);
    const processesBefore = await session.processes();
    const agentEnv = {
      ...(options.bundleDir === undefined
        ? {}
        : { PATH: [imagePath, ...BUNDLE_PATH_DIRS].join(":") }),
      ...options.env,
    };
    const storage = options.storageBytes ?? ENVIRONMENT_STORAGE_BYTES;
    const full = new AbortController();
    const upperDir = session.upperDir;
    const sampler = upperDir === null ? undefined : setInterval(async () => {
      if (!full.signal.aborted && await layerBytes(upperDir) > storage) full.abort();
    }, STORAGE_SAMPLE_MS);
    let run;
    try {
      run = await session.exec({
        argv: options.argv,
        env: agentEnv,
        user: options.user ?? user,
        cwd,
        wallMs: options.wallMs,
        signal: AbortSignal.any([options.signal, full.signal]),
      });
    } finally {
      clearInterval(sampler);
    }
    if (full.signal.aborted) {
      run = {
        ...run,
        stderrTail: `${run.stderrTail}\nledgerbench: the container's writable layer passed ` +
          `${Math.round(storage / 1024 ** 2)} MiB (the task's storage_mb): the agent was stopped\n`,
      };
    }
    await options.onExited();
    const changesAfterAgent = await session.changes();
    const workspaceAfter = await relativePaths(copy);
    const stored = await storeWorkspace(copy, job.artifactsRoot, storeLimits());
    const oomKilled = await session.oomKilled();
    const stopReason = run.wallCapHit
      ? "wall_cap"
      : run.aborted || oomKilled || run.exitCode !== 0
      ? "error"
      : "completed";
    const result: CandidateResult = {
      imageId: built.imageId,
      containerId: session.containerId,
      pid: session.pid,
      exitCode: run.exitCode,
      oomKilled,
      wallCapHit: run.wallCapHit,
      aborted: run.aborted,
      stopReason,
      wallMs: run.wallMs,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      stdoutTail: run.stdoutTail,
      stderrTail: run.stderrTail,
      pidsLimitHits: null,
      artifact: stored.artifact as Artifact | null,
      artifactError: stored.artifactError,
    };
    return {
      result,
      session,
      workdir: cwd,
      path: imagePath,
      workspaceBefore,
      workspaceAfter,
      processesBefore,
      changesAfterAgent,
      end,
    };
  } catch (error) {
    await end();
    throw error;
  }
}

/** What a task environment's image says about how it runs (`docker image inspect`). */
export interface EnvironmentImage {
  imageId: string;
  /** The working directory: the caller's, else the image's `WORKDIR`; undefined when neither. */
  workdir: string | undefined;
  /** The image's `PATH`. */
  path: string;
  /** The image's `ENTRYPOINT`, run before the keep-alive command. */
  entrypoint: string[];
  /** The image's `USER`, else root. */
  user: string;
}

/**
 * Reads how an environment image runs.
 *
 * @param docker the engine client
 * @param image the image reference or ID (never pulled)
 * @param workdir the task's own working directory, replacing the image's
 * @returns the image's ID, working directory, `PATH`, entrypoint and user
 * @throws {SandboxError} `image_missing`; `workspace_failed` when the working
 *   directory is a place the sandbox reserves
 */
export async function inspectEnvironmentImage(
  docker: Docker,
  image: string,
  workdir?: string,
): Promise<EnvironmentImage> {
  const imageId = await imageDigest(image, { docker });
  if (imageId === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the task's environment: image "${image}" is not present (never pulled)`,
    );
  }
  const config = (await engineCall(
    `inspect image ${imageId}`,
    (abortSignal) =>
      docker.getImage(imageId).inspect({ abortSignal } as Docker.ImageInspectOptions),
  )).Config;
  const dir = workdir ?? (config.WorkingDir || undefined);
  if (dir !== undefined && dir !== "/workspace" && reserved(dir)) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot run the task's environment: its working directory "${dir}" is a place the ` +
        "sandbox reserves",
    );
  }
  return {
    imageId,
    workdir: dir,
    path: (config.Env ?? []).find((entry) => entry.startsWith("PATH="))?.slice(5) ??
      DEFAULT_PATH,
    entrypoint: list(config.Entrypoint),
    user: config.User || "0:0",
  };
}

/** What {@link startEnvironmentSession} runs. */
export interface EnvironmentSessionSpec {
  /** `ledgerbench.role`: `candidate`, or `verifier` (separate mode). */
  role: "candidate" | "verifier";
  cwd: string;
  /** Bind mounts beside the gate's, `host:container:rw|ro`. */
  binds: string[];
  labels: Record<string, string>;
  memoryBytes?: number;
  nanoCpus?: number;
  /** Called with the init PID before the gate opens (the relay's forwarder binds here). */
  onStarted?: (pid: number) => Promise<void>;
  /** A check of the started container before its gate opens; throws to refuse it. */
  beforeOpen?: (pid: number) => Promise<void>;
  /** A directory of the caller's, for the gate's fifo. */
  tempDir: string;
}

/**
 * Starts a container of a task environment as Harbor runs one (see the
 * module doc): the image's entrypoint with a command that never ends,
 * behind the gate, with a writable root, {@link ENVIRONMENT_CAPABILITIES},
 * no network, low ports open to its users, and the spec's mounts.
 *
 * @param docker the engine client
 * @param image the inspected image
 * @param spec role, working directory, mounts, limits and hooks
 * @returns the session and its end (which closes the gate and removes the container)
 * @throws {SandboxError} as `startDockerSession`
 */
export async function startEnvironmentSession(
  docker: Docker,
  image: EnvironmentImage,
  spec: EnvironmentSessionSpec,
): Promise<{ session: DockerSession; end: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ dir: spec.tempDir, prefix: "gate-" });
  const gate = await createGate(dir);
  const create = sandboxCreateOptions({
    image: image.imageId,
    // The image's entrypoint runs as Harbor runs it, with a command that never ends.
    command: [...image.entrypoint, GATE_BUSYBOX, "sleep", KEEP_ALIVE_SECONDS],
    env: {},
    user: image.user,
    workingDir: spec.cwd,
    labels: { "ledgerbench.role": spec.role, ...spec.labels },
    pidsLimit: ENVIRONMENT_PIDS_LIMIT,
    memoryBytes: spec.memoryBytes ?? CANDIDATE_LIMITS.memoryBytes,
    nanoCpus: spec.nanoCpus,
    tmpfsBytes: CANDIDATE_LIMITS.tmpfsBytes,
    capAdd: [...ENVIRONMENT_CAPABILITIES],
    binds: [...spec.binds, ...gate.binds],
  });
  create.Entrypoint = gate.entrypoint;
  create.HostConfig = {
    ...create.HostConfig,
    ReadonlyRootfs: false,
    Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
  };
  try {
    const session = await startDockerSession(create, {
      docker,
      onStarted: spec.onStarted,
      openGate: async (pid) => {
        await spec.beforeOpen?.(pid);
        await gate.open();
      },
    });
    return {
      session,
      end: async () => {
        gate.close();
        await session.close();
      },
    };
  } catch (error) {
    gate.close();
    throw error;
  }
}

/**
 * Waits until the image's entrypoint has handed over to the keep-alive
 * command (the container's init runs it: the entrypoint's own setup, such
 * as filling `/etc/hosts`, is done) and the listening TCP sockets of the
 * container's network namespace have stayed the same for a second (a
 * server it started in the background is up), at most 10 s and 30 s in
 * all: Harbor starts its agent seconds after the environment, and a task's
 * entrypoint may rely on that. An entrypoint that never hands over (it
 * runs its server in the foreground) is waited for the 30 s, then the agent starts.
 */
async function entrypointSettled(pid: number): Promise<void> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => null);
    if (cmdline === null || cmdline.split("\0").includes(KEEP_ALIVE_SECONDS)) break;
    await pause();
  }
  const listening = async () => {
    let text = "";
    for (const table of ["tcp", "tcp6"]) {
      text += await Deno.readTextFile(`/proc/${pid}/net/${table}`).catch(() => "");
    }
    // State 0A is LISTEN; the local address is the second field.
    return text.split("\n").filter((line) => line.split(/\s+/)[4] === "0A")
      .map((line) => line.split(/\s+/)[2]).sort().join(",");
  };
  const settleBy = Math.min(deadline, performance.now() + 10_000);
  let last = await listening();
  let since = performance.now();
  while (performance.now() < settleBy && performance.now() - since < 1_000) {
    await pause();
    const now = await listening();
    if (now !== last) {
      last = now;
      since = performance.now();
    }
  }
}

/** Whether a path is one the sandbox reserves, or lies inside one. */
function reserved(path: string): boolean {
  return RESERVED_CONTAINER_PATHS.some((r) => path === r || path.startsWith(`${r}/`));
}

function list(value: string[] | string | null | undefined): string[] {
  return value === null || value === undefined ? [] : typeof value === "string" ? [value] : value;
}

/**
 * Copies a directory of an image, as built, into `dest`: a container that
 * never starts, the engine's archive of the path, unpacked with owners and
 * modes kept (the runner is root).
 */
async function extractDirectory(
  docker: Docker,
  imageId: string,
  path: string,
  dest: string,
): Promise<void> {
  try {
    await unpackFromImage(
      docker,
      imageId,
      "workdir-export",
      async (container) =>
        await container.getArchive({ path }) as unknown as AsyncIterable<Uint8Array>,
      ["-x", "-C", dest, "--strip-components=1", "--numeric-owner", "--same-owner", "-p"],
    );
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return; // no such directory: empty
    throw new SandboxError(
      "workspace_failed",
      `Cannot copy the working directory "${path}" out of image "${imageId}": ${
        error instanceof Error ? error.message : error
      }`,
      { cause: error },
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
