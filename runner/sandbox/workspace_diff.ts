/**
 * The workspace diff an episode log keeps (against the task's start): what the candidate changed in its workspace,
 * from the task's `workspace/` directory as the suite ships it to the stored
 * artifact, as a git-style patch, bounded.
 *
 * Never follows a link (a link's target is compared as text), never opens
 * anything but a regular file of either tree, and reads a file's bytes only
 * when both sides are at most {@link WORKSPACE_DIFF_LIMITS}`.fileBytes`
 * (larger or non-UTF-8 files are named with their sizes, as `git diff` names
 * binary files). The artifact side is read from its stored manifest, so
 * only the changed files are read.
 *
 * @module
 */
import { digestTree, type TreeEntry } from "./digest_tree.ts";
import { unifiedDiff } from "./unified_diff.ts";
import { lineText } from "../../analysis/untrusted_text.ts";

/** How a path changed. */
export type WorkspaceChangeKind = "added" | "deleted" | "modified";

/** The diff as an episode log stores it. */
export interface WorkspaceDiff {
  /** The patch (its first `maxBytes` bytes at most, cut at a line's end when `truncated`). */
  text: string;
  /** True when the patch went past `maxBytes`: `text` is its head (`files` still lists every path). */
  truncated: boolean;
  /** Every changed path (its first `maxFiles`), in path order. */
  files: { path: string; kind: WorkspaceChangeKind }[];
  /** Changed paths left out past `maxFiles`. */
  files_omitted: number;
}

/** The bounds of a stored diff. */
export interface WorkspaceDiffLimits {
  maxBytes: number;
  maxFiles: number;
  fileBytes: number;
}

/** The bounds of a stored diff, by default. */
export const WORKSPACE_DIFF_LIMITS: Readonly<WorkspaceDiffLimits> = {
  /** Bytes of patch kept. */
  maxBytes: 256 * 1024,
  /** Changed paths listed. */
  maxFiles: 1000,
  /** The largest file whose lines are compared. */
  fileBytes: 1024 * 1024,
};

/**
 * The diff from `startDir` (the task's workspace) to the stored artifact
 * `artifactDir` (whose manifest is `<artifactDir>.manifest.jsonl`): each
 * path added, deleted or modified (content, executable bit, type or link
 * target), in path order; a text file's lines as a unified diff with 3
 * lines of context, other files as `Binary files ... differ` with their
 * sizes; a directory is a path like any other, listed when it appears or
 * disappears. Once the patch passes `maxBytes` it is cut on a line's end
 * and no more file is read (the later paths are still listed in `files`).
 *
 * Cost: digests `startDir` (O(its bytes)), reads the artifact's manifest and
 * the changed files of at most `fileBytes`; the line diffs are bounded by
 * `unifiedDiff`'s edit bound.
 *
 * @param startDir the task's workspace as shipped (never modified)
 * @param artifactDir the stored artifact (never modified)
 * @param limits bounds (default {@link WORKSPACE_DIFF_LIMITS})
 * @returns the bounded patch and the changed paths
 * @throws {Error} when either tree or the manifest cannot be read
 */
export async function workspaceDiff(
  startDir: string,
  artifactDir: string,
  limits: Partial<WorkspaceDiffLimits> = {},
): Promise<WorkspaceDiff> {
  const bounds = { ...WORKSPACE_DIFF_LIMITS, ...limits };
  const before = new Map((await digestTree(startDir)).entries.map((e) => [e.path, e]));
  const manifest = await Deno.readTextFile(`${artifactDir}.manifest.jsonl`);
  const after = new Map(
    manifest.split("\n").filter((line) => line !== "").map((line) => {
      const entry = JSON.parse(line) as TreeEntry;
      return [entry.path, entry];
    }),
  );
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const files: WorkspaceDiff["files"] = [];
  let patch = "";
  for (const path of paths) {
    const old = before.get(path);
    const now = after.get(path);
    if (old !== undefined && now !== undefined && sameEntry(old, now)) continue;
    const kind: WorkspaceChangeKind = old === undefined
      ? "added"
      : now === undefined
      ? "deleted"
      : "modified";
    files.push({ path, kind });
    if (patch.length <= bounds.maxBytes) {
      patch += await entryPatch(path, old, now, startDir, artifactDir, bounds.fileBytes);
    }
  }
  const encoded = new TextEncoder().encode(patch);
  const truncated = encoded.length > bounds.maxBytes;
  let text = patch;
  if (truncated) {
    const head = new TextDecoder().decode(encoded.subarray(0, bounds.maxBytes));
    text = head.slice(0, head.lastIndexOf("\n") + 1);
  }
  return {
    text,
    truncated,
    files: files.slice(0, bounds.maxFiles),
    files_omitted: Math.max(0, files.length - bounds.maxFiles),
  };
}

function sameEntry(a: TreeEntry, b: TreeEntry): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "file" && b.type === "file") return a.sha256 === b.sha256 && a.exec === b.exec;
  if (a.type === "symlink" && b.type === "symlink") return a.target === b.target;
  return true;
}

/** What an entry is, in one line of a header. */
function describe(entry: TreeEntry): string {
  if (entry.type === "dir") return "directory";
  if (entry.type === "symlink") return `symlink -> ${lineText(entry.target)}`;
  return `file, ${entry.size} bytes${entry.exec ? ", executable" : ""}`;
}

/** One path's part of the patch. */
async function entryPatch(
  path: string,
  old: TreeEntry | undefined,
  now: TreeEntry | undefined,
  startDir: string,
  artifactDir: string,
  fileBytes: number,
): Promise<string> {
  // A name is the candidate's: one line, escaped, so it cannot forge a header.
  const name = lineText(path);
  let head = `diff --git a/${name} b/${name}\n`;
  if (old === undefined) head += `new ${describe(now!)}\n`;
  else if (now === undefined) head += `deleted ${describe(old)}\n`;
  else if (old.type !== now.type || old.type !== "file") {
    head += `old ${describe(old)}\nnew ${describe(now)}\n`;
  } else if (old.type === "file" && now.type === "file" && old.exec !== now.exec) {
    head += `old mode ${old.exec ? "100755" : "100644"}\nnew mode ${
      now.exec ? "100755" : "100644"
    }\n`;
  }
  const a = old?.type === "file" ? old : undefined;
  const b = now?.type === "file" ? now : undefined;
  if (a === undefined && b === undefined) return head;
  if (a !== undefined && b !== undefined && a.sha256 === b.sha256) return head;
  const aText = a === undefined ? "" : await readText(`${startDir}/${path}`, a.size, fileBytes);
  const bText = b === undefined ? "" : await readText(`${artifactDir}/${path}`, b.size, fileBytes);
  if (aText === null || bText === null) {
    return head +
      `Binary files ${a === undefined ? "/dev/null" : `a/${name}`} and ${
        b === undefined ? "/dev/null" : `b/${name}`
      } differ (${a?.size ?? 0} -> ${b?.size ?? 0} bytes)\n`;
  }
  return head + `--- ${a === undefined ? "/dev/null" : `a/${name}`}\n` +
    `+++ ${b === undefined ? "/dev/null" : `b/${name}`}\n` + unifiedDiff(aText, bText);
}

/** A regular file's text, or null when it is too large, not UTF-8 or holds a NUL. */
async function readText(file: string, size: number, fileBytes: number): Promise<string | null> {
  if (size > fileBytes) return null;
  const info = await Deno.lstat(file);
  if (!info.isFile) return null;
  const bytes = await Deno.readFile(file);
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
