/**
 * A task's own environment started as Harbor starts one (issue 22), for the
 * candidate (`environment_candidate.ts`) and for Harbor's separate verifier
 * alike: the built image run as built, its filesystem writable, its
 * `ENTRYPOINT` run with a command that never ends (Harbor's compose file
 * runs `sleep infinity`), behind the runner's gate, so that processes are
 * `exec`'d into it afterwards (`docker_session.ts`).
 *
 * What it keeps of seed 000's sandbox: no network (only the forwarders the
 * runner opens on loopback), `no-new-privileges`, a pids and memory limit,
 * every capability dropped but {@link ENVIRONMENT_CAPABILITIES}. What it
 * gives up, because Harbor's tasks need it: the read-only root (apt,
 * `/var/log`, `/etc/hosts`), the runner's user (the image's `USER`, root by
 * default), and the privileged ports (opened to every user by a sysctl, for
 * a task's own server on port 80).
 *
 * @module
 */
import type Docker from "dockerode";
import { imageDigest } from "../docker/image_digest.ts";
import { engineCall } from "../docker/engine_call.ts";
import { sandboxCreateOptions } from "./_run_container.ts";
import { SandboxError } from "./sandbox_error.ts";
import { createGate, GATE_BUSYBOX } from "./_gate.ts";
import { DEFAULT_PATH } from "./run_candidate.ts";
import { CANDIDATE_LIMITS, ENVIRONMENT_PIDS_LIMIT } from "./sandbox_limits.ts";
import { tcpListeners } from "./_listening_sockets.ts";
import { type DockerSession, KEEP_ALIVE_SECONDS, startDockerSession } from "./docker_session.ts";
import { RESERVED_CONTAINER_PATHS } from "../../analysis/schema/suite_manifest.ts";

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
 * no network, low ports open to its users, and the spec's mounts; it
 * returns once the entrypoint has settled (`entrypointSettled`).
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
    await entrypointSettled(session.pid);
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
  const listening = async () =>
    (await tcpListeners(pid)).map((socket) => socket.address).sort().join(",");
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
