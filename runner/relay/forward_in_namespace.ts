/**
 * The in-sandbox relay endpoint without a forwarder process (issue 3, "One
 * episode" 2): the runner opens a TCP listener on 127.0.0.1:<port> inside the
 * container's network namespace and pipes every connection, byte for byte,
 * to the host relay's unix socket from its own event loop.
 *
 * A socket belongs to the network namespace of the thread that creates it,
 * for its whole life (network_namespaces(7), socket(2)). So the runner's
 * JavaScript thread enters the container's namespace with `setns(2)` (libc
 * through `Deno.dlopen`), creates the listener (`Deno.listen` is a synchronous
 * op run on that thread) and returns to its own namespace before any other
 * JavaScript or I/O runs; the listener stays in the container's namespace,
 * where it is the only thing listening (the container keeps `--network
 * none`), while the runner never leaves its own namespace for longer than
 * one `bind`/`listen`. This is {@linkcode startForwarder}'s design (`nsenter
 * -t <pid> -n`) minus one Deno process per episode: no process launch (about
 * 40 ms of CPU on our machines), no startup latency, no exit to wait for.
 *
 * Needs `--allow-all` (FFI, and Deno 2 grants `/proc/thread-self/…` only
 * then), glibc's `libc.so.6` and the same privilege as `nsenter`
 * (CAP_SYS_ADMIN, i.e. root); see {@linkcode forwardInNamespaceAvailable}.
 *
 * @module
 */
import { closeQuietly, MAX_CONNECTIONS, pipeToSocket } from "./_pipe_to_socket.ts";

/** `O_RDONLY | O_CLOEXEC` on Linux. */
const O_RDONLY_CLOEXEC = 0o2000000;
/** `CLONE_NEWNET`: `setns(2)` must find a network namespace. */
const CLONE_NEWNET = 0x40000000;

/** Options of {@linkcode forwardInNamespace}. */
export interface ForwardInNamespaceOptions {
  /** A process whose network namespace receives the listener (the container's init pid). */
  pid: number;
  /** The relay's unix socket (host path). */
  socketPath: string;
  /** Port on 127.0.0.1 inside the namespace; 0 picks a free one. */
  port: number;
  /**
   * Agent connections served at once (default 64, `MAX_CONNECTIONS`); one
   * more is closed at once, unread.
   */
  maxConnections?: number;
  /** Time an agent has to send a request's headers, in ms (default 10000). */
  headerDeadlineMs?: number;
  /**
   * Whether to serve a connection, told its port on the client's side
   * (inside the namespace); one refused, or not decided within 10 s, is
   * closed at once, unread. Absent: every connection is served.
   */
  admit?: (clientPort: number) => Promise<boolean>;
}

/** A listener inside a container's network namespace, piping to the relay. */
export interface NamespaceForwarder {
  /** The port it listens on inside the namespace. */
  port: number;
  /** Stops listening, closes open connections and waits for their pumps to end. */
  close(): Promise<void>;
}

type Libc = Deno.DynamicLibrary<{
  open: { parameters: ["buffer", "i32"]; result: "i32" };
  setns: { parameters: ["i32", "i32"]; result: "i32" };
  close: { parameters: ["i32"]; result: "i32" };
}>;

let libc: Libc | null | undefined;

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    if (
      Deno.build.os !== "linux" || Deno.permissions.querySync({ name: "ffi" }).state !== "granted"
    ) {
      libc = null;
    } else {
      Deno.readLinkSync("/proc/thread-self/ns/net"); // readable only under --allow-all
      libc = Deno.dlopen("libc.so.6", {
        open: { parameters: ["buffer", "i32"], result: "i32" },
        setns: { parameters: ["i32", "i32"], result: "i32" },
        close: { parameters: ["i32"], result: "i32" },
      });
    }
  } catch {
    libc = null;
  }
  return libc;
}

/**
 * Whether {@linkcode forwardInNamespace} can run in this process: Linux,
 * `--allow-ffi` granted, `/proc/thread-self/ns/net` readable (Deno 2:
 * `--allow-all`) and glibc's `libc.so.6` loadable; probed once. Privilege is not
 * checked here (a missing CAP_SYS_ADMIN makes `forwardInNamespace` throw, as
 * it makes `nsenter` fail). When false, use {@linkcode startForwarder}.
 *
 * @returns true when the in-process forwarder can be used
 */
export function forwardInNamespaceAvailable(): boolean {
  return loadLibc() !== null;
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${text}\0`);
}

/**
 * Opens a listener on 127.0.0.1:`port` in the network namespace of `pid` and
 * forwards every connection to the relay's unix socket.
 *
 * Rule: open `/proc/thread-self/ns/net` (home) and `/proc/<pid>/ns/net`
 * (target); `setns(target)`; `Deno.listen`; `setns(home)`, checked by
 * comparing `/proc/thread-self/ns/net` with the link read before. All of it
 * is synchronous, so no other JavaScript, timer or I/O callback runs while
 * the thread is in the container's namespace. If the thread cannot return
 * home, the process exits at once (status 70): any later connection it
 * opened (to a local upstream, say) could otherwise land in the sandbox.
 *
 * Connections are bounded per episode (`maxConnections` open at once, a
 * header deadline on each request; see `pipeToSocket`), so that idle or
 * half-sent requests from the sandbox cost the runner a bounded amount.
 *
 * Cost: two `open`s, two `setns`, one `listen`; then two 64 KiB buffers and
 * one unix connection per accepted TCP connection, at most `maxConnections`
 * at once.
 *
 * @param options The container's pid, the relay socket and the port.
 * @returns The forwarder; close it after the container has exited.
 * @throws {Error} `Cannot start forwarder: ...` when FFI is unavailable, the
 * namespace cannot be opened or entered (the process is gone, no privilege),
 * or the port is taken inside the namespace
 * @example
 * ```ts ignore
 * import { forwardInNamespace } from "./forward_in_namespace.ts";
 * const forwarder = forwardInNamespace({ pid: 4242, socketPath: "/tmp/ep1/relay.sock", port: 8080 });
 * // inside the container: OPENAI_BASE_URL=http://127.0.0.1:8080/v1
 * await forwarder.close();
 * ```
 */
export function forwardInNamespace(options: ForwardInNamespaceOptions): NamespaceForwarder {
  const c = loadLibc();
  if (c === null) {
    throw new Error("Cannot start forwarder: FFI is unavailable (needs Linux, glibc, --allow-ffi)");
  }
  const listener = listenIn(c, options.pid, options.port);
  const port = listener.addr.port;
  const open = new Set<Deno.Conn>();
  const slots = { used: 0, max: options.maxConnections ?? MAX_CONNECTIONS };
  const serving = (async () => {
    const pumps = new Set<Promise<void>>();
    try {
      for await (const tcp of listener) {
        const admit = options.admit;
        const serve = () =>
          pipeToSocket(tcp, options.socketPath, {
            open,
            slots,
            headerDeadlineMs: options.headerDeadlineMs,
          });
        const pump = admit === undefined ? serve() : (async () => {
          const clientPort = (tcp.remoteAddr as Deno.NetAddr).port;
          if (await decided(admit(clientPort))) return await serve();
          closeQuietly(tcp);
        })();
        pumps.add(pump);
        pump.finally(() => pumps.delete(pump));
      }
    } catch {
      // the listener was closed
    }
    await Promise.all(pumps);
  })();

  let closed: Promise<void> | null = null;
  return {
    port,
    close: () => {
      closed ??= (async () => {
        try {
          listener.close();
        } catch {
          // already closed
        }
        for (const conn of open) closeQuietly(conn);
        await serving;
      })();
      return closed;
    },
  };
}

/** How long a connection may wait for `admit`'s answer before it is refused. */
const ADMIT_DEADLINE_MS = 10_000;

/** `admit`'s answer, false when it throws or has not answered within {@link ADMIT_DEADLINE_MS}. */
async function decided(answer: Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ADMIT_DEADLINE_MS);
  });
  try {
    return await Promise.race([answer.catch(() => false), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function listenIn(c: Libc, pid: number, port: number): Deno.TcpListener {
  const homeLink = Deno.readLinkSync("/proc/thread-self/ns/net");
  const home = c.symbols.open(cString("/proc/thread-self/ns/net"), O_RDONLY_CLOEXEC);
  if (home < 0) throw new Error("Cannot start forwarder: cannot open the runner's own namespace");
  const target = c.symbols.open(cString(`/proc/${pid}/ns/net`), O_RDONLY_CLOEXEC);
  if (target < 0) {
    c.symbols.close(home);
    throw new Error(
      `Cannot start forwarder: cannot open the network namespace of process ${pid} (it exited?)`,
    );
  }
  try {
    if (c.symbols.setns(target, CLONE_NEWNET) !== 0) {
      throw new Error(
        `Cannot start forwarder: cannot enter the network namespace of process ${pid} ` +
          `(needs CAP_SYS_ADMIN)`,
      );
    }
    try {
      return Deno.listen({ hostname: "127.0.0.1", port });
    } catch (error) {
      throw new Error(
        `Cannot start forwarder: cannot listen on 127.0.0.1:${port} in the namespace of ` +
          `process ${pid}: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      returnHome(c, home, homeLink);
    }
  } finally {
    c.symbols.close(target);
    c.symbols.close(home);
  }
}

function returnHome(c: Libc, home: number, homeLink: string): void {
  let back = false;
  try {
    back = c.symbols.setns(home, CLONE_NEWNET) === 0 &&
      Deno.readLinkSync("/proc/thread-self/ns/net") === homeLink;
  } catch {
    back = false;
  }
  if (!back) {
    console.error("forwardInNamespace: cannot return to the runner's network namespace: exiting");
    Deno.exit(70);
  }
}
