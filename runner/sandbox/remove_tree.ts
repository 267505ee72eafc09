/**
 * Removal of trees that may be read-only.
 *
 * @module
 */

/**
 * Removes a directory tree, including read-only snapshots made by `copyTree`
 * (directories are made owner-writable first when a plain recursive removal
 * is refused). A missing tree is not an error.
 *
 * @param path the tree to remove
 * @throws {Error} when the tree cannot be removed even after making it writable
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
    return;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
  }
  await makeWritable(path);
  await Deno.remove(path, { recursive: true });
}

async function makeWritable(dir: string): Promise<void> {
  const info = await Deno.lstat(dir);
  if (!info.isDirectory) return;
  await Deno.chmod(dir, 0o700);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) await makeWritable(`${dir}/${entry.name}`);
  }
}
