/**
 * The primitives of one live sandbox: run a process in it, copy
 * a directory in, read a file, list what changed in its filesystem and the
 * processes alive in it. The verifier protocols of a task's own environment
 * (`harbor_verifier.ts`: Harbor's shared mode, the verifier in the
 * candidate's own container) are written once on top of these, the way
 * inspect_ai's `SandboxEnvironment` (exec, write_file, read_file) carries
 * every scorer; a later backend (Podman, Kubernetes) implements the same
 * members and reuses the protocols unchanged.
 *
 * Every harness command a protocol runs inside a session goes through the
 * runner's own static busybox ({@link SandboxSession.busybox}: in a
 * container {@link GATE_BUSYBOX}, bind-mounted read-only), never a program
 * of the image's `PATH`, which the candidate may have replaced.
 *
 * @module
 */
export { GATE_BUSYBOX } from "./_gate.ts";
import type { ProcessEnd } from "./process_end.ts";
import type { ImageFacts } from "./image_facts.ts";
import { SandboxError } from "./sandbox_error.ts";

/** One process to run in a session. */
export interface SessionExec {
  /** The argv, run directly (a name without a slash is looked up in the image's `PATH`). */
  argv: readonly string[];
  /** The process's whole environment beyond the image's `ENV`. */
  env?: Record<string, string>;
  /** `user[:group]`; default the session's. */
  user?: string;
  /** The working directory; default the session's. */
  cwd?: string;
  /** Killed (with every process it started that is still its descendant) after this many ms. */
  wallMs: number;
  /** Kills it when aborted. */
  signal?: AbortSignal;
  /** Bytes kept from the end of its stdout and of its stderr; default 65536. */
  tailBytes?: number;
  /** Told its host PID once it has started (the root of what it starts). */
  onStart?: (pid: number) => void;
}

/** How {@link SandboxSession.forwardPort} serves the sandbox. */
export interface ForwardOptions {
  /**
   * Whether to serve a connection, told the host PID of the sandbox's
   * process that opened it (null when it cannot be found); one refused is
   * closed at once, unread. It needs the capability `processControl`.
   * Absent: every connection is served.
   */
  admit?: (clientPid: number | null) => Promise<boolean>;
  /**
   * How long a connection may go without sending a request's headers after
   * the other side last answered, in ms; default the relay's
   * (`HEADER_DEADLINE_MS`, `_pipe_to_socket.ts`). A proxy's tunnels, which
   * may stay quiet long after their request, pass a longer one.
   */
  headerDeadlineMs?: number;
}

/** What one {@link SessionExec} did: how it ended, and the bounded tails of its output. */
export interface SessionExecRun extends ProcessEnd {
  stdoutTail: string;
  stderrTail: string;
}

/** One entry of a filesystem diff against the image, as the engine reports it. */
export interface FsChange {
  /** Absolute path inside the container. */
  path: string;
  kind: "modified" | "added" | "deleted";
}

/** One process alive in a session. */
export interface SessionProcess {
  /** Its PID on the host. */
  pid: number;
  /** Its parent's PID on the host. */
  ppid: number;
  /** Its real uid, as a number's digits. */
  user: string;
  /** Its command line (untrusted text). */
  command: string;
}

/**
 * What a backend's sessions can do beyond the primitives every session
 * has (`exec`, `copyIn`, `archiveOut`, `archiveIn`, `readFile`,
 * `forwardPort`, `oomKilled`), as Harbor's environments declare theirs:
 * a protocol that needs a capability refuses a backend without it (a
 * harness fault, never the candidate's), and the conformance suite
 * (`session_conformance.ts`) checks what a backend declares.
 */
export interface SessionCapabilities {
  /**
   * The session's paths are its own (a container's root filesystem): a
   * protocol may place files at fixed paths (`/tests`, `/logs/verifier`).
   * False for the host, whose paths are the host's: a protocol passes it
   * host directories of its own instead.
   */
  ownFilesystem: boolean;
  /** `exec` runs a process as the `user` it is asked for. */
  users: boolean;
  /** `changes()`: the filesystem's diff against the image (Harbor's shared mode flags from it). */
  changes: boolean;
  /**
   * `processes()`, `listeners()`, `stopAllBut()`, `resume()` and
   * `forwardPort`'s `admit`: the sandbox's processes seen and stopped from
   * outside it, and a forwarded connection told by the process that opened
   * it (Harbor's shared mode needs them).
   */
  processControl: boolean;
}

/** A live sandbox and its primitives. */
export interface SandboxSession {
  /** What it can do beyond the primitives every session has. */
  readonly capabilities: SessionCapabilities;
  /** The runner's own busybox, as a path inside the session: every harness command runs it. */
  readonly busybox: string;
  /** Runs one process to its end. */
  exec(request: SessionExec): Promise<SessionExecRun>;
  /**
   * Copies the contents of a host directory into a directory of the
   * sandbox (created), owned by root, modes kept.
   */
  copyIn(hostDir: string, path: string): Promise<void>;
  /**
   * A path of the sandbox (a file or a directory) as a tar archive whose one
   * top entry is its base name, or null when it does not exist.
   *
   * @throws {SandboxError} `too_large` past `maxBytes` of archive
   */
  archiveOut(path: string, maxBytes: number): Promise<Uint8Array | null>;
  /** Unpacks a tar archive ({@link SandboxSession.archiveOut}'s) into a directory of the sandbox (created). */
  archiveIn(archive: Uint8Array, dir: string): Promise<void>;
  /** The first `maxBytes` of a file, or null when it is absent or not a regular file. */
  readFile(path: string, maxBytes: number): Promise<Uint8Array | null>;
  /** What differs from the image in the sandbox's own filesystem (mounts excluded). */
  changes(): Promise<FsChange[]>;
  /** The processes alive in the sandbox. */
  processes(): Promise<SessionProcess[]>;
  /**
   * Listens on `127.0.0.1:<port>` inside the sandbox (`0`: a free port) and
   * pipes each connection to a unix socket of the host (the model relay,
   * the verifier's egress proxy): the sandbox's only way out.
   *
   * @returns the port it listens on, and its end
   * @throws {SandboxError} `unsupported` for `admit` without `processControl`
   */
  forwardPort(
    port: number,
    socketPath: string,
    options?: ForwardOptions,
  ): Promise<{ port: number; close(): Promise<void> }>;
  /**
   * The bytes its writable root filesystem takes on the host's disk (a
   * container's writable layer), or null where it has none of its own or
   * cannot be measured.
   */
  writableBytes(): Promise<number | null>;
  /** Whether the kernel's OOM killer has ended one of its processes. */
  oomKilled(): Promise<boolean>;
  /**
   * How many forks its pids limit has refused so far (the pids cgroup's
   * `max` event count); null where there is no such limit or it cannot be read.
   */
  pidsLimitHits(): Promise<number | null>;
  /**
   * The listening sockets (`tcp <address>:<port>`, `unix <path>`) each of
   * `pids` holds, for those that hold one: the services a task's tests may query.
   */
  listeners(pids: readonly number[]): Promise<Map<number, string[]>>;
  /**
   * Stops every process of the sandbox but those in `keep` (host PIDs), and
   * every process they fork meanwhile, until none is left running; they stay
   * stopped until the sandbox ends.
   *
   * @returns the host PIDs stopped
   */
  stopAllBut(keep: ReadonlySet<number>): Promise<number[]>;
  /** Lets processes {@link SandboxSession.stopAllBut} stopped run again (host PIDs still in the sandbox). */
  resume(pids: readonly number[]): Promise<void>;
}

/** A host directory a session sees at a path of its own. */
export interface SessionMount {
  host: string;
  path: string;
  readOnly: boolean;
}

/**
 * A sandbox with seed 000's isolation (§03–04: no network, a read-only
 * root, every capability dropped but those named, no new privileges, a
 * pids and memory limit), as a protocol asks a backend for one. A backend
 * whose capabilities lack `ownFilesystem` cannot give the mounts and
 * refuses a spec that has any: a protocol hands it host paths instead.
 */
export interface SessionSpec {
  /**
   * `ledgerbench.role`: whose sandbox it is (a probe: the engine's flags
   * checked, `engine_flags_check.ts`; a service: a task's sidecar, or the
   * network its sidecars and environment share, `task_pod.ts`).
   */
  role: "candidate" | "verifier" | "probe" | "service";
  /** The image ID it runs (never pulled); none runs on the host. */
  image: string;
  mounts: readonly SessionMount[];
  /** Further writable scratch filesystems (tmpfs), path → size in bytes and mode, beside `/tmp`. */
  scratch?: Record<string, { bytes: number; mode: string }>;
  /** `user[:group]` its processes run as unless told otherwise. */
  user: string;
  /** The directory its processes start in unless told otherwise. */
  cwd: string;
  /** Variables every process of it sees beyond the image's `ENV` (each exec's own win); default none. */
  env?: Record<string, string>;
  /** The capabilities kept after every one is dropped; default none. */
  keepCapabilities?: readonly string[];
  pidsLimit: number;
  memoryBytes: number;
  nanoCpus?: number;
  /**
   * Size of its `/tmp`, a `noexec` tmpfs; null: the image's own `/tmp`, as
   * Harbor runs a task's environment (a program built and run under `/tmp`
   * works there: `go test`, a checker compiled into `tempfile.mkdtemp()`).
   */
  tmpfsBytes: number | null;
  labels: Record<string, string>;
  /**
   * A task's own environment as Harbor runs it, instead of the sealed
   * sandbox (`environment_session.ts` says what it gives up and why): the
   * image's `entrypoint` runs first and hands over to the keep-alive, the
   * root filesystem is writable, and the low ports are open to every user.
   */
  asBuilt?: {
    entrypoint: readonly string[];
    /**
     * The process that runs after the entrypoint's words instead of the
     * keep-alive (a task's sidecar service runs its own command, and its
     * session ends when it does); absent: the keep-alive.
     */
    command?: readonly string[];
  };
  /**
   * Its network namespace. Absent: a fresh one holding only loopback.
   * `shared`: a fresh one holding only loopback that other sessions join,
   * its low ports open to every user (as a task's environment runs them);
   * `join`: the namespace of that session (its `id`), shared. Either way
   * nothing but loopback is in it. (Names are a mount of `/etc/hosts`:
   * Podman gives a joiner a hosts file of its own.)
   */
  network?: "shared" | { join: string };
}

/** A session a backend opened, and its end. */
export interface OpenSession extends SandboxSession {
  /** The container it is, or null where none runs. */
  readonly id: string | null;
  /** Ends it and every process left in it (idempotent; never throws). */
  end(): Promise<void>;
}

/**
 * What a backend implements: its capabilities, the images it holds, and
 * sessions opened by a spec. Every protocol is written once above it.
 */
export interface SessionBackend {
  readonly capabilities: SessionCapabilities;
  /**
   * @throws {SandboxError} `image_missing`, `engine_error`, `isolation_failed`, `unsupported`
   */
  open(spec: SessionSpec): Promise<OpenSession>;
  /**
   * The facts of an image it holds, or null when it holds none by that
   * reference (images are never pulled).
   *
   * @throws {SandboxError} `engine_error`; `unsupported` where no image runs (the host)
   */
  image(reference: string): Promise<ImageFacts | null>;
  /**
   * Copies a directory of an image, as built (nothing of the image run),
   * to a host path it creates, owners and modes kept, the directory's own
   * included (a workdir the image gave its `[agent] user` stays theirs).
   *
   * @param dest a path that does not exist yet, in a directory of the runner's
   * @returns false when the image has no such directory (nothing is created)
   * @throws {SandboxError} `engine_error`; `unsupported` where no image runs (the host)
   */
  copyFromImage(imageId: string, path: string, dest: string): Promise<boolean>;
}

/**
 * Refuses a session whose backend lacks a capability a protocol needs,
 * before the protocol does anything (Harbor's environments declare theirs
 * the same way): the runner's fault for choosing that backend, never the
 * candidate's.
 *
 * @param session the session the protocol would run on
 * @param needs the capabilities it needs
 * @param protocol the protocol's name, for the message
 * @throws {SandboxError} `unsupported`, naming each capability missing
 * @example
 * ```ts
 * import { requireCapabilities, type SandboxSession } from "./sandbox_session.ts";
 * import { throws } from "node:assert/strict";
 * const host = { capabilities: { ownFilesystem: false, users: false, changes: false, processControl: false } };
 * throws(() => requireCapabilities(host as SandboxSession, ["changes"], "Harbor's shared mode"), /changes/);
 * ```
 */
export function requireCapabilities(
  session: SandboxSession,
  needs: readonly (keyof SessionCapabilities)[],
  protocol: string,
): void {
  const missing = needs.filter((need) => !session.capabilities[need]);
  if (missing.length > 0) {
    throw new SandboxError(
      "unsupported",
      `Cannot run ${protocol} on this backend: its sessions lack ${
        missing.map((need) => `"${need}"`).join(", ")
      }`,
    );
  }
}
