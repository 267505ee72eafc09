/**
 * Reading a file that someone else may have placed (an artifact store, a
 * run's directory): only a regular file, never through a symbolic link,
 * and never more than a bound. The file is opened with `O_NONBLOCK` and
 * `O_NOFOLLOW` (open(2)), so a fifo placed where a file was expected
 * neither blocks the reader nor is read, and a link is refused; what was
 * opened is then checked with `fstat`, so nothing swapped in between the
 * check and the read is read.
 *
 * @module
 */
import { constants, open } from "node:fs/promises";

/**
 * The whole content of a regular file of at most `maxBytes`.
 *
 * @param path the file
 * @param maxBytes the most bytes read; a larger file is refused
 * @returns its bytes
 * @throws {Deno.errors.NotFound} when nothing is there
 * @throws {Error} `"<path>" is not a regular file` (a fifo, a device, a
 *   directory, a symbolic link) or `"<path>" is over <n> bytes`
 * @example
 * ```ts
 * import { readRegularFile } from "./read_regular_file.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a`, "abc");
 * const bytes = await readRegularFile(`${dir}/a`, 16);
 * await Deno.remove(dir, { recursive: true });
 * if (new TextDecoder().decode(bytes) !== "abc") throw new Error();
 * ```
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") throw new Deno.errors.NotFound(`"${path}" does not exist`);
    if (code === "ELOOP") throw new Error(`"${path}" is not a regular file: a symbolic link`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`"${path}" is not a regular file`);
    if (info.size > maxBytes) throw new Error(`"${path}" is over ${maxBytes} bytes`);
    const bytes = new Uint8Array(maxBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > maxBytes) throw new Error(`"${path}" is over ${maxBytes} bytes`);
    }
    return bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
