/**
 * Symlinks of a stored workspace as the verifier may see them (seed 000: nothing the candidate writes may reach the
 * verifier's files; `ln -s /verifier/expected.txt /workspace/answer.txt` passed four
 * demo tasks, because the verifier followed the candidate's link into its
 * own hidden files).
 *
 * @module
 */
import type { TreeEntry } from "./digest_tree.ts";

/**
 * The target a neutralised link gets in the verifier's view. Nothing can
 * ever exist below `/dev/null` (a character device in every container), so
 * following the link fails with `ENOTDIR` wherever the view is mounted, and
 * `readlink` shows the verifier what the link was: one that leaves the
 * workspace.
 */
export const OUTSIDE_LINK_TARGET = "/dev/null/ledgerbench-link-leaves-the-workspace";

/** Linux's limit of symlinks followed in one path resolution (`ELOOP` beyond it). */
const MAX_LINK_HOPS = 40;

/**
 * The links of a tree that leave it, each mapped to
 * {@linkcode OUTSIDE_LINK_TARGET}. A link is kept only when its target,
 * resolved inside the tree the way the kernel would resolve it there
 * (component by component, through the tree's own links, `..` from the
 * link's own directory), reaches an existing entry of the tree without ever
 * climbing above its root. Every other link is neutralised: an absolute
 * target, a `..` above the root (directly or through another link), a
 * missing component, a component below a regular file, a link chain longer
 * than Linux's 40. Only the tree's own entries are consulted, so the answer
 * is the same on every machine and does not depend on where the tree is
 * mounted.
 *
 * The stored artifact keeps every link as the candidate wrote it (its
 * digest is the candidate's workspace); only the verifier's copy is changed,
 * and its digest is checked against {@linkcode confinedEntries}.
 *
 * Cost: O(links × path length × hops), hops at most 40 per link.
 *
 * @param entries the tree's manifest entries (see `digestTree`)
 * @returns path → new target of every link that leaves the tree
 */
export function escapingLinks(entries: readonly TreeEntry[]): Map<string, string> {
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  const escaping = new Map<string, string>();
  for (const entry of entries) {
    if (entry.type !== "symlink") continue;
    const parent = entry.path.split("/").slice(0, -1);
    if (resolveInside(byPath, parent, entry.target, { hops: 0 }) === null) {
      escaping.set(entry.path, OUTSIDE_LINK_TARGET);
    }
  }
  return escaping;
}

/**
 * The entries of a tree's verifier view: those of the tree, with every link
 * that leaves it retargeted to {@linkcode OUTSIDE_LINK_TARGET}.
 *
 * @param entries the tree's manifest entries, sorted by path
 * @returns the view's entries, in the same order
 */
export function confinedEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  const escaping = escapingLinks(entries);
  return entries.map((entry) =>
    entry.type === "symlink" && escaping.has(entry.path)
      ? { path: entry.path, type: "symlink", target: escaping.get(entry.path)! }
      : entry
  );
}

/**
 * Resolves `target` from the directory `from` (path components) inside the
 * tree; null when it leaves the tree or cannot be resolved there.
 */
function resolveInside(
  byPath: ReadonlyMap<string, TreeEntry>,
  from: readonly string[],
  target: string,
  budget: { hops: number },
): string[] | null {
  if (target.startsWith("/")) return null;
  let stack = [...from];
  const parts = target.split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (stack.length === 0) return null;
      stack.pop();
      continue;
    }
    stack.push(part);
    let entry = byPath.get(stack.join("/"));
    if (entry?.type === "symlink") {
      if (++budget.hops > MAX_LINK_HOPS) return null;
      const resolved = resolveInside(byPath, stack.slice(0, -1), entry.target, budget);
      if (resolved === null) return null;
      stack = resolved;
      entry = stack.length === 0 ? { path: "", type: "dir" } : byPath.get(stack.join("/"));
    }
    if (entry === undefined) return null;
    const more = parts.slice(i + 1).some((rest) => rest !== "" && rest !== ".");
    if (entry.type === "file" && more) return null;
  }
  return stack;
}
