/**
 * Where a runner's unix sockets go (the model relay's, the judge's relay's,
 * the verifier's egress proxy's), whatever `TMPDIR` is (issue 24: a
 * `TMPDIR` of 30-odd characters put every relay socket over the 107 bytes
 * of `sun_path`, unix(7), and made every episode a harness error; a Slurm
 * job's temporary directory is longer still). Each runner process makes one
 * private directory `/tmp/ledgerbench-sockets-<pid>-<start>-<8 hex>` (mode
 * 0700, named after the process as runner_identity.ts tells it, the hex
 * random so that no other user can make it first), at most 62 bytes for
 * any pid and start time, so a socket path below it stays far within the
 * limit. A socket file is removed by the server that made it when it
 * closes; the directory when the process exits, or, after a kill, by the
 * next runner that makes its own (the directories of runners that are gone,
 * this user's only).
 *
 * Not the abstract namespace: an abstract socket belongs to the network
 * namespace it was bound in (unix(7)), so the `nsenter` forwarder inside a
 * container's namespace could not reach it, and it has no permissions, so
 * every process of the host's namespace could reach the relay.
 *
 * @module
 */
import { currentRunner, runnerAlive } from "./runner_identity.ts";

/** The directory sockets go under: short, and on every Linux host. */
const BASE = "/tmp";
const PREFIX = "ledgerbench-sockets-";
const NAME = /^ledgerbench-sockets-(\d+)-(\d+)-[0-9a-f]{8}$/;

/** This process's socket directory, once made. */
let made: Promise<string> | null = null;
/** Sockets named so far by this process. */
let sockets = 0;

/**
 * A fresh socket path in this process's private socket directory,
 * `<dir>/<name>-<n>.sock`; the directory is made on first use (removing
 * first those of runners that are gone, see
 * {@link removeDeadRunnerSocketDirs}). Nothing is created at the path.
 *
 * @param name what the socket is for (`relay`, `judge`, `egress`)
 * @returns the path, at most 62 + 7 + `name` + digits bytes
 * @throws {Error} when the directory cannot be made under `/tmp`
 * @example
 * ```ts
 * import { runnerSocketPath } from "./runner_socket_path.ts";
 * const path = await runnerSocketPath("relay");
 * if (!/^\/tmp\/ledgerbench-sockets-\d+-\d+-[0-9a-f]{8}\/relay-\d+\.sock$/.test(path)) {
 *   throw new Error(path);
 * }
 * ```
 */
export async function runnerSocketPath(name: string): Promise<string> {
  made ??= makeSocketDir().catch((error) => {
    made = null;
    throw error;
  });
  return `${await made}/${name}-${++sockets}.sock`;
}

async function makeSocketDir(): Promise<string> {
  await removeDeadRunnerSocketDirs();
  const self = currentRunner();
  for (;;) {
    const random = crypto.getRandomValues(new Uint8Array(4));
    const hex = [...random].map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const dir = `${BASE}/${PREFIX}${self.pid}-${self.start}-${hex}`;
    try {
      // mkdir(2) never follows a link at the last component: the directory is new and ours.
      await Deno.mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) continue;
      throw new Error(
        `Cannot make the runner's socket directory "${dir}": ${(error as Error).message}`,
      );
    }
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(dir, { recursive: true });
      } catch {
        // left to the next runner's sweep
      }
    });
    return dir;
  }
}

/**
 * Removes the socket directories under `/tmp` of this user's runners that
 * are gone (a pid no longer running with the start time in the name). One
 * that cannot be removed is reported through `warn` and left.
 *
 * @param warn where a failed removal is reported; default stderr
 * @returns the directories removed, sorted
 */
export async function removeDeadRunnerSocketDirs(
  warn: (message: string) => void = (message) => console.error(message),
): Promise<string[]> {
  const host = Deno.hostname();
  const uid = Deno.uid();
  const removed: string[] = [];
  for await (const entry of Deno.readDir(BASE)) {
    const match = NAME.exec(entry.name);
    if (!entry.isDirectory || match === null) continue;
    if (runnerAlive({ host, pid: Number(match[1]), start: Number(match[2]) })) continue;
    const dir = `${BASE}/${entry.name}`;
    try {
      if ((await Deno.lstat(dir)).uid !== uid) continue;
      await Deno.remove(dir, { recursive: true });
      removed.push(dir);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // another runner removed it first
      warn(
        `warning: cannot remove "${dir}", left by a runner that is gone: ${
          (error as Error).message
        }`,
      );
    }
  }
  return removed.sort();
}
