/**
 * The content-addressed store of candidate workspaces (seed 000: the stored
 * artifacts of a run can be re-verified later with zero model calls, as the
 * 16 artifacts of the 89-point incident were).
 *
 * Layout under a root directory:
 * - `<root>/sha256/<hex>/`: the workspace as a read-only snapshot
 *   (files 0444 or 0555, directories 0555), sparse: a block of zeros in a
 *   file of 1 MiB or more, or in a sparse file, is a hole (see `copyTree`);
 * - `<root>/sha256/<hex>.manifest.jsonl`: its canonical manifest (see
 *   `digestTree`), whose SHA-256 is `<hex>`.
 *
 * @module
 */
import { copyTree } from "./copy_tree.ts";
import { digestTree, treeDigestOfManifest, type TreeEntry } from "./digest_tree.ts";
import { removeTree } from "./remove_tree.ts";
import { removeDeadStaging, stagingPath } from "./store_staging.ts";
import { nameFullDisk } from "../name_full_disk.ts";

/** A stored workspace. */
export interface Artifact {
  /** `sha256:<hex>` of the canonical manifest (see `digestTree`). */
  digest: string;
  /** The read-only snapshot. */
  dir: string;
  /** Number of regular files. */
  files: number;
  /** Total bytes of regular files. */
  bytes: number;
}

/** Options of {@linkcode storeArtifact}. */
export interface StoreArtifactOptions {
  /** Refuse workspaces larger than this; default 1 GiB. */
  maxBytes?: number;
  /** Refuse workspaces with an entry nested deeper (see `digestTree`); default unlimited. */
  maxDepth?: number;
  /** Refuse workspaces with a longer relative path, in UTF-8 bytes; default unlimited. */
  maxPathBytes?: number;
  /** Stops storing (rejecting with the signal's reason) once aborted: a deadline. */
  signal?: AbortSignal;
}

/** One gibibyte. */
const GIB = 1024 ** 3;

/**
 * Stores a workspace as a content-addressed artifact: digests it, copies it
 * to a staging directory as a read-only snapshot, checks that the copy has
 * the same digest, and moves it to `<root>/sha256/<hex>`; the staging
 * directory is named after this runner, and the first store of a process
 * removes those of runners that are gone (`store_staging.ts`). A full file
 * system is a `DiskFullError` naming the store (`name_full_disk.ts`). Storing the same
 * content again returns the existing artifact (same content → same digest →
 * same directory). Fifos, sockets and devices are not stored. A workspace
 * `digestTree` refuses (over `maxBytes`, a name that is not UTF-8, deeper
 * than `maxDepth`, a path longer than `maxPathBytes`) is refused before
 * anything is written.
 *
 * Cost: reads the workspace three times (digest, copy, digest of the copy),
 * O(apparent bytes), which `maxBytes` bounds; writes only the blocks that
 * are not all zeros of its large and sparse files (see `copyTree`), so a
 * 500 MiB sparse file with 6 bytes written takes one 4 KiB block on disk.
 *
 * @param workspace the directory to store (never modified)
 * @param root the store's root directory (created when missing)
 * @param options size, depth and path budgets, abort signal
 * @returns the artifact
 * @throws {SandboxError} `too_large` when the workspace exceeds `maxBytes`; `unstorable`
 *   (see `digestTree`)
 * @throws {Error} when the workspace changes while it is being stored
 * @throws {DiskFullError} when the store's file system is full (`ENOSPC`, `EDQUOT`)
 * @throws {unknown} the signal's reason once `signal` is aborted (nothing is left staged)
 */
export async function storeArtifact(
  workspace: string,
  root: string,
  options: StoreArtifactOptions = {},
): Promise<Artifact> {
  const { signal } = options;
  const source = await digestTree(workspace, {
    maxBytes: options.maxBytes ?? GIB,
    maxDepth: options.maxDepth,
    maxPathBytes: options.maxPathBytes,
    signal,
  });
  const hex = source.digest.slice("sha256:".length);
  const shelf = `${root}/sha256`;
  const dir = `${shelf}/${hex}`;
  const store = [{ place: "artifact store", path: root }];
  await Deno.mkdir(shelf, { recursive: true }).catch((error) => {
    throw nameFullDisk(error, store);
  });
  await removeDeadStaging(root);
  if (await exists(dir)) return await openArtifact(root, source.digest);

  const staging = stagingPath(root);
  const manifestTmp = `${staging}.manifest.tmp`;
  try {
    await copyTree(workspace, staging, { mode: "readonly", signal });
    const staged = await digestTree(staging, { signal });
    if (staged.digest !== source.digest) {
      throw new Error(
        `Cannot store the workspace "${workspace}": it changed while being copied ` +
          `(digest "${source.digest}" before, "${staged.digest}" after)`,
      );
    }
    await Deno.writeTextFile(manifestTmp, source.manifest);
    await Deno.rename(manifestTmp, `${dir}.manifest.jsonl`);
    try {
      await Deno.rename(staging, dir);
    } catch (error) {
      // A concurrent store of the same content won the race: keep theirs.
      if (!(await exists(dir))) throw error;
    }
  } catch (error) {
    throw nameFullDisk(error, store);
  } finally {
    await removeTree(staging);
    await Deno.remove(manifestTmp).catch(() => {});
  }
  return { digest: source.digest, dir, files: source.files, bytes: source.bytes };
}

/**
 * Opens a stored artifact and checks its content against its digest.
 *
 * @param root the store's root directory
 * @param digest `sha256:<hex>` as recorded in the ledger row
 * @returns the artifact
 * @throws {Error} when the digest is malformed, the artifact is missing, or its
 * content no longer matches the digest
 */
export async function openArtifact(root: string, digest: string): Promise<Artifact> {
  const match = /^sha256:([0-9a-f]{64})$/.exec(digest);
  if (!match) throw new Error(`Cannot open artifact: digest "${digest}" is not "sha256:<64 hex>"`);
  const dir = `${root}/sha256/${match[1]}`;
  if (!(await exists(dir))) throw new Error(`Cannot open artifact "${digest}": not in "${root}"`);
  const found = await digestTree(dir);
  if (found.digest !== digest) {
    throw new Error(
      `Cannot open artifact "${digest}": its content in "${dir}" has digest "${found.digest}"`,
    );
  }
  return { digest, dir, files: found.files, bytes: found.bytes };
}

/**
 * The entries of a stored artifact, read from the canonical manifest stored
 * beside it (`<dir>.manifest.jsonl`) instead of walking its files: the
 * manifest's SHA-256 must be the artifact's digest. The files themselves are
 * not read, so a caller that copies them checks the copy's digest against
 * these entries (as the verifier does).
 *
 * Cost: reads the manifest, O(entries).
 *
 * @param artifact a stored artifact
 * @returns its entries, sorted by path (see `digestTree`)
 * @throws {Error} when the manifest is missing or its digest is not the artifact's
 */
export async function artifactEntries(artifact: Artifact): Promise<TreeEntry[]> {
  const file = `${artifact.dir}.manifest.jsonl`;
  const manifest = await Deno.readTextFile(file);
  const digest = treeDigestOfManifest(manifest);
  if (digest !== artifact.digest) {
    throw new Error(
      `Cannot read artifact "${artifact.digest}": its manifest "${file}" has digest "${digest}"`,
    );
  }
  return manifest.split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line) as TreeEntry
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
