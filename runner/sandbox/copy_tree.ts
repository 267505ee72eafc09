/**
 * Copies of directory trees with normalised permissions.
 *
 * @module
 */

/** Options of {@linkcode copyTree}. */
export interface CopyTreeOptions {
  /**
   * Permissions of the copy: `writable` gives files 0644 (0755 when
   * executable) and directories 0755; `readonly` gives files 0444 (0555) and
   * directories 0555 (a read-only snapshot, as seed 000's verifier receives).
   * Default `writable`.
   */
  mode?: "writable" | "readonly";
}

/**
 * Copies a directory tree to a new directory: regular files by content,
 * directories recursively, symlinks as links (never followed, so a link to a
 * host file copies the link, not the file); fifos, sockets and devices are
 * skipped (never opened). Owners are the calling process's; permissions are
 * normalised by `options.mode`, keeping only the executable bit of the source.
 *
 * @param source the tree to copy (never modified)
 * @param target the directory to create; it must not exist
 * @param options permissions of the copy
 * @returns the number of regular files copied
 * @throws {Deno.errors.AlreadyExists} when `target` exists
 */
export async function copyTree(
  source: string,
  target: string,
  options: CopyTreeOptions = {},
): Promise<number> {
  const readonly = options.mode === "readonly";
  const fileMode = (exec: boolean) => (readonly ? 0o444 : 0o644) | (exec ? 0o111 : 0);
  const dirMode = readonly ? 0o555 : 0o755;
  let files = 0;

  async function copyDir(from: string, to: string): Promise<void> {
    await Deno.mkdir(to, { mode: 0o700 });
    for await (const entry of Deno.readDir(from)) {
      const src = `${from}/${entry.name}`;
      const dst = `${to}/${entry.name}`;
      const info = await Deno.lstat(src);
      if (info.isSymlink) {
        await Deno.symlink(await Deno.readLink(src), dst);
      } else if (info.isDirectory) {
        await copyDir(src, dst);
      } else if (info.isFile) {
        await Deno.copyFile(src, dst);
        await Deno.chmod(dst, fileMode(((info.mode ?? 0) & 0o111) !== 0));
        files += 1;
      }
    }
    await Deno.chmod(to, dirMode);
  }

  await copyDir(source, target);
  return files;
}
