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
   * directories 0555 (a read-only snapshot, as seed 000's verifier receives);
   * `private` gives files 0400 (0500) and directories 0500: readable by the
   * owner alone (the hidden verifier files, which candidate code run by the
   * verifier as another user must not read). Default `writable`.
   */
  mode?: "writable" | "readonly" | "private";
  /**
   * The target each symlink of the copy gets, from its path relative to
   * `source` and its target in the source; default the source's target
   * unchanged. The verifier's view of an artifact uses it to neutralise
   * links that leave the workspace (see `confinedLinkTargets`).
   */
  linkTarget?: (path: string, target: string) => string;
  /** Stops the copy (rejecting with the signal's reason) once aborted: a deadline. */
  signal?: AbortSignal;
}

/**
 * Copies a directory tree to a new directory: regular files by content,
 * directories recursively, symlinks as links (never followed, so a link to a
 * host file copies the link, not the file; `options.linkTarget` may rewrite
 * their targets); fifos, sockets and devices are
 * skipped (never opened). Owners are the calling process's; permissions are
 * normalised by `options.mode`, keeping only the executable bit of the source.
 *
 * @param source the tree to copy (never modified)
 * @param target the directory to create; it must not exist
 * @param options permissions of the copy, link targets, abort signal (checked before each entry)
 * @returns the number of regular files copied
 * @throws {Deno.errors.AlreadyExists} when `target` exists
 * @throws {unknown} the signal's reason once `signal` is aborted (the partial copy is left)
 */
export async function copyTree(
  source: string,
  target: string,
  options: CopyTreeOptions = {},
): Promise<number> {
  const { file: fileBits, dir: dirMode } = MODES[options.mode ?? "writable"];
  // An executable gets an execute bit wherever it has a read bit.
  const fileMode = (exec: boolean) => fileBits | (exec ? (fileBits & 0o444) >> 2 : 0);
  const linkTarget = options.linkTarget ?? ((_path: string, target: string) => target);
  let files = 0;

  async function copyDir(from: string, to: string, rel: string): Promise<void> {
    await Deno.mkdir(to, { mode: 0o700 });
    for await (const entry of Deno.readDir(from)) {
      options.signal?.throwIfAborted();
      const src = `${from}/${entry.name}`;
      const dst = `${to}/${entry.name}`;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const info = await Deno.lstat(src);
      if (info.isSymlink) {
        await Deno.symlink(linkTarget(path, await Deno.readLink(src)), dst);
      } else if (info.isDirectory) {
        await copyDir(src, dst, path);
      } else if (info.isFile) {
        await Deno.copyFile(src, dst);
        await Deno.chmod(dst, fileMode(((info.mode ?? 0) & 0o111) !== 0));
        files += 1;
      }
    }
    await Deno.chmod(to, dirMode);
  }

  await copyDir(source, target, "");
  return files;
}

/** Permission bits of each copy mode: regular files (before the executable bits) and directories. */
const MODES = {
  writable: { file: 0o644, dir: 0o755 },
  readonly: { file: 0o444, dir: 0o555 },
  private: { file: 0o400, dir: 0o500 },
} as const;
