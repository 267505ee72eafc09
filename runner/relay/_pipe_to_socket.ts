/**
 * Private: what both in-sandbox relay endpoints do with each TCP connection
 * an agent opens (the in-process {@linkcode forwardInNamespace} and the
 * `nsenter` process `forwarder_main.ts`): connect to the host relay's unix
 * socket and copy bytes both ways until each side has closed its direction.
 *
 * No imports, so `forwarder_main.ts` still starts fast and needs no module
 * cache.
 *
 * @module
 */

/** Read buffer of each direction of a connection. */
const BUFFER_BYTES = 64 * 1024;

/** Options of {@linkcode pipeToSocket}. */
export interface PipeToSocketOptions {
  /**
   * The forwarder's open connections: the pipe adds its two while they are
   * open and removes them when done, so that a closing forwarder can close
   * them.
   */
  open?: Set<Deno.Conn>;
  /** Called when the relay socket cannot be reached (the agent then sees a closed connection). */
  onUnreachable?: (error: unknown) => void;
}

/**
 * Pipes one accepted TCP connection to the relay's unix socket, byte for
 * byte in both directions, and closes both connections at the end.
 *
 * Rule: connect to `socketPath` (on failure call `onUnreachable`, close the
 * TCP connection, return); run the two directions concurrently, each reading
 * into a 64 KiB buffer, writing all of it, and half-closing its target at
 * end of input; a direction that fails closes both connections, which
 * unblocks the other one. Never rejects. Cost: two 64 KiB buffers and one
 * unix connection per TCP connection.
 *
 * @param tcp the accepted connection from the agent
 * @param socketPath the relay's unix socket (host path)
 * @param options the forwarder's open-connection set and an unreachable hook
 * @returns when both directions have ended and both connections are closed
 */
export async function pipeToSocket(
  tcp: Deno.Conn,
  socketPath: string,
  options: PipeToSocketOptions = {},
): Promise<void> {
  const open = options.open;
  open?.add(tcp);
  let unix: Deno.Conn | null = null;
  try {
    try {
      unix = await Deno.connect({ transport: "unix", path: socketPath });
    } catch (error) {
      options.onUnreachable?.(error);
      return;
    }
    open?.add(unix);
    const both = [tcp, unix];
    // A pump that fails leaves the other one blocked on a read: closing both
    // connections as soon as one direction fails unblocks it.
    const fail = () => both.forEach(closeQuietly);
    await Promise.all([pump(tcp, unix).catch(fail), pump(unix, tcp).catch(fail)]);
  } finally {
    closeQuietly(tcp);
    open?.delete(tcp);
    if (unix !== null) {
      closeQuietly(unix);
      open?.delete(unix);
    }
  }
}

/**
 * Closes a connection, ignoring one that is already closed.
 *
 * @param conn the connection
 */
export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(BUFFER_BYTES);
  while (true) {
    const read = await from.read(buffer);
    if (read === null) break;
    let written = 0;
    while (written < read) written += await to.write(buffer.subarray(written, read));
  }
  await to.closeWrite();
}
