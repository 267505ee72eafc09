/**
 * Private: how much disk a container's writable layer takes. A
 * task's environment runs with a writable root, as Harbor runs it, so what
 * the agent writes outside its workspace lands in the engine's overlay
 * upper directory on the host's disk; the runner measures that directory
 * while the agent runs and stops the agent past the task's `storage_mb`
 * (`environment_candidate.ts`).
 *
 * @module
 */

/** Entries walked at most: past it the layer counts as over any limit. */
export const LAYER_ENTRY_LIMIT = 200_000;

/**
 * The bytes a directory tree occupies (allocated blocks × 512, so a sparse
 * file counts what it really takes), directories and links included.
 *
 * @param dir the overlay upper directory
 * @param maxEntries entries walked before giving up (default {@link LAYER_ENTRY_LIMIT})
 * @returns the bytes, or `Infinity` past `maxEntries` entries; 0 when the directory is gone
 */
export async function layerBytes(dir: string, maxEntries = LAYER_ENTRY_LIMIT): Promise<number> {
  let bytes = 0;
  let entries = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const at = pending.pop()!;
    let listing: AsyncIterable<Deno.DirEntry>;
    try {
      listing = Deno.readDir(at);
    } catch {
      continue;
    }
    try {
      for await (const entry of listing) {
        if (++entries > maxEntries) return Infinity;
        const path = `${at}/${entry.name}`;
        const info = await Deno.lstat(path).catch(() => null);
        if (info === null) continue;
        bytes += (info.blocks ?? 0) * 512;
        if (info.isDirectory) pending.push(path);
      }
    } catch {
      // removed meanwhile
    }
  }
  return bytes;
}
