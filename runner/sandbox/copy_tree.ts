/**
 * Copies of directory trees with normalised permissions, keeping sparse
 * files sparse (a 500 MiB sparse file was once stored at full
 * size, 500 MiB of host disk for the artifact and 500 MiB more for the
 * verifier's copy of it).
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
 * keeping holes (see below), directories recursively, symlinks as links
 * (never followed, so a link to a host file copies the link, not the file;
 * `options.linkTarget` may rewrite their targets); fifos, sockets and
 * devices are skipped (never opened). Owners are the calling process's; permissions are
 * normalised by `options.mode`, keeping only the executable bit of the source.
 *
 * Holes: a file of 1 MiB or more, and a smaller one of more than one block
 * (4,096 bytes) with fewer blocks allocated than its size needs (a sparse
 * file), is copied block by block: every block that holds only zero bytes
 * is skipped with a seek instead of written, so it is a hole in the copy
 * (the length is set last, so trailing zeros are a hole too). The copy
 * reads as the same bytes, so its digest is the source's (see
 * `digestTree`), and it takes on disk only its blocks that are not all
 * zeros, however the source was written (holes, or zeros written out).
 * Any other file is copied whole (`Deno.copyFile`, in the kernel): it is as
 * dense in the copy as in the source. So no copy takes more disk than its
 * source. Deno's `seek` has no `SEEK_DATA`, so holes are found by reading.
 *
 * Cost: reads every regular file once, O(total apparent bytes); writes only
 * the blocks that are not all zeros.
 *
 * @param source the tree to copy (never modified)
 * @param target the directory to create; it must not exist
 * @param options permissions of the copy, link targets, abort signal (checked before each
 *   entry and each MiB of a file)
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
        if (copiedWithHoles(info)) {
          await copySparse(src, dst, options.signal);
        } else {
          await Deno.copyFile(src, dst);
        }
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

/** The block a hole is made of: a page of tmpfs, a block of ext4 and xfs. */
const BLOCK = 4096;
/** Bytes read at once (a multiple of `BLOCK`). */
const CHUNK = 256 * BLOCK;

/**
 * Whether a file is copied block by block (see `copyTree`): 1 MiB or more,
 * or sparse and more than one block. A small dense file is copied whole:
 * one call instead of about eight, which each of 10,000 small files (the
 * inode limit) would pay.
 */
function copiedWithHoles(info: Deno.FileInfo): boolean {
  if (info.size <= BLOCK) return false;
  return info.size >= CHUNK || (info.blocks ?? Infinity) * 512 < info.size;
}

/**
 * Copies one regular file to a new file, leaving each `BLOCK` of zeros
 * (counted from the file's start) a hole: data runs are written at their
 * offsets, and the length is set last.
 */
async function copySparse(src: string, dst: string, signal: AbortSignal | undefined) {
  const from = await Deno.open(src, { read: true });
  try {
    const to = await Deno.open(dst, { write: true, createNew: true, mode: 0o600 });
    try {
      const buffer = new Uint8Array(CHUNK);
      const words = new Uint32Array(buffer.buffer);
      let offset = 0; // of buffer[0] in the file
      for (;;) {
        signal?.throwIfAborted();
        const n = await readFull(from, buffer);
        if (n === 0) break;
        // One run of data blocks [start, end) at a time.
        let start = 0;
        while (start < n) {
          while (start < n && isZeroBlock(buffer, words, start, Math.min(start + BLOCK, n))) {
            start += BLOCK;
          }
          if (start >= n) break;
          let end = start + BLOCK;
          while (end < n && !isZeroBlock(buffer, words, end, Math.min(end + BLOCK, n))) {
            end += BLOCK;
          }
          end = Math.min(end, n);
          await to.seek(offset + start, Deno.SeekMode.Start);
          await writeAll(to, buffer.subarray(start, end));
          start = end;
        }
        offset += n;
        if (n < buffer.length) break;
      }
      await to.truncate(offset);
    } finally {
      to.close();
    }
  } finally {
    from.close();
  }
}

/** Whether `buffer[start, end)` is all zeros (`start` a multiple of 4; `words` views `buffer`). */
function isZeroBlock(buffer: Uint8Array, words: Uint32Array, start: number, end: number): boolean {
  const wordEnd = end >> 2;
  for (let i = start >> 2; i < wordEnd; i++) if (words[i] !== 0) return false;
  for (let i = wordEnd << 2; i < end; i++) if (buffer[i] !== 0) return false;
  return true;
}

/** Reads until `buffer` is full or the file ends; returns the bytes read. */
async function readFull(file: Deno.FsFile, buffer: Uint8Array): Promise<number> {
  let n = 0;
  while (n < buffer.length) {
    const read = await file.read(buffer.subarray(n));
    if (read === null) break;
    n += read;
  }
  return n;
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}
