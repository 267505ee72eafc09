/**
 * Private: every sandbox container's create request (seed 000's isolation
 * flags) and its creation under the engine deadline, for the container
 * engine's sessions (`docker_session.ts`).
 *
 * @module
 */
import type Docker from "dockerode";
import { ENGINE_DEADLINE_MS, engineCall } from "../docker/engine_call.ts";
import { networkIsolationCheckable } from "./network_isolation_problem.ts";
import { SandboxError } from "./sandbox_error.ts";
import { engineIdentity } from "../docker/engine_identity.ts";
import { engineCreateOptions } from "./engine_create_options.ts";

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
  /**
   * Size of the writable tmpfs at `/tmp` (counted in the memory limit);
   * null: none, the image's own `/tmp` (a task's environment as built).
   */
  tmpfsBytes: number | null;
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
        ...(spec.tmpfsBytes === null
          ? {}
          : { "/tmp": `rw,nosuid,nodev,noexec,size=${spec.tmpfsBytes}` }),
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

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
