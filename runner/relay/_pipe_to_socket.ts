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

/**
 * Default number of agent connections one forwarder (one episode) serves at
 * once. Each costs two 64 KiB buffers here and a connection's state in the
 * relay, so this bounds what idle or half-sent requests can cost the runner.
 */
export const MAX_CONNECTIONS = 64;

/** Default time an agent has to finish sending a request's headers, in ms. */
export const HEADER_DEADLINE_MS = 10_000;

/** The connection budget one forwarder shares among its connections. */
export interface ConnectionSlots {
  /** Connections open now. */
  used: number;
  /** Most connections open at once. */
  max: number;
}

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
  /**
   * The forwarder's connection budget: a connection accepted while `used`
   * is `max` is closed at once, unread. Absent: no bound.
   */
  slots?: ConnectionSlots;
  /** Header deadline in ms (default {@linkcode HEADER_DEADLINE_MS}). */
  headerDeadlineMs?: number;
}

/**
 * Pipes one accepted TCP connection to the relay's unix socket, byte for
 * byte in both directions, and closes both connections at the end.
 *
 * Rule: with `slots` full, close the TCP connection at once; else take a
 * slot (given back at the end) and connect to `socketPath` (on failure call
 * `onUnreachable`, close the TCP connection, return); run the two directions
 * concurrently, each reading into a 64 KiB buffer, writing all of it, and
 * half-closing its target at end of input; a direction that fails closes
 * both connections, which unblocks the other one. Header deadline: a request
 * turn opens when the connection opens and whenever the agent sends bytes
 * after the relay last answered; unless the agent's bytes of that turn
 * contain the blank line ending HTTP headers (`\r\n\r\n`) within
 * `headerDeadlineMs`, or the relay answers first, both connections are
 * closed (a silent or half-sent request holds a slot for at most that long;
 * a body that stops arriving is the relay's body deadline). Never rejects.
 * Cost: two 64 KiB buffers, one timer and one unix connection per TCP
 * connection.
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
  const slots = options.slots;
  if (slots !== undefined && slots.used >= slots.max) {
    closeQuietly(tcp);
    return;
  }
  if (slots !== undefined) slots.used += 1;
  const open = options.open;
  open?.add(tcp);
  let unix: Deno.Conn | null = null;
  const deadlineMs = options.headerDeadlineMs ?? HEADER_DEADLINE_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
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
    const turn = new HeaderTurn();
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(fail, deadlineMs);
    };
    arm();
    const fromAgent = (chunk: Uint8Array) => {
      const was = turn.state;
      turn.agentSent(chunk);
      if (was === "answered" && turn.state === "headers") arm();
      if (turn.state !== "headers") clearTimeout(timer);
    };
    const fromRelay = () => {
      turn.relayAnswered();
      clearTimeout(timer);
    };
    await Promise.all([
      pump(tcp, unix, fromAgent).catch(fail),
      pump(unix, tcp, fromRelay).catch(fail),
    ]);
  } finally {
    clearTimeout(timer);
    if (slots !== undefined) slots.used -= 1;
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

/**
 * Where one connection is in its current request turn: `headers` (the agent
 * has not finished a request's headers), `sent` (it has), `answered` (the
 * relay has answered since).
 */
class HeaderTurn {
  state: "headers" | "sent" | "answered" = "headers";
  /** The last bytes of the turn so far, for a `\r\n\r\n` split across reads. */
  #tail = new Uint8Array(0);

  agentSent(chunk: Uint8Array): void {
    if (this.state === "answered") {
      this.state = "headers";
      this.#tail = new Uint8Array(0);
    }
    if (this.state !== "headers") return;
    const joined = new Uint8Array(this.#tail.length + chunk.length);
    joined.set(this.#tail);
    joined.set(chunk, this.#tail.length);
    for (let i = 0; i + 3 < joined.length; i++) {
      if (
        joined[i] === 13 && joined[i + 1] === 10 && joined[i + 2] === 13 && joined[i + 3] === 10
      ) {
        this.state = "sent";
        return;
      }
    }
    this.#tail = joined.slice(Math.max(0, joined.length - 3));
  }

  relayAnswered(): void {
    this.state = "answered";
  }
}

async function pump(
  from: Deno.Conn,
  to: Deno.Conn,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  const buffer = new Uint8Array(BUFFER_BYTES);
  while (true) {
    const read = await from.read(buffer);
    if (read === null) break;
    onChunk(buffer.subarray(0, read));
    let written = 0;
    while (written < read) written += await to.write(buffer.subarray(written, read));
  }
  await to.closeWrite();
}
