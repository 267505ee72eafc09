/**
 * Test helper: a temporary directory that is removed, read-only snapshots
 * included, when the test's scope ends (`await using`).
 *
 * @module
 */
import { removeTree } from "./sandbox/remove_tree.ts";

/** A temporary directory, removed on `Symbol.asyncDispose`. */
export interface TempDir extends AsyncDisposable {
  /** Its absolute path. */
  path: string;
}

/**
 * Creates a temporary directory for one test.
 *
 * @param prefix the directory name's prefix
 * @returns the directory; `await using dir = await tempDir()` removes it at the end of the scope
 */
export async function tempDir(prefix = "ledgerbench-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, [Symbol.asyncDispose]: () => removeTree(path) };
}
