/**
 * A process's `/proc/<pid>/stat` read on the host (proc(5)): its command
 * name (field 2) is in parentheses and may hold spaces or `)`, so the
 * other fields are counted after the last `)`. Every reader of the file
 * (the process tree, stopped processes, a container's init that ended,
 * whether a PID still names the same process) goes through here.
 *
 * @module
 */

/** What the runner reads of a process's `stat`. */
export interface ProcStat {
  /** Field 2: the command name, without its parentheses (untrusted text). */
  comm: string;
  /** Field 3: `R`, `S`, `D`, `T` (stopped), `t`, `Z` (zombie), `X` (dead), ... */
  state: string;
  /** Field 4: its parent's PID. */
  ppid: number;
  /** Field 22: its start time in clock ticks since boot (with the PID, who it is). */
  startTicks: number;
}

/**
 * Parses the text of a `/proc/<pid>/stat`.
 *
 * @param text the file's text
 * @returns the fields, or null when it is not a whole `stat` line
 * @example
 * ```ts
 * import { parseProcStat } from "./proc_stat.ts";
 * import { deepEqual } from "node:assert/strict";
 * const line = "42 (a) b) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0";
 * deepEqual(parseProcStat(line), { comm: "a) b", state: "S", ppid: 7, startTicks: 12345 });
 * ```
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const fields = text.slice(close + 2).split(" ");
  if (fields.length < 20) return null;
  return {
    comm: text.slice(open + 1, close),
    state: fields[0],
    ppid: Number(fields[1]),
    startTicks: Number(fields[19]),
  };
}

/**
 * A host process's `stat`.
 *
 * @param pid the host PID
 * @returns its fields, or null when it is gone (or cannot be read)
 */
export async function procStat(pid: number): Promise<ProcStat | null> {
  const text = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
  return text === null ? null : parseProcStat(text);
}
