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
  for (const { inode, address } of await tcpListeners(initPid)) {
    listening.set(inode, `tcp ${address}`);
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

/**
 * The listening TCP sockets (state `0A`) of a process's network namespace,
 * IPv4 and IPv6, each with its inode and its local address.
 *
 * @param pid a process of the namespace
 * @returns the sockets, in the tables' order; none when the tables cannot be read
 */
export async function tcpListeners(pid: number): Promise<{ inode: string; address: string }[]> {
  const found: { inode: string; address: string }[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await Deno.readTextFile(`/proc/${pid}/net/${table}`).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== "0A") continue;
      found.push({ inode: fields[9], address: tcpAddress(fields[1]) });
    }
  }
  return found;
}

/**
 * A `/proc/net/tcp{,6}` address as written: `0100007F:1F40` →
 * `127.0.0.1:8000`; IPv6 `00000000000000000000000000000000:1F40` →
 * `[::]:8000` (each 32-bit word is in host order, little-endian here).
 */
export function tcpAddress(hex: string): string {
  const [address, port] = hex.split(":");
  const portNumber = parseInt(port, 16);
  const words = address.match(/.{8}/g) ?? [];
  const bytes = words.flatMap((word) => word.match(/../g)!.map((b) => parseInt(b, 16)).reverse());
  if (bytes.length === 4) return `${bytes.join(".")}:${portNumber}`;
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i] << 8) | bytes[2 * i + 1]);
  // The longest run of zero groups (two or more) is written "::" (RFC 5952 §4.2).
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hexGroups = groups.map((g) => g.toString(16));
  const written = best.at < 0
    ? hexGroups.join(":")
    : `${hexGroups.slice(0, best.at).join(":")}::${
      hexGroups.slice(best.at + best.length).join(":")
    }`;
  return `[${written}]:${portNumber}`;
}
