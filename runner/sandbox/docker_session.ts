/**
 * The container engine's {@link SessionBackend} (Docker and Podman alike):
 * every session one container that stays up between the processes run in
 * it, as Harbor's environments do (its main service runs the image's
 * entrypoint with a command that sleeps forever, and the agent and the
 * verifier are `exec`'d into it). The sealed candidate, the sealed
 * verifier, a task's environment and the engine's flag probe all open
 * their containers here, so every one is checked the same way: alone in
 * its own network namespace with only loopback, and run with the flags it
 * asked for (seed 000, §03–04).
 *
 * @module
 */
import type Docker from "dockerode";
import { Buffer } from "node:buffer";
import { ENGINE_DEADLINE_MS, engineCall } from "../docker/engine_call.ts";
import { networkIsolationCheckable, networkIsolationProblem } from "./network_isolation_problem.ts";
import { createGate, GATE_BUSYBOX } from "./_gate.ts";
import type {
  FsChange,
  OpenSession,
  SandboxSession,
  SessionBackend,
  SessionCapabilities,
  SessionExec,
  SessionExecRun,
  SessionSpec,
} from "./sandbox_session.ts";
import { SandboxError } from "./sandbox_error.ts";
import { ByteTail, tailText } from "./tail_text.ts";
import { killDescendants } from "./_kill_descendants.ts";
import { createSandboxContainer, sandboxCreateOptions } from "./_run_container.ts";
import { removeTree } from "./remove_tree.ts";
import { requireSandboxFlags } from "./_require_sandbox_flags.ts";
import { containerOomKilled } from "./_oom_killed.ts";
import { cgroupDir, cgroupOomKills, cgroupPids, cgroupPidsLimitHits } from "./_cgroup_dir.ts";
import { resumeProcesses, stopProcesses } from "./_stop_processes.ts";
import { listeningSockets, loopbackClient } from "./_listening_sockets.ts";
import { containerProcesses } from "./_container_processes.ts";
import { forwardInNamespace, forwardInNamespaceAvailable } from "../relay/forward_in_namespace.ts";
import { startForwarder } from "../relay/start_forwarder.ts";
import { concatBytes } from "../../analysis/concat_bytes.ts";
import { layerBytes } from "./_layer_bytes.ts";
import { imageDigest } from "../docker/image_digest.ts";
import type { ImageFacts } from "./image_facts.ts";
import { unpackFromImage } from "./image_bundle.ts";

/**
 * The keep-alive command's last argument (seconds): a session's container
 * runs `busybox sleep` with it so that processes are `exec`'d into it, and
 * its process is told apart by it.
 */
export const KEEP_ALIVE_SECONDS = "2147483647";

/** What a container session can do, on Docker and Podman alike: the engine's diff, and its processes on the host. */
const CONTAINER_CAPABILITIES: SessionCapabilities = {
  ownFilesystem: true,
  users: true,
  changes: true,
  processControl: true,
};

/** Options of {@link startDockerSession}. */
interface DockerSessionOptions {
  docker: Docker;
  /** Called with the init PID once its checks have passed: lets the container's command run (its gate). */
  openGate: (pid: number) => Promise<void>;
}

/** A started session: the primitives, the container's facts, and its end. */
interface DockerSession extends SandboxSession {
  containerId: string;
  /** The container's init PID on the host. */
  pid: number;
  /** Kills and removes the container (idempotent; never throws). */
  close(): Promise<void>;
}

/**
 * Creates and starts the container of `create` (whose command must not
 * exit: a keep-alive after the image's entrypoint), checks that it is alone
 * in its own network namespace with only loopback and runs with its flags
 * (as every sandbox is, `requireSandboxFlags`), and opens its gate.
 *
 * @param create the create request (`sandboxCreateOptions` with the caller's changes)
 * @param options the engine client and the gate
 * @returns the session; the caller must `close` it
 * @throws {SandboxError} `engine_error`, `isolation_failed`, or the gate's own error
 */
async function startDockerSession(
  create: Docker.ContainerCreateOptions,
  options: DockerSessionOptions,
): Promise<DockerSession> {
  const container = await createSandboxContainer(options.docker, create);
  const short = container.id.slice(0, 12);
  let closing: Promise<void> | null = null;
  const close = () =>
    closing ??= engineCall(
      `remove container ${short}`,
      (abortSignal) =>
        container.remove({ force: true, v: true, abortSignal } as Docker.ContainerRemoveOptions),
    ).then(() => {}, () => {});
  try {
    await engineCall(`start container ${short}`, (abortSignal) => container.start({ abortSignal }));
    const info = await engineCall(
      `inspect container ${short}`,
      (abortSignal) => container.inspect({ abortSignal }),
    );
    const pid = info.State.Pid;
    if (!(pid > 0)) {
      throw new SandboxError("engine_error", `Container "${short}" exited before its gate opened`);
    }
    /** The container's `cgroup.procs` on the host: every process of it, by host PID. */
    const cgroupProcs = async () => {
      const cgroup = await cgroupDir(pid, "pids");
      if (cgroup === null) {
        throw new SandboxError("engine_error", `Container "${short}" has no pids cgroup to list`);
      }
      return `${cgroup}/cgroup.procs`;
    };
    const problem = networkIsolationCheckable() ? networkIsolationProblem(pid) : null;
    if (problem !== null) {
      throw new SandboxError(
        "isolation_failed",
        `Container "${short}" is not network-isolated: ${problem}`,
      );
    }
    await requireSandboxFlags(options.docker, create, container.id, pid);
    await options.openGate(pid);
    const data = (info.GraphDriver as { Data?: Record<string, string> } | undefined)?.Data;
    const upperDir = data?.UpperDir ?? null;
    return {
      containerId: container.id,
      pid,
      close,
      capabilities: CONTAINER_CAPABILITIES,
      busybox: GATE_BUSYBOX,
      exec: (request) => execIn(container, request),
      copyIn: (hostDir, path) => copyIn(container, hostDir, path),
      archiveOut: (path, maxBytes) => archiveOut(container, path, maxBytes),
      archiveIn: (archive, dir) => archiveIn(container, archive, dir),
      readFile: (path, maxBytes) => readFile(container, path, maxBytes),
      changes: () => changesOf(container),
      forwardPort: async (port, socketPath, forward) => {
        const admit = forward?.admit;
        const headerDeadlineMs = forward?.headerDeadlineMs;
        if (admit === undefined) {
          return forwardInNamespaceAvailable()
            ? forwardInNamespace({ pid, socketPath, port, headerDeadlineMs })
            : await startForwarder({ pid, socketPath, port });
        }
        if (!forwardInNamespaceAvailable()) {
          throw new SandboxError(
            "unsupported",
            "Cannot tell a forwarded connection's process without FFI (the nsenter forwarder)",
          );
        }
        let listening = port;
        const forwarder = forwardInNamespace({
          pid,
          socketPath,
          port,
          headerDeadlineMs,
          admit: async (clientPort) =>
            await admit(
              await loopbackClient(
                pid,
                await cgroupPids(await cgroupProcs()),
                clientPort,
                listening,
              ),
            ),
        });
        listening = forwarder.port;
        return forwarder;
      },
      processes: async () => containerProcesses(await cgroupProcs()),
      pidsLimitHits: () => cgroupPidsLimitHits(pid),
      writableBytes: async () => upperDir === null ? null : await layerBytes(upperDir),
      listeners: (pids) => listeningSockets(pid, pids),
      stopAllBut: async (keep) => stopProcesses(await cgroupProcs(), new Set([pid, ...keep])),
      resume: async (pids) => resumeProcesses(await cgroupProcs(), pids),
      // The memory cgroup's own count sees an exec'd process killed; the engine's, the main one.
      oomKilled: async () =>
        ((await cgroupOomKills(pid)) ?? 0) > 0 ||
        containerOomKilled(
          options.docker,
          container.id,
          (await engineCall(
            `inspect container ${short}`,
            (abortSignal) => container.inspect({ abortSignal }),
          )).State,
        ),
    };
  } catch (error) {
    await close();
    if (error instanceof SandboxError) throw error;
    throw new SandboxError(
      "engine_error",
      `Cannot start the session of "${create.Image}": ${message(error)}`,
      { cause: error },
    );
  }
}

/**
 * The container engine as a {@link SessionBackend}: each session a
 * container with seed 000's flags (`sandboxCreateOptions`: no network, a
 * read-only root, every capability dropped but the spec's, no new
 * privileges, its pids and memory limits), whose command is the runner's
 * own busybox sleeping behind the gate (nothing of the image runs by
 * itself), the spec's mounts bound at their paths.
 *
 * @param docker the engine client
 * @param tempDir where the gates' fifos go; default the system temp dir
 * @returns the backend
 */
export function containerSessionBackend(docker: Docker, tempDir?: string): SessionBackend {
  return {
    capabilities: CONTAINER_CAPABILITIES,
    image: (reference) => imageFacts(docker, reference),
    copyFromImage: (imageId, path, dest) => copyFromImage(docker, imageId, path, dest),
    async open(spec: SessionSpec): Promise<OpenSession> {
      const dir = await Deno.makeTempDir({ dir: tempDir, prefix: "ledgerbench-gate-" });
      const gate = await createGate(dir);
      const release = async () => {
        gate.close();
        await removeTree(dir).catch(() => {});
      };
      const create = sandboxCreateOptions({
        image: spec.image,
        command: [
          ...spec.asBuilt?.entrypoint ?? [],
          ...spec.asBuilt?.command ?? [GATE_BUSYBOX, "sleep", KEEP_ALIVE_SECONDS],
        ],
        env: spec.env ?? {},
        user: spec.user,
        workingDir: spec.cwd,
        labels: { "ledgerbench.role": spec.role, ...spec.labels },
        pidsLimit: spec.pidsLimit,
        memoryBytes: spec.memoryBytes,
        nanoCpus: spec.nanoCpus,
        tmpfsBytes: spec.tmpfsBytes,
        extraTmpfs: spec.scratch,
        capAdd: spec.keepCapabilities === undefined ? undefined : [...spec.keepCapabilities],
        binds: [
          ...spec.mounts.map((m) => `${m.host}:${m.path}:${m.readOnly ? "ro" : "rw"}`),
          ...gate.binds,
        ],
      });
      create.Entrypoint = gate.entrypoint;
      const network = spec.network;
      const joins = typeof network === "object";
      if (spec.asBuilt !== undefined) {
        create.HostConfig = { ...create.HostConfig, ReadonlyRootfs: false };
      }
      // The low ports are open in a namespace a task's environment runs in; a namespace's
      // sysctls are its owner's, so a session that joins another's sets none.
      if ((spec.asBuilt !== undefined || network === "shared") && !joins) {
        create.HostConfig = {
          ...create.HostConfig,
          Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
        };
      }
      if (network !== undefined) {
        // The engine's own network namespace then, so that others can join it by name.
        create.NetworkDisabled = false;
        if (joins) {
          create.HostConfig = { ...create.HostConfig, NetworkMode: `container:${network.join}` };
        }
      }
      try {
        const session = await startDockerSession(create, { docker, openGate: () => gate.open() });
        return {
          ...session,
          id: session.containerId,
          end: async () => {
            await session.close();
            await release();
          },
        };
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}

/** An image's config from the engine (`docker image inspect`); null when the engine has none by that reference. */
async function imageFacts(docker: Docker, reference: string): Promise<ImageFacts | null> {
  const id = await imageDigest(reference, { docker });
  if (id === null) return null;
  try {
    const config = (await engineCall(
      `inspect image ${id}`,
      (abortSignal) => docker.getImage(id).inspect({ abortSignal } as Docker.ImageInspectOptions),
    )).Config;
    const list = (value: string[] | string | null | undefined) =>
      value === null || value === undefined ? [] : typeof value === "string" ? [value] : value;
    return {
      id,
      entrypoint: list(config.Entrypoint),
      cmd: list(config.Cmd),
      env: config.Env ?? [],
      workdir: config.WorkingDir || null,
      user: config.User || null,
    };
  } catch (error) {
    throw new SandboxError(
      "engine_error",
      `Cannot inspect image "${reference}": ${message(error)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Copies a directory of an image, as built, to `dest`: a container that
 * never starts, the engine's archive of the path (its top entry the
 * directory itself), unpacked with owners and modes kept (the runner is
 * root) beside `dest` and renamed to it; false when the image has no such
 * path.
 */
async function copyFromImage(
  docker: Docker,
  imageId: string,
  path: string,
  dest: string,
): Promise<boolean> {
  const staging = `${dest}.image-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(staging);
  try {
    await unpackFromImage(
      docker,
      imageId,
      "workdir-export",
      async (container) =>
        await container.getArchive({ path }) as unknown as AsyncIterable<Uint8Array>,
      ["-x", "-C", staging, "--numeric-owner", "--same-owner", "-p"],
    );
    const trimmed = path.replace(/\/+$/, "");
    await Deno.rename(`${staging}/${trimmed.slice(trimmed.lastIndexOf("/") + 1)}`, dest);
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw new SandboxError(
      "engine_error",
      `Cannot copy "${path}" out of image "${imageId}": ${message(error)}`,
      { cause: error },
    );
  } finally {
    await removeTree(staging).catch(() => {});
  }
}

/**
 * Runs one process with `docker exec`, keeping bounded tails of its output;
 * at its wall cap (or on abort) it and every process still its descendant
 * are killed on the host (`killDescendants`), while processes it left to
 * run on their own (services it started and detached) stay, as in Harbor.
 */
async function execIn(container: Docker.Container, request: SessionExec): Promise<SessionExecRun> {
  const tailBytes = request.tailBytes ?? 65536;
  const { stdout, stderr, stdoutTotal, stderrTotal, ...run } = await execOutput(
    container,
    request,
    tailBytes,
  );
  return {
    ...run,
    stdoutTail: tailText(stdout, tailBytes, stdoutTotal),
    stderrTail: tailText(stderr, tailBytes, stderrTotal),
  };
}

/**
 * {@link execIn}'s run, with the last `2 × keepBytes` of each stream as
 * bytes (the engine's exit code read once its process has gone: -1 when the
 * engine reports none).
 */
async function execOutput(
  container: Docker.Container,
  request: SessionExec,
  keepBytes: number,
): Promise<
  Omit<SessionExecRun, "stdoutTail" | "stderrTail"> & {
    stdout: Uint8Array;
    stderr: Uint8Array;
    /** Bytes each stream had in all (of which `stdout` and `stderr` are the end). */
    stdoutTotal: number;
    stderrTotal: number;
  }
> {
  const exec = await engineCall(
    "create an exec",
    () =>
      container.exec({
        Cmd: [...request.argv],
        Env: Object.entries(request.env ?? {}).map(([k, v]) => `${k}=${v}`),
        ...(request.user === undefined ? {} : { User: request.user }),
        ...(request.cwd === undefined ? {} : { WorkingDir: request.cwd }),
        AttachStdin: false,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      }),
  );
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const stream = await engineCall(
    "start an exec",
    () => exec.start({ hijack: true, stdin: false }) as Promise<NodeJS.ReadableStream>,
  );
  // Listened to at once: an event the stream emits before its listeners is lost.
  const output = new FrameTails(keepBytes);
  const ended = new Promise<void>((resolve) => {
    stream.on("data", (chunk: Buffer) => output.push(new Uint8Array(chunk)));
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.on("error", () => resolve());
  });
  const pid = execPid(exec);
  if (request.onStart !== undefined) {
    const onStart = request.onStart;
    void pid.then((known) => known === null ? undefined : onStart(known));
  }
  let killedBy: "wall" | "abort" | null = null;
  const kill = async (by: "wall" | "abort") => {
    if (killedBy !== null) return;
    killedBy = by;
    // An abort may come before the engine knows the process: the kill waits for it.
    const known = await pid;
    if (known !== null) await killDescendants(known);
    (stream as unknown as { destroy?: () => void }).destroy?.();
  };
  const timer = setTimeout(() => void kill("wall"), request.wallMs);
  const onAbort = () => void kill("abort");
  if (request.signal?.aborted) onAbort();
  request.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await ended;
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
  const wallMs = Math.round(performance.now() - t0);
  const finishedAt = new Date().toISOString();
  return {
    exitCode: await execExitCode(exec, container),
    wallCapHit: killedBy === "wall",
    aborted: killedBy === "abort",
    wallMs,
    startedAt,
    finishedAt,
    stdout: output.out.bytes(),
    stderr: output.err.bytes(),
    stdoutTotal: output.out.total,
    stderrTotal: output.err.total,
  };
}

/**
 * An exec's exit code, which the engine reports once its process has gone
 * (shortly after its stream ends): asked at growing intervals (10 ms up to
 * 100 ms) for up to {@link ENGINE_DEADLINE_MS}; -1 when the engine reports
 * none. An engine that does not answer is lost, the harness's fault (the
 * stream of an exec also ends when the engine dies under it).
 *
 * @throws {SandboxError} `engine_error` when the engine never tells the exit
 */
async function execExitCode(exec: Docker.Exec, container: Docker.Container): Promise<number> {
  const deadline = performance.now() + ENGINE_DEADLINE_MS;
  let lastError: unknown = null;
  for (let pause = 10; performance.now() < deadline; pause = Math.min(pause * 2, 100)) {
    try {
      const state = await engineCall(
        "inspect an exec",
        (abortSignal) => exec.inspect({ abortSignal } as object),
      );
      if (!state.Running) return state.ExitCode ?? -1;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  throw new SandboxError(
    "engine_error",
    `Cannot wait for container "${container.id.slice(0, 12)}": the engine did not tell the ` +
      `exit of its exec'd process within ${ENGINE_DEADLINE_MS} ms${
        lastError === null ? "" : `: ${message(lastError)}`
      }`,
    { cause: lastError },
  );
}

/**
 * An exec's host PID, which the engine knows once the process has started
 * (shortly after its stream attaches): asked every 10 ms for up to
 * {@link ENGINE_DEADLINE_MS}; null when the process ended first or the
 * engine never tells.
 */
async function execPid(exec: Docker.Exec): Promise<number | null> {
  const deadline = performance.now() + ENGINE_DEADLINE_MS;
  while (performance.now() < deadline) {
    const state = await engineCall(
      "inspect an exec",
      (abortSignal) => exec.inspect({ abortSignal } as object),
    ).catch(() => null);
    if (state !== null && state.Pid > 0) return state.Pid;
    if (state !== null && !state.Running && state.ExitCode !== null) return null;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return null;
}

/**
 * The engine's multiplexed stream (8-byte frame headers: stream, three
 * zeros, big-endian length), split into stdout and stderr as it arrives,
 * keeping only the last `2 × tailBytes` of each (frames may be cut anywhere).
 */
class FrameTails {
  #pending = new Uint8Array(0);
  readonly out: ByteTail;
  readonly err: ByteTail;
  constructor(keep: number) {
    this.out = new ByteTail(keep);
    this.err = new ByteTail(keep);
  }

  push(chunk: Uint8Array): void {
    let data = this.#pending.length === 0 ? chunk : concatBytes([this.#pending, chunk]);
    while (data.length >= 8) {
      const size = new DataView(data.buffer, data.byteOffset).getUint32(4);
      if (data.length < 8 + size) break;
      (data[0] === 2 ? this.err : this.out).push(data.subarray(8, 8 + size));
      data = data.subarray(8 + size);
    }
    this.#pending = data.slice();
  }
}

/** Copies `hostDir`'s contents into `path`: a tar of it, owned by root ({@link archiveIn}). */
async function copyIn(container: Docker.Container, hostDir: string, path: string): Promise<void> {
  const tar = await new Deno.Command("tar", {
    args: ["-c", "-C", hostDir, "--numeric-owner", "--owner=0", "--group=0", "."],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!tar.success) {
    throw new SandboxError(
      "engine_error",
      `Cannot pack "${hostDir}": ${new TextDecoder().decode(tar.stderr).trim()}`,
    );
  }
  await archiveIn(container, tar.stdout, path);
}

/** Makes `dir` with the runner's busybox, then unpacks the archive there (the engine's archive API). */
async function archiveIn(
  container: Docker.Container,
  archive: Uint8Array,
  dir: string,
): Promise<void> {
  const made = await execIn(container, {
    argv: [GATE_BUSYBOX, "mkdir", "-p", dir],
    user: "0:0",
    wallMs: 30_000,
  });
  if (made.exitCode !== 0) {
    throw new SandboxError(
      "engine_error",
      `Cannot make "${dir}" in the container: ${made.stderrTail.trim()}`,
    );
  }
  await engineCall(
    `copy into ${dir}`,
    (abortSignal) =>
      container.putArchive(
        Buffer.from(archive),
        {
          path: dir,
          abortSignal,
        } as unknown as Docker.ContainerInfo & { path: string },
      ),
  );
}

/** The engine's archive of `path`, read up to `maxBytes`; null when the path does not exist. */
async function archiveOut(
  container: Docker.Container,
  path: string,
  maxBytes: number,
): Promise<Uint8Array | null> {
  let stream: AsyncIterable<Uint8Array>;
  try {
    stream = await engineCall(
      `copy ${path} out`,
      () => container.getArchive({ path }) as unknown as Promise<AsyncIterable<Uint8Array>>,
    );
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw new SandboxError("engine_error", `Cannot copy "${path}" out: ${message(error)}`, {
      cause: error,
    });
  }
  const parts: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    if (bytes > maxBytes) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      throw new SandboxError(
        "too_large",
        `"${path}" is larger than ${maxBytes} bytes as an archive`,
      );
    }
    parts.push(new Uint8Array(chunk));
  }
  return concatBytes(parts);
}

/** Reads a file's head with the runner's busybox (`head -c`); null when it is not a regular file. */
async function readFile(
  container: Docker.Container,
  path: string,
  maxBytes: number,
): Promise<Uint8Array | null> {
  const run = await execOutput(container, {
    argv: [
      GATE_BUSYBOX,
      "sh",
      "-c",
      'test -f "$1" && exec head -c "$2" "$1"',
      "read",
      path,
      `${maxBytes}`,
    ],
    user: "0:0",
    wallMs: 30_000,
  }, maxBytes);
  return run.exitCode === 0 ? run.stdout.subarray(0, maxBytes) : null;
}

/** The engine's diff of the container's filesystem against its image. */
async function changesOf(container: Docker.Container): Promise<FsChange[]> {
  const changes = await engineCall(
    "list the container's changes",
    (abortSignal) =>
      container.changes({ abortSignal } as object) as Promise<
        { Path: string; Kind: number }[] | null
      >,
  );
  const kinds = ["modified", "added", "deleted"] as const;
  return (changes ?? []).map((change) => ({
    path: change.Path,
    kind: kinds[change.Kind] ?? "modified",
  }));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
