/**
 * The host's implementation of {@link SandboxSession}, for the operator's
 * explicit `--unsandboxed` (`host_sandbox.ts`): its processes are host
 * processes and its paths are the host's. It has the primitives every
 * session has, with the host's limits said here and in its capabilities:
 *
 * - `exec` runs a host process with exactly the environment it is given
 *   (nothing of the runner's but a `PATH`, unless the request names one),
 *   stdin closed, in the session's directory unless told otherwise; at its
 *   wall cap, or when its signal aborts, it is killed with every process
 *   still its descendant (`killDescendants`). It runs as the runner's own
 *   user: a request for another user is refused (`users: false`).
 * - `copyIn`, `archiveOut`, `archiveIn` and `readFile` act on host paths
 *   with `cp`, `tar` and the runner's own reads (a copy is owned by the
 *   runner's user, modes kept) (`ownFilesystem: false`: a
 *   protocol that places files at fixed paths, such as Harbor's `/tests`,
 *   cannot run here and refuses it with `requireCapabilities`).
 * - `forwardPort` listens on the host's own loopback (port 0 picks a free
 *   one): nothing keeps a host process from the rest of the network, and it
 *   cannot tell which process opened a connection (no `admit`).
 * - No OOM killer nor pids limit is set on it, so `oomKilled` is always
 *   false and `pidsLimitHits` null; it has no
 *   diff against an image (`changes: false`) and no set of processes of its
 *   own to list or stop (`processControl: false`): those primitives throw
 *   `unsupported`.
 *
 * The conformance suite (`session_conformance.ts`) runs against it in
 * `host_session_test.ts` and reports those checks unsupported.
 *
 * @module
 */
import { constants, open } from "node:fs/promises";
import { concatBytes } from "../../analysis/concat_bytes.ts";
import { startForwarder } from "../relay/start_forwarder.ts";
import { gateBusybox } from "./_gate.ts";
import { killDescendants } from "./_kill_descendants.ts";
import { SandboxError } from "./sandbox_error.ts";
import type {
  OpenSession,
  SessionBackend,
  SessionCapabilities,
  SessionExec,
  SessionExecRun,
} from "./sandbox_session.ts";
import { ByteTail } from "./tail_text.ts";

/** What the host's session can do beyond the primitives every session has: nothing. */
const HOST_CAPABILITIES: SessionCapabilities = {
  ownFilesystem: false,
  users: false,
  changes: false,
  processControl: false,
};

/**
 * The host as a {@link SessionBackend}: each session a host session
 * starting in the spec's directory. Nothing of the spec's isolation can be
 * given (no network isolation, no read-only root, no capability drop, no
 * pids or memory limit), which is why only the operator's explicit
 * `--unsandboxed` uses it; a spec with mounts is refused (`unsupported`).
 *
 * @returns the backend
 */
export function hostSessionBackend(): SessionBackend {
  return {
    capabilities: HOST_CAPABILITIES,
    async open(spec) {
      if (Object.keys(spec.env ?? {}).length > 0) {
        throw new SandboxError(
          "unsupported",
          "The host session gives no variables to all its processes",
        );
      }
      if (spec.mounts.length > 0) {
        throw new SandboxError(
          "unsupported",
          `The host session cannot mount "${spec.mounts[0].host}" at "${spec.mounts[0].path}"`,
        );
      }
      if (spec.network !== undefined) {
        throw new SandboxError("unsupported", "The host session has no network namespace to share");
      }
      return await startHostSession({ cwd: spec.cwd });
    },
    image: () => Promise.reject(noImages()),
    copyFromImage: () => Promise.reject(noImages()),
  };
}

/** The host runs processes, never images. */
function noImages(): SandboxError {
  return new SandboxError("unsupported", "The host session runs no image");
}

/** Options of {@link startHostSession}. */
export interface HostSessionOptions {
  /** The directory processes start in unless told otherwise. */
  cwd: string;
}

/**
 * Opens a host session (see the module doc). Nothing is started: it ends
 * with the processes run in it.
 *
 * @param options the directory processes start in
 * @returns the session
 * @throws {SandboxError} `image_missing` when the runner's busybox is not on the host
 */
export async function startHostSession(options: HostSessionOptions): Promise<OpenSession> {
  const busybox = gateBusybox();
  if (!(await Deno.stat(busybox).then((info) => info.isFile, () => false))) {
    throw new SandboxError(
      "image_missing",
      `Cannot open a host session: the runner's busybox "${busybox}" is missing ` +
        "(install busybox, or set LEDGERBENCH_BUSYBOX)",
    );
  }
  const unsupported = (primitive: string) => () =>
    Promise.reject(
      new SandboxError(
        "unsupported",
        `The host session has no ${primitive}: it is not a sandbox of its own`,
      ),
    );
  return {
    id: null,
    // Nothing runs in it but what exec started, which ended with its exec.
    end: () => Promise.resolve(),
    capabilities: HOST_CAPABILITIES,
    busybox,
    exec: (request) => execOnHost(request, options.cwd),
    copyIn: async (hostDir, path) => {
      await Deno.mkdir(path, { recursive: true });
      await run("cp", ["-R", "--preserve=mode", `${hostDir}/.`, `${path}/`]);
    },
    archiveOut,
    archiveIn: async (archive, dir) => {
      await Deno.mkdir(dir, { recursive: true });
      await run("tar", ["-x", "-C", dir], archive);
    },
    readFile,
    forwardPort: async (port, socketPath, forward) => {
      if (forward?.admit !== undefined) {
        throw new SandboxError(
          "unsupported",
          "The host session cannot tell which process opened a connection",
        );
      }
      return await startForwarder({ pid: null, socketPath, port });
    },
    oomKilled: () => Promise.resolve(false),
    pidsLimitHits: () => Promise.resolve(null),
    writableBytes: () => Promise.resolve(null),
    changes: unsupported("diff against an image"),
    processes: unsupported("processes of its own"),
    listeners: unsupported("processes of its own"),
    stopAllBut: unsupported("processes of its own"),
    resume: unsupported("processes of its own"),
  };
}

/** Runs one host process to its end (see the module doc). */
async function execOnHost(request: SessionExec, cwd: string): Promise<SessionExecRun> {
  if (request.user !== undefined) {
    throw new SandboxError(
      "unsupported",
      `The host session runs processes as the runner's user, not "${request.user}"`,
    );
  }
  const tailBytes = request.tailBytes ?? 65536;
  const startedAt = new Date().toISOString();
  const clock = performance.now();
  const child = new Deno.Command(request.argv[0], {
    args: request.argv.slice(1),
    cwd: request.cwd ?? cwd,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...request.env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  request.onStart?.(child.pid);
  let killedBy: "wall" | "abort" | null = null;
  const kill = (by: "wall" | "abort") => {
    killedBy ??= by;
    void killDescendants(child.pid);
  };
  const timer = setTimeout(() => kill("wall"), request.wallMs);
  const onAbort = () => kill("abort");
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) onAbort();
  const stdout = new ByteTail(tailBytes);
  const stderr = new ByteTail(tailBytes);
  const [status] = await Promise.all([
    child.status,
    collect(child.stdout, stdout),
    collect(child.stderr, stderr),
  ]);
  clearTimeout(timer);
  request.signal?.removeEventListener("abort", onAbort);
  return {
    exitCode: status.code,
    wallCapHit: killedBy === "wall",
    aborted: killedBy === "abort",
    wallMs: performance.now() - clock,
    startedAt,
    finishedAt: new Date().toISOString(),
    stdoutTail: stdout.text(),
    stderrTail: stderr.text(),
  };
}

async function collect(stream: ReadableStream<Uint8Array>, tail: ByteTail): Promise<void> {
  for await (const chunk of stream) tail.push(chunk);
}

/** `path` as a tar whose one top entry is its base name; null when absent; `too_large` past `maxBytes`. */
async function archiveOut(path: string, maxBytes: number): Promise<Uint8Array | null> {
  if (!(await Deno.lstat(path).then(() => true, () => false))) return null;
  const slash = path.lastIndexOf("/");
  const child = new Deno.Command("tar", {
    args: ["-c", "-C", path.slice(0, slash) || "/", path.slice(slash + 1)],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const parts: Uint8Array[] = [];
  let size = 0;
  const errors = new Response(child.stderr).text();
  for await (const chunk of child.stdout) {
    size += chunk.length;
    if (size > maxBytes) {
      try {
        child.kill("SIGKILL");
      } catch {
        // it has written all and ended already
      }
      await child.status;
      throw new SandboxError("too_large", `"${path}" is over ${maxBytes} bytes as an archive`);
    }
    parts.push(chunk);
  }
  if (!(await child.status).success) {
    throw new SandboxError("engine_error", `Cannot archive "${path}": ${(await errors).trim()}`);
  }
  return concatBytes(parts);
}

/** Runs a host tool to its end, with `input` on its stdin when given. */
async function run(program: string, args: string[], input?: Uint8Array): Promise<void> {
  const child = new Deno.Command(program, {
    args,
    stdin: input === undefined ? "null" : "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(input).catch(() => {});
    await writer.close().catch(() => {});
  }
  const out = await child.output();
  if (!out.success) {
    throw new SandboxError(
      "engine_error",
      `${program} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr).trim()}`,
    );
  }
}

/**
 * The first `maxBytes` of a regular file (followed through links, as the
 * container sessions' `test -f` does), or null for anything else; opened
 * without blocking, so a fifo is refused at once.
 */
async function readFile(path: string, maxBytes: number): Promise<Uint8Array | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    const buffer = new Uint8Array(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buffer, filled, maxBytes - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
