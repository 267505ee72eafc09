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
  /**
   * Refuse trees with an entry nested deeper than this (an entry directly in
   * `dir` has depth 1); default unlimited.
   */
  maxDepth?: number;
  /** Refuse trees with a relative path longer than this many UTF-8 bytes; default unlimited. */
  maxPathBytes?: number;
  /** Stops the walk (rejecting with the signal's reason) once aborted: a deadline. */
  signal?: AbortSignal;
}

/** U+FFFD, the character Deno puts in place of bytes of a name that are not UTF-8. */
const REPLACEMENT = "\uFFFD";

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
 * A tree is refused as `unstorable` when a name or a link target contains
 * U+FFFD: `Deno.readDir` and `Deno.readLink` decode names lossily, putting
 * U+FFFD for bytes that are not UTF-8, so such an entry cannot be opened,
 * digested or copied by the name we read (a real U+FFFD is refused too, as
 * the two cannot be told apart). It is also refused past `maxDepth` or
 * `maxPathBytes`, checked before the kernel's PATH_MAX (4096 bytes) is
 * reached, so a deep tree is refused by rule rather than by an error of
 * whichever call first meets a long path.
 *
 * Cost: reads every regular file once, O(total bytes).
 *
 * @param dir the root directory (itself not an entry)
 * @param options byte, depth and path budgets, and an abort signal (a deadline)
 * @returns the digest, sorted entries and manifest
 * @throws {SandboxError} `too_large` when the files exceed `maxBytes`; `unstorable` for a
 *   name that is not UTF-8, or a path deeper than `maxDepth` or longer than `maxPathBytes`
 * @throws {unknown} the signal's reason once `signal` is aborted
 */
export async function digestTree(
  dir: string,
  options: DigestTreeOptions = {},
): Promise<TreeDigest> {
  const maxBytes = options.maxBytes ?? Infinity;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxPathBytes = options.maxPathBytes ?? Infinity;
  const signal = options.signal;
  const encoder = new TextEncoder();
  const refuse = (why: string): never => {
    throw new SandboxError("unstorable", `Cannot digest "${dir}": ${why}`);
  };
  const entries: TreeEntry[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  let files = 0;

  async function visit(abs: string, rel: string, depth: number): Promise<void> {
    const children: string[] = [];
    for await (const child of Deno.readDir(abs)) children.push(child.name);
    children.sort();
    for (const name of children) {
      signal?.throwIfAborted();
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if (name.includes(REPLACEMENT)) {
        refuse(`the name of "${childRel}" is not valid UTF-8 (or holds U+FFFD)`);
      }
      if (depth > maxDepth) refuse(`"${childRel}" is nested deeper than ${maxDepth} levels`);
      if (encoder.encode(childRel).length > maxPathBytes) {
        refuse(`the path "${childRel.slice(0, 64)}..." is longer than ${maxPathBytes} bytes`);
      }
      const childAbs = `${abs}/${name}`;
      const info = await Deno.lstat(childAbs);
      if (info.isSymlink) {
        const target = await Deno.readLink(childAbs).catch((error) => {
          // Deno refuses a target that is not UTF-8 instead of decoding it lossily.
          if (error instanceof Deno.errors.InvalidData) return REPLACEMENT;
          throw error;
        });
        if (target.includes(REPLACEMENT)) {
          refuse(`the target of link "${childRel}" is not valid UTF-8 (or holds U+FFFD)`);
        }
        entries.push({ path: childRel, type: "symlink", target });
      } else if (info.isDirectory) {
        entries.push({ path: childRel, type: "dir" });
        await visit(childAbs, childRel, depth + 1);
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
          sha256: await sha256File(childAbs, signal),
        });
      } else {
        skipped.push(childRel);
      }
    }
  }

  await visit(dir.replace(/\/+$/, "") || "/", "", 1);
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
  return { manifest, digest: treeDigestOfManifest(manifest) };
}

/**
 * The tree digest of a canonical manifest's text: `sha256:<hex>` of its bytes.
 *
 * @param manifest the manifest, one JSON line per entry
 * @returns the digest
 */
export function treeDigestOfManifest(manifest: string): string {
  return `sha256:${sha256Hex(manifest)}`;
}

async function sha256File(path: string, signal: AbortSignal | undefined): Promise<string> {
  const hash = createHash("sha256");
  const file = await Deno.open(path, { read: true });
  try {
    const buffer = new Uint8Array(1 << 16);
    for (;;) {
      signal?.throwIfAborted();
      const n = await file.read(buffer);
      if (n === null) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    file.close();
  }
  return hash.digest("hex");
}
