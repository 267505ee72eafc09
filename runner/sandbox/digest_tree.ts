/**
 * Content digests of directory trees.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import { SandboxError } from "./sandbox_error.ts";

/** One entry of a tree manifest. Paths are relative, `/`-separated. */
export type TreeEntry =
  | { path: string; type: "dir" }
  | { path: string; type: "file"; exec: boolean; size: number; sha256: string }
  | { path: string; type: "symlink"; target: string };

/** The digest of a tree and the manifest it was computed from. */
export interface TreeDigest {
  /** `sha256:<hex>` of the canonical manifest. */
  digest: string;
  /** Entries sorted by path. */
  entries: TreeEntry[];
  /** The canonical manifest: one JSON object per entry and line. */
  manifest: string;
  /** Number of regular files. */
  files: number;
  /** Total bytes of regular files. */
  bytes: number;
  /** Paths of special files (fifos, sockets, devices): never opened, not digested. */
  skipped: string[];
}

/** Options of {@linkcode digestTree}. */
export interface DigestTreeOptions {
  /** Refuse trees whose regular files exceed this many bytes in total; default unlimited. */
  maxBytes?: number;
}

/**
 * Computes a content digest of a directory tree that is independent of
 * timestamps, owners, permission bits other than "executable", and directory
 * listing order: the SHA-256 of a canonical manifest with one JSON line per
 * entry, sorted by relative path (UTF-16 code-unit order), with keys in the
 * fixed order `path, type, exec, size, sha256` (files), `path, type` (dirs),
 * `path, type, target` (symlinks, never followed). Fifos, sockets and devices
 * are never opened; they are listed in `skipped` and left out of the digest.
 * Same content gives the same digest on any machine (seed 000: artifacts and
 * hidden verifier files are identified and checked by digest).
 *
 * Cost: reads every regular file once, O(total bytes).
 *
 * @param dir the root directory (itself not an entry)
 * @param options byte budget
 * @returns the digest, sorted entries and manifest
 * @throws {SandboxError} `too_large` when the files exceed `maxBytes`
 */
export async function digestTree(
  dir: string,
  options: DigestTreeOptions = {},
): Promise<TreeDigest> {
  const maxBytes = options.maxBytes ?? Infinity;
  const entries: TreeEntry[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  let files = 0;

  async function visit(abs: string, rel: string): Promise<void> {
    const children: string[] = [];
    for await (const child of Deno.readDir(abs)) children.push(child.name);
    children.sort();
    for (const name of children) {
      const childAbs = `${abs}/${name}`;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const info = await Deno.lstat(childAbs);
      if (info.isSymlink) {
        entries.push({ path: childRel, type: "symlink", target: await Deno.readLink(childAbs) });
      } else if (info.isDirectory) {
        entries.push({ path: childRel, type: "dir" });
        await visit(childAbs, childRel);
      } else if (info.isFile) {
        bytes += info.size;
        files += 1;
        if (bytes > maxBytes) {
          throw new SandboxError(
            "too_large",
            `Cannot digest "${dir}": its files exceed ${maxBytes} bytes`,
          );
        }
        entries.push({
          path: childRel,
          type: "file",
          exec: ((info.mode ?? 0) & 0o111) !== 0,
          size: info.size,
          sha256: await sha256File(childAbs),
        });
      } else {
        skipped.push(childRel);
      }
    }
  }

  await visit(dir.replace(/\/+$/, "") || "/", "");
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...treeManifest(entries), entries, files, bytes, skipped };
}

/**
 * The canonical manifest of tree entries already sorted by path, and its
 * digest, as {@linkcode digestTree} computes them: one JSON line per entry,
 * `sha256:<hex>` of the whole. Lets a caller state the digest a changed view
 * of a tree must have (the verifier's view of an artifact, whose escaping
 * links are neutralised) without a tree on disk.
 *
 * @param entries the entries, sorted by path
 * @returns the manifest and its digest
 */
export function treeManifest(entries: readonly TreeEntry[]): { manifest: string; digest: string } {
  const manifest = entries.map((e) => JSON.stringify(e) + "\n").join("");
  return { manifest, digest: `sha256:${sha256Hex(manifest)}` };
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  const file = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(1 << 16);
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    file.close();
  }
  return hash.digest("hex");
}
