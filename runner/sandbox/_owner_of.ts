/**
 * Private: the runner's own ids without `--allow-sys`.
 *
 * @module
 */

/**
 * `uid:gid` owning a directory this process just created, i.e. the runner's
 * effective ids (read from the file system, so no `--allow-sys` is needed).
 *
 * @param dir a directory created by this process
 * @returns `"<uid>:<gid>"`
 */
export async function ownerOf(dir: string): Promise<string> {
  const info = await Deno.stat(dir);
  return `${info.uid ?? 0}:${info.gid ?? 0}`;
}
