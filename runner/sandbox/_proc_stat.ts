/**
 * Private: a process's `/proc/<pid>/stat` read on the host (proc(5)): its
 * command name is in parentheses and may hold spaces or `)`, so the fields
 * are those after the last `)`.
 *
 * @module
 */

/** What the sandbox reads of a process's `stat`. */
export interface ProcStat {
  /** Field 3: `R`, `S`, `D`, `T` (stopped), `t`, `Z` (zombie), `X`, ... */
  state: string;
  /** Field 4: its parent's PID. */
  ppid: number;
}

/**
 * The state and parent of a host process.
 *
 * @param pid the host PID
 * @returns its state and parent, or null when it is gone (or cannot be read)
 */
export async function procStat(pid: number): Promise<ProcStat | null> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0], ppid: Number(fields[1]) };
}
