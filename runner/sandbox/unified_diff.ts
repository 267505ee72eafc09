/**
 * A line diff of two texts in the unified format (`diff -u`, POSIX.1-2024
 * `diff`, "Unified format"; GNU diffutils' manual, section 2.2.2), for the
 * workspace diff an episode log keeps. Pure.
 *
 * @module
 */

/** Options of {@linkcode unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** Unchanged lines shown around each change; default 3, as `diff -u`. */
  context?: number;
  /**
   * The most edits (inserted plus deleted lines) the shortest-edit search
   * looks for; past it the whole text is shown as replaced, which is a
   * correct diff, only not the shortest. Default 4000. Bounds the cost.
   */
  maxEdits?: number;
}

/** One line of the edit script: kept, deleted from `a` or inserted from `b`. */
type Edit = { op: " " | "-" | "+"; line: string };

/**
 * The hunks of a unified diff between `a` and `b` (each split into lines at
 * LF; a text that does not end in LF gets `\ No newline at end of file` after
 * its last line, as `diff` writes it), from the shortest edit script of
 * E. W. Myers, "An O(ND) Difference Algorithm and Its Variations",
 * Algorithmica 1 (1986) 251-266, with `context` unchanged lines around each
 * change. No header lines (`---`, `+++`): the caller names the files.
 * Equal texts give "".
 *
 * Cost: O((N + M) · D) time and O(D²) memory for N and M lines and D edits,
 * D at most `maxEdits` (past it, O(N + M): everything deleted, then inserted).
 *
 * @param a the old text
 * @param b the new text
 * @param options context lines and the edit bound
 * @returns the hunks, each opening with `@@ -l,s +l,s @@`, every line ending in LF
 * @example
 * ```ts
 * import { unifiedDiff } from "./unified_diff.ts";
 * const hunks = unifiedDiff("a\nb\nc\n", "a\nB\nc\n");
 * if (hunks !== "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n") throw new Error(hunks);
 * ```
 */
export function unifiedDiff(a: string, b: string, options: UnifiedDiffOptions = {}): string {
  if (a === b) return "";
  const context = options.context ?? 3;
  const left = splitLines(a);
  const right = splitLines(b);
  const edits = editScript(left, right, options.maxEdits ?? 4000);
  return hunks(edits, context);
}

/** Lines at LF; a last line without LF is marked for "\ No newline at end of file". */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  else lines[lines.length - 1] += "\n\\ No newline at end of file";
  return lines;
}

/** Myers' greedy forward search, then the path read back from the saved frontiers. */
function editScript(a: readonly string[], b: readonly string[], maxEdits: number): Edit[] {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    v = next;
  }
  if (found < 0) {
    return [
      ...a.map((line) => ({ op: "-" as const, line })),
      ...b.map((line) => ({
        op: "+" as const,
        line,
      })),
    ];
  }
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const frontier = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && frontier[offset + k - 1] < frontier[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = frontier[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) edits.push({ op: " ", line: a[--x] }), y--;
    if (down) edits.push({ op: "+", line: b[--y] });
    else edits.push({ op: "-", line: a[--x] });
  }
  while (x > 0 && y > 0) edits.push({ op: " ", line: a[--x] }), y--;
  return edits.reverse();
}

/** The edit script cut into hunks with `context` lines around each change. */
function hunks(edits: readonly Edit[], context: number): string {
  const changed = edits.map((edit, i) => edit.op === " " ? -1 : i).filter((i) => i >= 0);
  if (changed.length === 0) return "";
  let text = "";
  let start = 0;
  while (start < changed.length) {
    let end = start;
    while (end + 1 < changed.length && changed[end + 1] - changed[end] <= 2 * context + 1) end++;
    const from = Math.max(0, changed[start] - context);
    const to = Math.min(edits.length, changed[end] + context + 1);
    let aLine = 1;
    let bLine = 1;
    for (let i = 0; i < from; i++) {
      if (edits[i].op !== "+") aLine++;
      if (edits[i].op !== "-") bLine++;
    }
    const slice = edits.slice(from, to);
    const aCount = slice.filter((edit) => edit.op !== "+").length;
    const bCount = slice.filter((edit) => edit.op !== "-").length;
    text += `@@ -${range(aLine, aCount)} +${range(bLine, bCount)} @@\n`;
    for (const edit of slice) text += `${edit.op}${edit.line}\n`;
    start = end + 1;
  }
  return text;
}

/** A hunk's range: `l,s`, with `l` one less for an empty side (as `diff -u`). */
function range(line: number, count: number): string {
  return `${count === 0 ? line - 1 : line},${count}`;
}
