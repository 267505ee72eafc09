/**
 * Private: which processes of a container hold a listening socket, and
 * which one holds the client end of a loopback connection, read on the host
 * from `/proc` (proc(5): `/proc/<pid>/net/tcp`, `tcp6` and `unix` list the
 * sockets of the process's network namespace with their inodes;
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
    for (const inode of await socketInodes(pid)) {
      const described = listening.get(inode);
      if (described !== undefined) sockets.add(described);
    }
    if (sockets.size > 0) held.set(pid, [...sockets].sort());
  }
  return held;
}

/** The inodes of the sockets a process holds open (none when it is gone). */
async function socketInodes(pid: number): Promise<string[]> {
  const inodes: string[] = [];
  try {
    for await (const fd of Deno.readDir(`/proc/${pid}/fd`)) {
      const target = await Deno.readLink(`/proc/${pid}/fd/${fd.name}`).catch(() => "");
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined) inodes.push(inode);
    }
  } catch {
    // gone meanwhile
  }
  return inodes;
}

/**
 * Which of `pids` holds the client end of the IPv4 loopback connection
 * from `clientPort` to `serverPort` in a process's network namespace: the
 * socket whose local address is `127.0.0.1:<clientPort>` and whose remote
 * is `127.0.0.1:<serverPort>`, found by its inode among their open files.
 *
 * @param initPid a process of the namespace (the container's init)
 * @param pids the host PIDs that may hold it
 * @param clientPort the connection's port on the client's side
 * @param serverPort the port it connected to
 * @returns the PID, or null when the connection or its holder is not found
 */
export async function loopbackClient(
  initPid: number,
  pids: readonly number[],
  clientPort: number,
  serverPort: number,
): Promise<number | null> {
  const local = `127.0.0.1:${clientPort}`;
  const remote = `127.0.0.1:${serverPort}`;
  const socket = (await tcpSockets(initPid)).find((s) => s.local === local && s.remote === remote);
  if (socket === undefined) return null;
  for (const pid of pids) {
    if ((await socketInodes(pid)).includes(socket.inode)) return pid;
  }
  return null;
}

/**
 * The listening TCP sockets (state `0A`) of a process's network namespace,
 * IPv4 and IPv6, each with its inode and its local address.
 *
 * @param pid a process of the namespace
 * @returns the sockets, in the tables' order; none when the tables cannot be read
 */
export async function tcpListeners(pid: number): Promise<{ inode: string; address: string }[]> {
  return (await tcpSockets(pid)).filter((socket) => socket.state === "0A")
    .map(({ inode, local }) => ({ inode, address: local }));
}

/** Every TCP socket of a process's network namespace (IPv4, then IPv6): its state, ends and inode. */
async function tcpSockets(
  pid: number,
): Promise<{ state: string; local: string; remote: string; inode: string }[]> {
  const found = [];
  for (const table of ["tcp", "tcp6"]) {
    const text = await Deno.readTextFile(`/proc/${pid}/net/${table}`).catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      found.push({
        state: fields[3],
        local: tcpAddress(fields[1]),
        remote: tcpAddress(fields[2]),
        inode: fields[9],
      });
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
