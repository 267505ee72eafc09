/**
 * The content hash of a suite directory, recorded in the frozen plan (seed
 * 000: "同一个种子每次生成逐字节一致的题目" is checked by this hash; seed 002:
 * the task pool is frozen before the first run).
 *
 * @module
 */
import { sha256Hex } from "../analysis/sha256_hex.ts";

/** One file of a directory listing. */
export interface FileDigest {
  /** Path relative to the hashed directory, `/`-separated. */
  path: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

/**
 * Lists every regular file under `dir` with its SHA-256, sorted by path
 * (UTF-16 code unit order). Symbolic links and other special files are
 * refused, so the listing cannot point outside the directory. O(total bytes).
 *
 * @param dir the directory
 * @param prefix the path prefix of the listing (used for recursion)
 * @returns the files, sorted by path
 * @throws {Error} on a symbolic link or special file
 */
export async function listFileDigests(dir: string, prefix = ""): Promise<FileDigest[]> {
  const out: FileDigest[] = [];
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) {
      out.push(...await listFileDigests(`${dir}/${entry.name}`, path));
    } else if (entry.isFile) {
      const bytes = await Deno.readFile(`${dir}/${entry.name}`);
      out.push({ path, sha256: sha256Hex(bytes) });
    } else {
      throw new Error(
        `Cannot hash suite: "${dir}/${entry.name}" is not a regular file or directory`,
      );
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * SHA-256 of a directory's canonical listing.
 *
 * Rule: the listing is one line `<sha256 hex>  <relative path>\n` per regular
 * file, sorted by path (the format of `sha256sum`), and the hash is the
 * SHA-256 of that text. File modes and timestamps are not part of it; names
 * and bytes are. O(total bytes).
 *
 * @param dir the directory (a suite, or one task's directory)
 * @returns lower-case hex SHA-256
 * @throws {Error} on a symbolic link or special file
 */
export async function suiteSha256(dir: string): Promise<string> {
  const listing = (await listFileDigests(dir)).map((f) => `${f.sha256}  ${f.path}\n`).join("");
  return sha256Hex(listing);
}
