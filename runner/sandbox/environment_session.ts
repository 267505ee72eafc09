/**
 * A task's own environment started as Harbor starts one (Harbor's task
 * format: the environment's image, its compose file's `sleep infinity`),
 * for the candidate (`environment_candidate.ts`) and for Harbor's separate
 * verifier alike: a session (`SessionSpec.asBuilt`) of the built image run
 * as built, its filesystem writable, its `ENTRYPOINT` run with a command
 * that never ends, so that processes are `exec`'d into it afterwards.
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
import { SandboxError } from "./sandbox_error.ts";
import { imagePath } from "./image_facts.ts";
import { CANDIDATE_LIMITS, ENVIRONMENT_PIDS_LIMIT } from "./sandbox_limits.ts";
import { KEEP_ALIVE_SECONDS } from "./docker_session.ts";
import type {
  OpenSession,
  SandboxSession,
  SessionBackend,
  SessionSpec,
} from "./sandbox_session.ts";
import {
  RESERVED_CONTAINER_PATHS,
  type TaskHealthcheck,
} from "../../analysis/schema/suite_manifest.ts";

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
 * @param backend the backend that holds it
 * @param image the image reference or ID (never pulled)
 * @param workdir the task's own working directory, replacing the image's
 * @returns the image's ID, working directory, `PATH`, entrypoint and user
 * @throws {SandboxError} `image_missing`; `workspace_failed` when the working
 *   directory is a place the sandbox reserves
 */
export async function inspectEnvironmentImage(
  backend: SessionBackend,
  image: string,
  workdir?: string,
): Promise<EnvironmentImage> {
  const facts = await backend.image(image);
  if (facts === null) {
    throw new SandboxError(
      "image_missing",
      `Cannot run the task's environment: image "${image}" is not present (never pulled)`,
    );
  }
  const dir = workdir ?? facts.workdir ?? undefined;
  if (dir !== undefined && dir !== "/workspace" && reserved(dir)) {
    throw new SandboxError(
      "workspace_failed",
      `Cannot run the task's environment: its working directory "${dir}" is a place the ` +
        "sandbox reserves",
    );
  }
  return {
    imageId: facts.id,
    workdir: dir,
    path: imagePath(facts),
    entrypoint: facts.entrypoint,
    user: facts.user ?? "0:0",
  };
}

/** What an environment's session holds, beside what its image says. */
export interface EnvironmentSessionSpec {
  /** `ledgerbench.role`: `candidate`, or `verifier` (separate mode). */
  role: "candidate" | "verifier";
  cwd: string;
  mounts: SessionSpec["mounts"];
  labels: Record<string, string>;
  memoryBytes?: number;
  nanoCpus?: number;
  /** Variables every process of it sees, beyond the image's `ENV`. */
  env?: Record<string, string>;
  /** When it is ready (the task's healthcheck); absent: once its entrypoint has settled. */
  healthcheck?: TaskHealthcheck;
  /** The network namespace it joins (its sidecar services', `task_pod.ts`); absent: its own. */
  network?: SessionSpec["network"];
}

/**
 * Opens a session of a task environment as Harbor runs one (see the
 * module doc) on `backend`: the image's entrypoint with a command that
 * never ends, a writable root, {@link ENVIRONMENT_CAPABILITIES}, no
 * network, low ports open to its users, and the spec's mounts; it returns
 * once the entrypoint has settled (`entrypointSettled`).
 *
 * @param backend where the session opens (it must see and list processes: `processControl`)
 * @param image the inspected image
 * @param spec role, working directory, mounts, labels and limits
 * @returns the session; the caller must `end` it
 * @throws {SandboxError} as `SessionBackend.open`; `unsupported` without `processControl`
 */
export async function openEnvironmentSession(
  backend: SessionBackend,
  image: EnvironmentImage,
  spec: EnvironmentSessionSpec,
): Promise<OpenSession> {
  if (!backend.capabilities.processControl) {
    throw new SandboxError(
      "unsupported",
      'Cannot run a task\'s own environment on this backend: its sessions lack "processControl"',
    );
  }
  const session = await backend.open({
    role: spec.role,
    image: image.imageId,
    mounts: spec.mounts,
    user: image.user,
    cwd: spec.cwd,
    keepCapabilities: ENVIRONMENT_CAPABILITIES,
    pidsLimit: ENVIRONMENT_PIDS_LIMIT,
    memoryBytes: spec.memoryBytes ?? CANDIDATE_LIMITS.memoryBytes,
    nanoCpus: spec.nanoCpus,
    tmpfsBytes: null,
    labels: spec.labels,
    env: spec.env,
    network: spec.network,
    // The image's entrypoint runs as Harbor runs it, with a command that never ends.
    asBuilt: { entrypoint: image.entrypoint },
  });
  try {
    await entrypointSettled(session);
    if (spec.healthcheck !== undefined) await healthy(session, spec.healthcheck);
    return session;
  } catch (error) {
    await session.end();
    throw error;
  }
}

/**
 * Waits until the image's entrypoint has handed over to the keep-alive
 * command (a process of the session runs it: the entrypoint's own setup,
 * such as filling `/etc/hosts`, is done) and the listening TCP sockets of
 * the session's processes have stayed the same for a second (a server it
 * started in the background is up), at most 10 s and 30 s in all: Harbor
 * starts its agent seconds after the environment, and a task's entrypoint
 * may rely on that. An entrypoint that never hands over (it runs its
 * server in the foreground) is waited for the 30 s, then the agent starts.
 */
async function entrypointSettled(session: SandboxSession): Promise<void> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
  const keepAlive = `${session.busybox} sleep ${KEEP_ALIVE_SECONDS}`;
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    if ((await session.processes()).some((p) => p.command === keepAlive)) break;
    await pause();
  }
  const listening = async () => {
    const pids = (await session.processes()).map((p) => p.pid);
    return [...(await session.listeners(pids)).values()].flat()
      .filter((socket) => socket.startsWith("tcp ")).sort().join(",");
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

/**
 * Runs a task's healthcheck until it passes, by Docker's `HEALTHCHECK`
 * rules as Harbor mirrors them ({@link TaskHealthcheck}): the command by the
 * image's `/bin/sh -c`, as the image's user, each run killed at its
 * timeout; failures during the start period do not count. The environment's
 * at its start; a multi-step task's step's before the step.
 *
 * @param session the task's environment
 * @param check the healthcheck
 * @throws {SandboxError} `environment_unhealthy` after `retries` consecutive failures that count
 */
export async function healthy(session: SandboxSession, check: TaskHealthcheck): Promise<void> {
  const start = performance.now();
  let failures = 0;
  for (;;) {
    const run = await session.exec({
      argv: ["/bin/sh", "-c", check.command],
      wallMs: check.timeout_ms,
      tailBytes: 2048,
    });
    if (run.exitCode === 0) return;
    const starting = performance.now() - start < check.start_period_ms;
    if (!starting && ++failures >= check.retries) {
      throw new SandboxError(
        "environment_unhealthy",
        `The task's environment failed its healthcheck ${failures} times in a row ` +
          `(exit code ${run.exitCode}${run.wallCapHit ? ", timed out" : ""}): ${
            (run.stderrTail || run.stdoutTail).trim().split("\n").at(-1) ?? ""
          }`,
      );
    }
    await new Promise((resolve) =>
      setTimeout(resolve, starting ? check.start_interval_ms : check.interval_ms)
    );
  }
}

/** Whether a path is one the sandbox reserves, or lies inside one. */
function reserved(path: string): boolean {
  return RESERVED_CONTAINER_PATHS.some((r) => path === r || path.startsWith(`${r}/`));
}
