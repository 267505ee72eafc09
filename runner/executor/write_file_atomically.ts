/**
 * Writes a file so that a reader on another machine of a shared file system
 * sees either nothing or the whole file: the text goes to a temporary name
 * beside it, is synced, then renamed into place (rename(2) is atomic within
 * a directory, also over NFS). The executor's requests and the nodes'
 * results are written this way, so a half-written result is never read.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Writes `text` to `path` atomically (see the module doc).
 *
 * @param path the file to write; its directory must exist
 * @param text the whole content
 * @throws {Error} naming the path when it cannot be written (the temporary file is removed)
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.tmp-${crypto.randomUUID()}`;
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
    try {
      const bytes = encoder.encode(text);
      let written = 0;
      while (written < bytes.length) written += await file.write(bytes.subarray(written));
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw new Error(`Cannot write "${path}": ${(error as Error).message}`);
  }
}
