/**
 * A lock the test processes of one machine share, for work they must not
 * do twice at once (a stand-in base, the stand-in's Python).
 *
 * @module
 */
import { systemTempDir } from "./_test_ca.ts";

/**
 * Runs `work` holding the exclusive `flock(2)` lock of
 * `${TMPDIR:-/tmp}/<name>.lock`, so that callers in this process or others
 * run it one at a time; the lock is released however `work` ends.
 *
 * @param name the lock file's name, without `.lock`
 * @param work what to run under the lock
 * @returns what `work` returns
 */
export async function withMachineLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  const lock = await Deno.open(`${systemTempDir()}/${name}.lock`, {
    read: true,
    write: true,
    create: true,
  });
  try {
    await lock.lock(true);
    return await work();
  } finally {
    lock.close();
  }
}
