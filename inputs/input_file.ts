/**
 * Opening what a command reads: a regular file, as a stream of chunks or
 * in full, with every failure (absent, a directory, unreadable, a read
 * error half-way) raised as one `io_error` problem naming the file.
 *
 * @module
 */
import { ioError, type LedgerError } from "../analysis/ledger_error.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";

/** Bytes per read of {@link openInput}. */
export const READ_CHUNK_BYTES = 1 << 20;

/** Why `path` cannot be read as a file, or null when it is a regular file (or a link to one). */
async function notAFile(path: string): Promise<LedgerError | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    return ioError(path, error);
  }
  if (info.isDirectory) return ioError(path, "is a directory, not a file");
  if (!info.isFile) return ioError(path, "is not a regular file");
  return null;
}

/**
 * Opens a file as a byte stream: chunks of up to {@link READ_CHUNK_BYTES}
 * (a file's `readable` yields 64 KiB chunks: 16 times the async reads,
 * stream steps and line carries over chunk borders), each a fresh buffer
 * the consumer may keep. The file is closed when the stream ends or its
 * consumer stops early.
 *
 * Rule: only a regular file (or a link to one) is read; a directory, a
 * device or a fifo is refused before anything is read.
 *
 * @param path the file, as given
 * @returns the stream
 * @throws {LedgerError} code `io_error`, line 0, when the file cannot be
 *   opened, is not a regular file, or a read fails (then from the stream)
 */
export async function openInput(path: string): Promise<AsyncIterable<Uint8Array>> {
  const refusal = await notAFile(path);
  if (refusal !== null) throw refusal;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    throw ioError(path, error);
  }
  return readChunks(file, path);
}

async function* readChunks(file: Deno.FsFile, path: string): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const buffer = new Uint8Array(READ_CHUNK_BYTES);
      let filled = 0;
      while (filled < buffer.length) {
        let read: number | null;
        try {
          read = await file.read(buffer.subarray(filled));
        } catch (error) {
          throw ioError(path, error);
        }
        if (read === null) break;
        filled += read;
      }
      if (filled > 0) yield filled === buffer.length ? buffer : buffer.subarray(0, filled);
      if (filled < buffer.length) return;
    }
  } finally {
    file.close();
  }
}

/**
 * Reads a whole file (see {@link openInput} for what is refused).
 *
 * @param path the file, as given
 * @returns its bytes
 * @throws {LedgerError} code `io_error`, line 0
 */
export async function readInput(path: string): Promise<Uint8Array> {
  const refusal = await notAFile(path);
  if (refusal !== null) throw refusal;
  try {
    return await Deno.readFile(path);
  } catch (error) {
    throw ioError(path, error);
  }
}

/**
 * SHA-256 (hex) of a file's bytes, for outputs that record what they read.
 *
 * @param path the file, as given
 * @returns the lower-case hex digest
 * @throws {LedgerError} code `io_error`, line 0 (see {@link openInput})
 */
export async function inputSha256(path: string): Promise<string> {
  return sha256Hex(await readInput(path));
}

/**
 * Whether anything exists at a path, of any kind (`lstat`: a dangling
 * symlink exists): an optional input, or a file an output would join.
 *
 * @param path the path, as given
 * @returns true when something is there
 * @throws {LedgerError} code `io_error` when the path cannot be examined
 *   (e.g. permission denied on a directory above it)
 */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw ioError(path, error);
  }
}

/**
 * Whether a path is a regular file, or a directory, as `kind` asks
 * (`stat`: a link is followed); nothing there, or a path through a file,
 * is false.
 *
 * @param path the path, as given
 * @param kind what it must be
 * @returns true when it is that
 * @throws {LedgerError} code `io_error` when the path cannot be examined
 */
export async function pathIs(path: string, kind: "file" | "directory"): Promise<boolean> {
  try {
    const stat = await Deno.stat(path);
    return kind === "file" ? stat.isFile : stat.isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return false;
    }
    throw ioError(path, error);
  }
}
