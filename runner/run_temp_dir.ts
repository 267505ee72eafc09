/**
 * One temporary directory per runner (issue 9, item 7: 83 directories leaked
 * over 32 kills, some holding relay sockets and the verifier's hidden files
 * and expected answers). Every per-episode directory (`ledgerbench-candidate-`
 * with its workspace tmpfs, `ledgerbench-verifier-`, `ledgerbench-host-`) is
 * made inside `ledgerbench-run-<pid>-<start>-<n>-<host>`, named after the
 * runner process (runner_identity.ts; `n` counts the runs of one process).
 * A run removes its own at its end, and every run first removes those of
 * runners that are gone (unmounting what a killed runner left mounted below
 * them), never a live runner's. The host is in the name because a `TMPDIR` may be shared
 * by the nodes of a cluster (issue 24): a directory of another host's runner
 * is never judged by this host's pids. A name without a host (made before
 * it was added) is this host's.
 *
 * Sockets do not go here (runner_socket_path.ts): the length of `TMPDIR`
 * does not matter.
 *
 * @module
 */
import { currentRunner, runnerAlive } from "./runner_identity.ts";
import { removeTree } from "./sandbox/remove_tree.ts";
import { removeDeadRunnerSocketDirs } from "./runner_socket_path.ts";

const PREFIX = "ledgerbench-run-";
const NAME = /^ledgerbench-run-(\d+)-(\d+)-\d+(?:-(.+))?$/;

/** Runner directories made by this process so far (the last part of their names). */
let made = 0;

/** The directory temporary directories go to by default (`TMPDIR`, else `/tmp`). */
function defaultBase(): string {
  return Deno.env.get("TMPDIR") || "/tmp";
}

/** This runner's directory; `await using` removes it (see {@link removeRunTempDir}). */
export interface RunTempDir extends AsyncDisposable {
  path: string;
}

/**
 * Creates this runner's directory under `base`. Disposing it removes it; a
 * failure to do so is reported through `warn` and left to the next run's
 * {@link removeDeadRunnerTempDirs} (the name outlives this process).
 *
 * @param base where to create it; default `TMPDIR` or `/tmp`
 * @param warn where a failed removal is reported; default stderr
 * @returns the directory
 */
export async function createRunTempDir(
  base?: string,
  warn: (message: string) => void = (message) => console.error(message),
): Promise<RunTempDir> {
  const self = currentRunner();
  const root = base ?? defaultBase();
  for (;;) {
    const path = `${root}/${PREFIX}${self.pid}-${self.start}-${++made}-${self.host}`;
    try {
      await Deno.mkdir(path, { mode: 0o700 });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) continue;
      throw error;
    }
    return {
      path,
      [Symbol.asyncDispose]: () =>
        removeRunTempDir(path).catch((error) =>
          warn(`warning: cannot remove the run's temporary directory "${path}": ${error.message}`)
        ),
    };
  }
}

/**
 * Removes a runner directory: lazily unmounts every file system mounted
 * below it (deepest first; a killed runner leaves its candidates' workspace
 * tmpfs mounted), then the tree.
 *
 * @param dir the runner directory
 * @throws {Error} when a mount or the tree cannot be removed
 */
export async function removeRunTempDir(dir: string): Promise<void> {
  for (const point of await mountsBelow(dir)) {
    const out = await new Deno.Command("umount", { args: ["--lazy", point], stderr: "piped" })
      .output();
    if (!out.success) {
      throw new Error(
        `Cannot unmount "${point}" left by a runner: ${
          new TextDecoder().decode(out.stderr).trim()
        }`,
      );
    }
  }
  await removeTree(dir);
}

/**
 * Removes the runner directories under `base` whose runner is gone (its
 * host is this one and its pid no longer runs with the start time in the
 * name). One that cannot be removed (another run removing it at the same
 * time, a mount still busy) is reported through `warn` and left for a later
 * run: it never stops this one. The socket directories of runners that are
 * gone go too (`removeDeadRunnerSocketDirs`; not among those returned).
 *
 * @param base where runner directories are made; default `TMPDIR` or `/tmp`
 * @param warn where a failed removal is reported; default stderr
 * @returns the directories removed
 */
export async function removeDeadRunnerTempDirs(
  base?: string,
  warn: (message: string) => void = (message) => console.error(message),
): Promise<string[]> {
  const root = base ?? defaultBase();
  const host = Deno.hostname();
  const removed: string[] = [];
  for await (const entry of Deno.readDir(root)) {
    const match = NAME.exec(entry.name);
    if (!entry.isDirectory || match === null) continue;
    const runner = { host: match[3] ?? host, pid: Number(match[1]), start: Number(match[2]) };
    if (runnerAlive(runner)) continue;
    const dir = `${root}/${entry.name}`;
    try {
      await removeRunTempDir(dir);
      removed.push(dir);
    } catch (error) {
      warn(
        `warning: cannot remove "${dir}", left by a runner that is gone: ${
          (error as Error).message
        }`,
      );
    }
  }
  await removeDeadRunnerSocketDirs(warn);
  return removed.sort();
}

/** Mount points strictly below `dir`, deepest first (`/proc/self/mountinfo`, field 5). */
async function mountsBelow(dir: string): Promise<string[]> {
  const text = await Deno.readTextFile("/proc/self/mountinfo");
  const prefix = `${dir.replace(/\/+$/, "")}/`;
  return text.split("\n")
    .map((line) => line.split(" ")[4])
    .filter((point): point is string => point !== undefined)
    // proc(5): spaces, tabs, newlines and backslashes are octal escapes
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, code) => String.fromCharCode(parseInt(code, 8)))
    )
    .filter((point) => point.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}
