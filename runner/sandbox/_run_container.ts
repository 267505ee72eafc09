/**
 * Private: what the candidate and the verifier runs share: the sandbox's
 * create request (seed 000's isolation flags) and the container lifecycle
 * (create → start → hook → wall cap → wait → inspect ‖ logs → remove), with
 * an exit hook that runs concurrently with the teardown.
 *
 * @module
 */
import type Docker from "dockerode";
import { demuxLogs } from "../docker/demux_logs.ts";
import { ENGINE_DEADLINE_MS, engineCall } from "../docker/engine_call.ts";
import { networkIsolationCheckable, networkIsolationProblem } from "./network_isolation_problem.ts";
import { SandboxError } from "./sandbox_error.ts";
import { engineIdentity } from "../docker/engine_identity.ts";
import { engineCreateOptions } from "./engine_create_options.ts";
import { requireSandboxFlags } from "./_require_sandbox_flags.ts";
import { containerOomKilled } from "./_oom_killed.ts";
import { cgroupDir } from "./_cgroup_dir.ts";
import type { ProcessEnd } from "./process_end.ts";

/** What differs between the candidate's and the verifier's sandbox. */
export interface SandboxSpec {
  /** Image ID (resolved before create; never pulled). */
  image: string;
  /** Command replacing the image's `CMD`; absent keeps the image's. */
  command?: string[];
  /** The container's whole environment beyond the image's `ENV`. */
  env: Record<string, string>;
  /** `user[:group]` inside the container. */
  user: string;
  workingDir: string;
  /** `ledgerbench.role` (candidate or verifier) plus the caller's labels. */
  labels: Record<string, string>;
  /** `--pids-limit`. */
  pidsLimit: number;
  /** `--memory`; swap is set equal, so no swap. */
  memoryBytes: number;
  /** Size of the writable tmpfs at `/tmp` (counted in the memory limit). */
  tmpfsBytes: number;
  /**
   * Further tmpfs mounts, path → size in bytes and mode (counted in the
   * memory limit); unlike `/tmp` they allow executables.
   */
  extraTmpfs?: Record<string, { bytes: number; mode: string }>;
  /**
   * Capabilities kept after `--cap-drop ALL`; default none. The verifier
   * keeps `SETUID` and `SETGID` to run candidate code as another user.
   */
  capAdd?: string[];
  /** `--cpus` in units of 1e-9 CPUs; absent sets no CPU limit. */
  nanoCpus?: number;
  /** Bind mounts, `host:container:rw|ro`. */
  binds: string[];
}

/**
 * The create request of one sandbox, with seed 000's isolation flags for
 * both the candidate and the verifier: `--network none --read-only --cap-drop
 * ALL --security-opt no-new-privileges:true` (plus the spec's `capAdd`, if
 * any), the spec's pids limit, memory (swap equal to memory) and optional CPU
 * limit, a `nosuid,nodev,noexec` tmpfs at `/tmp` (Docker's default
 * `noexec`, spelt out for engines without it; and the spec's further tmpfs),
 * bounded json-file logs, no auto-removal (the runner removes it), never
 * privileged, no stdin or TTY.
 *
 * The Engine API's `NetworkDisabled` is set beside `NetworkMode: "none"`
 * when every started container's namespace can be checked
 * (`networkIsolationCheckable`): the engine then leaves the network
 * namespace to runc (a fresh one holding only loopback) instead of building
 * a libnetwork sandbox, whose prestart hook re-executes dockerd on every
 * start (about 0.25 s per container on our machines).
 *
 * @param spec image, command, environment, user, labels, limits and mounts
 * @returns the request for `docker.createContainer`
 */
export function sandboxCreateOptions(spec: SandboxSpec): Docker.ContainerCreateOptions {
  return {
    Image: spec.image,
    ...(spec.command ? { Cmd: spec.command } : {}),
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    User: spec.user,
    WorkingDir: spec.workingDir,
    Labels: spec.labels,
    AttachStdin: false,
    OpenStdin: false,
    Tty: false,
    NetworkDisabled: networkIsolationCheckable(),
    HostConfig: {
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      ...(spec.capAdd ? { CapAdd: spec.capAdd } : {}),
      SecurityOpt: ["no-new-privileges:true"],
      PidsLimit: spec.pidsLimit,
      Memory: spec.memoryBytes,
      MemorySwap: spec.memoryBytes,
      ...(spec.nanoCpus === undefined ? {} : { NanoCpus: spec.nanoCpus }),
      Tmpfs: {
        "/tmp": `rw,nosuid,nodev,noexec,size=${spec.tmpfsBytes}`,
        ...Object.fromEntries(
          Object.entries(spec.extraTmpfs ?? {}).map((
            [path, { bytes, mode }],
          ) => [path, `rw,nosuid,nodev,exec,size=${bytes},mode=${mode}`]),
        ),
      },
      Binds: spec.binds,
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "2" } },
      AutoRemove: false,
      Privileged: false,
    },
  };
}

/** Options of {@linkcode runContainer}. */
export interface RunContainerOptions {
  /** The engine client. */
  docker: Docker;
  /** Kill the container this many milliseconds after start. */
  wallMs: number;
  /** Called with the init PID once the container runs (not called when it already exited). */
  onStarted?: (pid: number, containerId: string) => void | Promise<void>;
  /**
   * Called with the init PID (0 when it could not be read) after the started
   * hook has returned and the isolation check has passed, to let the
   * container's own command run (the candidate's gate, see `runCandidate`).
   * When given, `startedAt`, `wallMs` and the wall cap count from its
   * return; before it, the wall cap counted from the start request bounds
   * the harness's own setup. If it throws, the container is killed and the
   * error is rethrown (a `SandboxError` as is, anything else as `hook_failed`).
   */
  openGate?: (pid: number) => void | Promise<void>;
  /** Kills the container when aborted. */
  signal?: AbortSignal;
  /**
   * Called once the wait has ended (the container's init has exited, so no
   * process of the container is left), concurrently with the final inspect,
   * the log read and the removal: work on the container's bind-mounted
   * files (storing a workspace, closing the relay) overlaps the engine's
   * teardown instead of following it. `runContainer` resolves only after
   * both the hook and the removal have finished; the hook's error is
   * rethrown as is, after the removal. Not called when the wait fails.
   */
  onExited?: () => Promise<void>;
  /**
   * Deadline of each engine request, and the grace after a kill (at the
   * wall cap or on `signal`) within which the engine must report the exit;
   * default `ENGINE_DEADLINE_MS`. Missed, the engine is lost: `engine_error`.
   */
  engineDeadlineMs?: number;
}

/**
 * What happened to one container: how it ended (its `wallMs` and
 * `startedAt` count from the start request, or with `openGate` from the
 * gate's opening), and its output.
 */
export interface ContainerRun extends ProcessEnd {
  containerId: string;
  /** Host PID of the container's init process (0 when it exited before inspection). */
  pid: number;
  /** The kernel's OOM killer ended a process of the container (`containerOomKilled`). */
  oomKilled: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
  /**
   * Forks refused by the pids limit (`max` in the cgroup's `pids.events`),
   * sampled every 250 ms while the container ran; a lower bound. Null when the
   * cgroup file could not be read.
   */
  pidsLimitHits: number | null;
}

/**
 * Creates, starts and waits for one container, always removing it (the
 * removal is awaited before this resolves or throws).
 *
 * Every engine request has a deadline (`engineDeadlineMs`), and so has the
 * wait: the engine must report the exit within that grace of the kill at the
 * wall cap (or on `signal`), so a run never outlasts its wall cap by more
 * than a few deadlines, even when the engine is killed under it (issue 9,
 * item 1: the wait on a killed engine was never answered). A missed deadline
 * is `engine_error`, the harness's fault; a removal that misses it leaves the
 * container to `removeOrphans`.
 *
 * Cost: four engine round trips besides the wait (create, start, inspect,
 * and inspect ‖ logs after the exit) plus the removal, which overlaps
 * `onExited`.
 *
 * @param create the create request (image ID, command, host config)
 * @param options the `docker` client, wall cap, started and exited hooks, abort signal
 * @returns what happened
 * @throws {SandboxError} `engine_error` when the engine fails or misses a deadline; `hook_failed`
 *   when the started hook throws; `isolation_failed` when the started container is not
 *   network-isolated or does not run with its flags (`requireSandboxFlags`)
 * @throws {unknown} the exited hook's own error
 */
export async function runContainer(
  create: Docker.ContainerCreateOptions,
  options: RunContainerOptions,
): Promise<ContainerRun> {
  const docker = options.docker;
  const deadlineMs = options.engineDeadlineMs ?? ENGINE_DEADLINE_MS;
  const call = <T>(what: string, request: (abortSignal: AbortSignal) => Promise<T>) =>
    engineCall(what, request, { deadlineMs });
  const container = await createSandboxContainer(docker, create, deadlineMs);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sampler: ReturnType<typeof setInterval> | undefined;
  let onAbort: (() => void) | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  let removal: Promise<void> | null = null;
  const short = container.id.slice(0, 12);
  const removeOnce = () =>
    removal ??= call(
      `remove container ${short}`,
      (abortSignal) =>
        container.remove({ force: true, v: true, abortSignal } as Docker.ContainerRemoveOptions),
    ).then(() => {}, () => {});
  let exitedHook: Promise<void> | null = null;
  try {
    // The kill request is remembered so that its outcome is known before the
    // result is read (the wait may end before the kill request returns).
    const killing: { by: "wall" | "abort" | null; done: Promise<boolean> | null } = {
      by: null,
      done: null,
    };
    // The wait's deadline: the engine must report the exit within the grace of the kill.
    const waitDeadline = new AbortController();
    const killOnce = (by: "wall" | "abort") => {
      if (killing.done) return;
      killing.by = by;
      killing.done = call(
        `kill container ${short}`,
        (abortSignal) => container.kill({ signal: "SIGKILL", abortSignal }),
      ).then(() => true, () => false);
      grace = setTimeout(() => waitDeadline.abort(), deadlineMs);
    };

    let startedAt = new Date().toISOString();
    let t0 = performance.now();
    try {
      await call(`start container ${short}`, (abortSignal) => container.start({ abortSignal }));
    } catch (error) {
      throw new SandboxError(
        "engine_error",
        `Cannot start a container from "${create.Image}": ${message(error)}`,
        { cause: error },
      );
    }
    timer = setTimeout(() => killOnce("wall"), options.wallMs);
    if (options.signal) {
      onAbort = () => killOnce("abort");
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener("abort", onAbort, { once: true });
    }
    const waiting = engineCall(
      `wait for container ${short} after its kill`,
      (abortSignal) => container.wait({ abortSignal }),
      { deadlineMs, deadline: waitDeadline.signal },
    );
    waiting.catch(() => {}); // handled below; avoid an unhandled rejection meanwhile

    const running = await inspect(call, container);
    const pid = running.State.Pid;
    const problem = pid > 0 && networkIsolationCheckable() ? networkIsolationProblem(pid) : null;
    if (problem !== null) {
      throw new SandboxError(
        "isolation_failed",
        `Container "${container.id.slice(0, 12)}" is not network-isolated: ${problem}`,
      );
    }
    await requireSandboxFlags(docker, create, container.id, pid);
    let pidsLimitHits: number | null = null;
    const pidsDir = pid > 0 ? await cgroupDir(pid, "pids") : null;
    const eventsFile = pidsDir === null ? null : `${pidsDir}/pids.events`;
    if (eventsFile) {
      const sample = () => {
        try {
          const hits = Number(/^max (\d+)$/m.exec(Deno.readTextFileSync(eventsFile))?.[1] ?? 0);
          pidsLimitHits = Math.max(pidsLimitHits ?? 0, hits);
        } catch {
          // the cgroup disappears when the container stops
        }
      };
      sample();
      sampler = setInterval(sample, 250);
    }
    if (pid > 0 && options.onStarted) {
      try {
        await options.onStarted(pid, container.id);
      } catch (error) {
        throw new SandboxError(
          "hook_failed",
          `The started hook failed for container "${container.id.slice(0, 12)}": ${message(error)}`,
          { cause: error },
        );
      }
    }

    if (options.openGate) {
      try {
        await options.openGate(pid);
      } catch (error) {
        if (error instanceof SandboxError) throw error;
        throw new SandboxError(
          "hook_failed",
          `Cannot open the gate of container "${container.id.slice(0, 12)}": ${message(error)}`,
          { cause: error },
        );
      }
      startedAt = new Date().toISOString();
      t0 = performance.now();
      clearTimeout(timer);
      timer = setTimeout(() => killOnce("wall"), options.wallMs);
    }

    let exitCode: number;
    try {
      exitCode = (await waiting).StatusCode;
    } catch (error) {
      throw new SandboxError(
        "engine_error",
        `Cannot wait for container "${container.id.slice(0, 12)}": ${message(error)}`,
        { cause: error },
      );
    }
    const wallMs = Math.round(performance.now() - t0);
    const finishedAt = new Date().toISOString();
    clearTimeout(timer);
    clearTimeout(grace);
    clearInterval(sampler);
    const killed = killing.done ? await killing.done : false;

    if (options.onExited) {
      exitedHook = options.onExited();
      exitedHook.catch(() => {}); // awaited below, after the removal
    }
    let done: Docker.ContainerInspectInfo;
    let raw: Uint8Array;
    try {
      [done, raw] = await Promise.all([
        inspect(call, container),
        call(
          `read the logs of container ${short}`,
          (abortSignal) =>
            container.logs({ stdout: true, stderr: true, follow: false, abortSignal }),
        ),
      ]);
    } finally {
      removeOnce();
    }
    const { stdout, stderr } = demuxLogs(new Uint8Array(raw));
    await removeOnce();
    await exitedHook;
    return {
      containerId: container.id,
      pid,
      exitCode,
      oomKilled: await containerOomKilled(docker, container.id, done.State),
      wallCapHit: killed && killing.by === "wall",
      aborted: killed && killing.by === "abort",
      wallMs,
      startedAt,
      finishedAt,
      stdout,
      stderr,
      pidsLimitHits,
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    clearInterval(sampler);
    if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    await removeOnce();
    await exitedHook?.catch(() => {});
  }
}

/**
 * Creates a sandbox's container under the engine deadline (every sandbox
 * container, one-shot or a session's, is made here), with the engine's
 * changes to the request (`engineCreateOptions`: Podman's).
 *
 * @param docker the engine client
 * @param create the create request
 * @param deadlineMs the request's deadline; default `ENGINE_DEADLINE_MS`
 * @returns the created container (not started)
 * @throws {SandboxError} `engine_error` when the engine refuses or misses the deadline
 */
export async function createSandboxContainer(
  docker: Docker,
  create: Docker.ContainerCreateOptions,
  deadlineMs = ENGINE_DEADLINE_MS,
): Promise<Docker.Container> {
  try {
    const request = engineCreateOptions(create, await engineIdentity(docker));
    return await engineCall(
      `create a container from ${create.Image}`,
      (abortSignal) => docker.createContainer({ ...request, abortSignal }),
      { deadlineMs },
    );
  } catch (error) {
    throw new SandboxError(
      "engine_error",
      `Cannot create a container from "${create.Image}": ${message(error)}`,
      { cause: error },
    );
  }
}

/** Inspects a container under the engine deadline; a failure is `engine_error`. */
async function inspect(
  call: <T>(what: string, request: (abortSignal: AbortSignal) => Promise<T>) => Promise<T>,
  container: Docker.Container,
): Promise<Docker.ContainerInspectInfo> {
  try {
    return await call(
      `inspect container ${container.id.slice(0, 12)}`,
      (abortSignal) => container.inspect({ abortSignal }),
    );
  } catch (error) {
    throw new SandboxError(
      "engine_error",
      `Cannot inspect container "${container.id.slice(0, 12)}": ${message(error)}`,
      { cause: error },
    );
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
