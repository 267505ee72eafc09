/**
 * Private: which processes of a container hold a listening socket, read on
 * the host from `/proc` (proc(5): `/proc/<pid>/net/tcp`, `tcp6` and `unix`
 * list the sockets of the process's network namespace with their inodes;
 * `/proc/<pid>/fd/*` links to `socket:[<inode>]`). A TCP socket listens in
 * state `0A`; a unix socket listens with the flag `__SO_ACCEPTCON`
 * (`00010000`).
 *
 * @module
 */

/**
 * The listening sockets held by each of `pids`, described as
 * `tcp <address>:<port>` or `unix <path>`.
 *
 * @param initPid a process of the container's network namespace (its init)
 * @param pids the host PIDs to look at
 * @returns PID → its listening sockets, for the PIDs that hold at least one
 */
export async function listeningSockets(
  initPid: number,
  pids: readonly number[],
): Promise<Map<number, string[]>> {
  const listening = new Map<string, string>();
  for (const table of ["tcp", "tcp6"]) {
    const text = await Deno.readTextFile(`/proc/${initPid}/net/${table}`).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== "0A") continue;
      listening.set(fields[9], `tcp ${tcpAddress(fields[1])}`);
    }
  }
  const unix = await Deno.readTextFile(`/proc/${initPid}/net/unix`).catch(() => "");
  for (const line of unix.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 7 || (parseInt(fields[3], 16) & 0x10000) === 0) continue;
    listening.set(fields[6], `unix ${fields[7] ?? "(unnamed)"}`);
  }
  const held = new Map<number, string[]>();
  for (const pid of pids) {
    const sockets = new Set<string>();
    try {
      for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
        const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        const described = inode === undefined ? undefined : listening.get(inode);
        if (described !== undefined) sockets.add(described);
      }
    } catch {
      continue; // gone meanwhile
    }
    if (sockets.size > 0) held.set(pid, [...sockets].sort());
  }
  return held;
}

/** `0100007F:1F40` → `127.0.0.1:8000` (IPv4, little-endian); IPv6 kept as hex. */
function tcpAddress(hex: string): string {
  const [address, port] = hex.split(":");
  const portNumber = parseInt(port, 16);
  if (address.length !== 8) return `[${address}]:${portNumber}`;
  const bytes = address.match(/../g)!.map((b) => parseInt(b, 16)).reverse();
  return `${bytes.join(".")}:${portNumber}`;
}
