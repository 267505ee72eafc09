/**
 * The verifier's egress proxy (issue 22, "Packages where the task needs
 * them"): the only way out of a verifier's `--network none` container, to
 * the hosts its suite allows and nowhere else, with a record of every
 * request for the episode's evidence. The candidate's phase never has one.
 *
 * It listens on a host unix socket; the runner forwards a loopback port in
 * the verifier's network namespace to it (`runner/relay/forward_in_namespace.ts`
 * or `start_forwarder.ts`, as for the model relay) and sets `http_proxy`,
 * `https_proxy`, `HTTP_PROXY` and `HTTPS_PROXY` to `http://127.0.0.1:<port>`,
 * which apt, curl, uv and pip honour, so that clients in the container
 * never resolve a name themselves.
 *
 * @module
 */
import { lookup } from "node:dns/promises";
import { allowingRule, DEFAULT_PORTS, parseAllowList } from "./_allow_list.ts";
import {
  binaryText,
  clientResponseHead,
  headEnd,
  type HttpHead,
  originRequestHead,
  parseRequestHead,
  parseResponseHead,
  proxyAnswer,
  proxyPassword,
} from "./_http_head.ts";
import { isPublicAddress } from "./_public_address.ts";
import {
  type EgressRequest,
  MAX_EGRESS_ERROR_CHARS,
} from "../../analysis/schema/egress_request.ts";

/** Default number of client connections one proxy serves at once; more are answered 503. */
export const MAX_EGRESS_CONNECTIONS = 64;
/** Default number of requests one proxy (one verifier run) records and serves. */
export const MAX_EGRESS_REQUESTS = 1024;
/** Default idle timeout of a connection, in ms. */
export const EGRESS_IDLE_TIMEOUT_MS = 60_000;
/** Longest request head a client may send, in bytes. */
export const MAX_REQUEST_HEAD_BYTES = 16 * 1024;
/** Longest response head an origin may send, in bytes. */
const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
/** Longest unix socket path Linux accepts (`sun_path` is 108 bytes with its final NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Read buffer of each direction of a connection. */
const BUFFER_BYTES = 64 * 1024;

const encoder = new TextEncoder();
const CONNECTION_ESTABLISHED = encoder.encode("HTTP/1.1 200 Connection established\r\n\r\n");
const CONTINUE = encoder.encode("HTTP/1.1 100 Continue\r\n\r\n");

/** Options of {@linkcode startEgressProxy}. */
export interface EgressProxyOptions {
  /**
   * Where to listen (at most 107 bytes: a runner's come from `runnerSocketPath`, whatever
   * `TMPDIR` is); a stale socket file there is replaced.
   */
  socketPath: string;
  /**
   * The hosts the verifier may reach: `host`, `host:port`, `*.suffix` or
   * `*.suffix:port` (see {@linkcode startEgressProxy}). Empty: nothing.
   */
  allowHosts: readonly string[];
  /**
   * Where to connect for an allowed `host:port` instead of the host itself
   * (a mirror, or in tests `astral.sh:443` to a loopback server; see
   * `egress_resolve.ts`), or undefined to resolve it. It replaces name
   * resolution and the public-address check.
   */
  connect?: (host: string, port: number) => { hostname: string; port: number } | undefined;
  /** Requests recorded and served (default {@linkcode MAX_EGRESS_REQUESTS}); later ones get 429. */
  maxRequests?: number;
  /** Client connections served at once (default {@linkcode MAX_EGRESS_CONNECTIONS}); more get 503. */
  maxConnections?: number;
  /**
   * The password a request must carry as `Proxy-Authorization: Basic`
   * credentials (any user), given only to the verifier's processes in
   * their proxy variables; a request without it gets 407 and is neither
   * recorded nor counted against `maxRequests`, so that no other process of
   * the sandbox can use the verifier's egress or spend its requests.
   * Absent: none asked.
   */
  password?: string;
  /**
   * A connection's idle timeout in ms (default
   * {@linkcode EGRESS_IDLE_TIMEOUT_MS}): the time a client has to send a
   * request head, the time an origin has to accept a connection, and the
   * longest time without a byte in either direction afterwards.
   */
  idleTimeoutMs?: number;
  /**
   * Let allowed names reach loopback, private and link-local addresses
   * (default false: an allowed name resolving only to such addresses is
   * denied). For a suite that names a mirror on the runner's own network.
   */
  allowPrivateAddresses?: boolean;
  /**
   * Allow any host named by a DNS name on ports 80 and 443 (not an address
   * literal, which `denyHosts` could not recognize; its addresses must
   * still be public, unless `allowPrivateAddresses`); default false: only
   * `allowHosts`.
   */
  anyPublicHost?: boolean;
  /**
   * Entries (as `allowHosts` spells them) denied whatever else allows them:
   * for an agent, the model APIs, which it reaches only through the relay.
   */
  denyHosts?: readonly string[];
  /** Whose proxy it is, in its answers ("this verifier's allow-list"); default "verifier". */
  phase?: "verifier" | "agent";
}

/** A running egress proxy. */
export interface EgressProxy {
  /** The unix socket it listens on. */
  socketPath: string;
  /**
   * Every request it answered, in arrival order, up to `maxRequests` (a
   * copy; one still open shows its counts and `ms` so far).
   */
  requests(): EgressRequest[];
  /** Requests refused (429, unrecorded) because `maxRequests` had been reached. */
  refusedOverCap(): number;
  /** Requests refused (407, unrecorded) for lack of the password. */
  refusedUnauthorized(): number;
  /** Connections refused (503, unrecorded) because `maxConnections` were open. */
  refusedOverConnections(): number;
  /** Client connections being served now (a record of each is final once this drops). */
  openConnections(): number;
  /** Stops listening, ends open connections and tunnels, waits for them and removes the socket. */
  close(): Promise<void>;
}

/** One client connection's state: its connections, its timer and why it was ended early. */
class Exchange {
  readonly conns = new Set<Deno.Conn>();
  /** Aborted when the exchange is ended early (a dial in progress gives up). */
  readonly ending = new AbortController();
  /** Why the proxy ended it early (idle, proxy closed); null while it runs its course. */
  endedBy: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #idleMs: number;

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  /** Restarts the idle timer. */
  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => this.end(`Idle for ${this.#idleMs} ms: the connection was closed`),
      this.#idleMs,
    );
  }

  /** Ends it: records why (the first reason wins) and closes its connections. */
  end(reason: string): void {
    this.endedBy ??= reason;
    this.stop();
    this.ending.abort();
    for (const conn of this.conns) closeQuietly(conn);
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

/** A request's record while it is served. */
interface Entry {
  record: EgressRequest;
  t0: number;
  done: boolean;
}

type HeadRead =
  | { head: Uint8Array; rest: Uint8Array }
  | { end: "empty" | "partial" | "too-large" };

/**
 * Starts the egress proxy on a unix socket.
 *
 * Rule, per client connection (one request each; the proxy answers with
 * `Connection: close` and closes after the response or tunnel, the simplest
 * correct choice: no response framing to track, and every client named
 * above reconnects as needed):
 * 1. The client has `idleTimeoutMs` to send a request head of at most
 *    16 KiB (else 408, or 400 when it is longer); a connection that closes
 *    or times out before sending a byte is not a request.
 *    Past `maxRequests` recorded requests, the answer is 429, counted in
 *    `refusedOverCap()`.
 * 2. The head is parsed strictly (`_http_head.ts`: absolute `http://` URL
 *    or `CONNECT host:port`); anything else is answered 400 with the reason.
 * 3. The host and port must match the allow-list: an exact host name (case
 *    ignored; no trailing dot) or `*.suffix` (any name ending in
 *    `.suffix`, not `suffix` itself), on port 80 or 443 unless the entry
 *    names its one port (`host:port`). A request matching no entry gets 403
 *    with a one-line body naming the host, port and rule.
 * 4. A plain request with a `Transfer-Encoding` body gets 411 (bodies are
 *    relayed by `Content-Length` only).
 * 5. The name is resolved on the host (`getaddrinfo`) and only public
 *    addresses are dialled (`_public_address.ts`), unless
 *    `allowPrivateAddresses`; a name with none gets 403. An origin that
 *    cannot be reached gets 502 (`status` null in the record).
 * 6. `CONNECT`: `200 Connection established`, then bytes are piped both
 *    ways (half-closes passed on) until both sides have closed. Plain
 *    HTTP: the request goes out in origin form with `Connection: close`,
 *    hop-by-hop headers removed and `Host` rebuilt from the URL
 *    (`Expect: 100-continue` is answered by the proxy); the body is
 *    streamed up, the response head passed back (1xx heads too) and its
 *    body streamed down until the origin closes (an origin that ignores
 *    `Connection: close` and stays open holds the exchange until the idle
 *    timeout, with its response already delivered).
 *
 * Every request answered is recorded ({@linkcode EgressRequest}), allowed or
 * not. Nothing is buffered beyond a head and one 64 KiB chunk per
 * direction. Cost per connection: two 64 KiB buffers, one timer, one origin
 * connection.
 *
 * @param options The socket path, the allow-list and limits.
 * @returns The running proxy, once it listens.
 * @throws {Error} `Cannot start egress proxy: ...` for a malformed allow-list entry, a bad limit,
 * a socket path over 107 bytes or a socket that cannot be opened
 * @example
 * ```ts
 * import { startEgressProxy } from "./egress_proxy.ts";
 * const dir = await Deno.makeTempDir();
 * const proxy = await startEgressProxy({ socketPath: `${dir}/e.sock`, allowHosts: ["astral.sh"] });
 * // In production a loopback port in the verifier's namespace is forwarded to proxy.socketPath
 * // and the verifier runs with https_proxy=http://127.0.0.1:<port>.
 * const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
 * await conn.write(new TextEncoder().encode("GET http://evil.test/ HTTP/1.1\r\n\r\n"));
 * const answer = await new Response(conn.readable).text();
 * await proxy.close();
 * await Deno.remove(dir, { recursive: true });
 * if (!answer.startsWith("HTTP/1.1 403 Forbidden")) throw new Error("403 expected");
 * if (proxy.requests()[0].allowed) throw new Error("a denied record expected");
 * ```
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const rules = parseAllowList(options.allowHosts);
  const denied = parseAllowList(options.denyHosts ?? []);
  const phase = options.phase ?? "verifier";
  const maxRequests = options.maxRequests ?? MAX_EGRESS_REQUESTS;
  const maxConnections = options.maxConnections ?? MAX_EGRESS_CONNECTIONS;
  const idleMs = options.idleTimeoutMs ?? EGRESS_IDLE_TIMEOUT_MS;
  const limits = [
    ["maxRequests", maxRequests],
    ["maxConnections", maxConnections],
    ["idleTimeoutMs", idleMs],
  ] as const;
  for (const [name, value] of limits) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new Error(
        `Cannot start egress proxy: "${name}" must be a positive integer, not ${value}`,
      );
    }
  }
  const socketPath = options.socketPath;
  const pathBytes = encoder.encode(socketPath).length;
  if (pathBytes > MAX_SOCKET_PATH_BYTES) {
    throw new Error(
      `Cannot start egress proxy: socket path "${socketPath}" is ${pathBytes} bytes, over the ${MAX_SOCKET_PATH_BYTES}-byte limit of unix sockets`,
    );
  }
  let listener: Deno.Listener;
  try {
    await clearStaleSocket(socketPath);
    listener = Deno.listen({ transport: "unix", path: socketPath });
    await Deno.chmod(socketPath, 0o600);
  } catch (error) {
    throw new Error(
      `Cannot start egress proxy: cannot listen on "${socketPath}": ${describe(error)}`,
    );
  }

  const entries: Entry[] = [];
  let overCap = 0;
  let unauthorized = 0;
  let overConnections = 0;
  let closing = false;
  const exchanges = new Set<Exchange>();
  const handlers = new Set<Promise<void>>();

  const dial = async (
    host: string,
    port: number,
    ending: AbortSignal,
  ): Promise<{ conn: Deno.TcpConn } | { denied: string } | { unreachable: string }> => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), idleMs);
    const stop = () => abort.abort();
    ending.addEventListener("abort", stop);
    const attempt = (hostname: string, at: number) =>
      Deno.connect({ hostname, port: at, signal: abort.signal });
    try {
      const target = options.connect?.(host, port);
      if (target !== undefined) return { conn: await attempt(target.hostname, target.port) };
      const name = host.startsWith("[") ? host.slice(1, -1) : host;
      let addresses: string[];
      try {
        addresses = (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
      } catch (error) {
        return { unreachable: `cannot resolve host "${host}": ${describe(error)}` };
      }
      const usable = options.allowPrivateAddresses === true
        ? addresses
        : addresses.filter(isPublicAddress);
      if (usable.length === 0) {
        return {
          denied: `Egress denied: host "${host}" resolves only to non-public addresses ` +
            `(${addresses.slice(0, 3).join(", ")}); the proxy connects to public addresses only`,
        };
      }
      let last: unknown = null;
      for (const address of usable) {
        try {
          return { conn: await attempt(address, port) };
        } catch (error) {
          last = error;
          if (abort.signal.aborted) break;
        }
      }
      throw last;
    } catch (error) {
      const why = abort.signal.aborted ? `no connection within ${idleMs} ms` : describe(error);
      return { unreachable: `host "${host}" port ${port}: ${why}` };
    } finally {
      clearTimeout(timer);
      ending.removeEventListener("abort", stop);
    }
  };

  const serve = async (client: Deno.Conn, exchange: Exchange): Promise<void> => {
    exchange.conns.add(client);
    let received = false;
    const reading = readHead(client, MAX_REQUEST_HEAD_BYTES, new Uint8Array(0), () => {
      received = true;
    });
    reading.catch(() => {});
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((done) => {
      deadline = setTimeout(() => done("timeout"), idleMs);
    });
    let got: HeadRead | "timeout";
    try {
      got = await Promise.race([reading, timedOut]);
    } catch {
      return; // closed under the read (the proxy is closing)
    } finally {
      clearTimeout(deadline);
    }
    if (got !== "timeout" && "end" in got && got.end === "empty") return;
    if (got === "timeout" && !received) return;
    if (closing) return;
    if (options.password !== undefined) {
      // Only the verifier's processes hold the password: nothing else is recorded or counted.
      const password = got === "timeout" || "end" in got
        ? null
        : proxyPassword(binaryText(got.head));
      if (password !== options.password) {
        unauthorized += 1;
        await writeAll(
          client,
          proxyAnswer(407, "Egress refused: this proxy serves the verifier's processes only"),
        ).catch(() => {});
        return;
      }
    }
    if (entries.length >= maxRequests) {
      overCap += 1;
      await writeAll(
        client,
        proxyAnswer(429, `Egress refused: this verifier has used its ${maxRequests} requests`),
      ).catch(() => {});
      return;
    }

    const entry: Entry = {
      record: {
        method: "",
        host: "",
        port: 0,
        path: null,
        allowed: false,
        status: null,
        bytes_up: 0,
        bytes_down: 0,
        started_at: new Date().toISOString(),
        ms: 0,
        error: null,
      },
      t0: performance.now(),
      done: false,
    };
    entries.push(entry);
    const record = entry.record;
    const answer = async (status: number, line: string) => {
      record.status = status;
      record.error ??= bound(line);
      await writeAll(client, proxyAnswer(status, line)).catch(() => {});
    };
    try {
      if (got === "timeout") {
        return await answer(408, `Request head not received within ${idleMs} ms`);
      }
      if ("end" in got) {
        return await answer(
          400,
          got.end === "too-large"
            ? `Malformed request: head over ${MAX_REQUEST_HEAD_BYTES} bytes`
            : "Malformed request: the connection closed before the head ended",
        );
      }
      const head = parseRequestHead(binaryText(got.head));
      Object.assign(record, {
        method: head.method,
        host: head.host,
        port: head.port,
        path: head.path,
      });
      if (head.kind === "malformed") return await answer(400, head.reason);
      const deniedBy = allowingRule(denied, head.host, head.port);
      if (deniedBy !== null) {
        return await answer(
          403,
          `Egress denied: host "${head.host}" matches "${deniedBy.entry}", which this ${phase} ` +
            "may not reach (a model API: model calls go through the relay)",
        );
      }
      // Any host by its DNS name only: an address literal would pass the name-based deny list.
      const addressLiteral = head.host.startsWith("[") || /^[0-9.]+$/.test(head.host);
      const anyPublic = options.anyPublicHost === true && !addressLiteral &&
        DEFAULT_PORTS.includes(head.port);
      if (!anyPublic && allowingRule(rules, head.host, head.port) === null) {
        return await answer(
          403,
          `Egress denied: host "${head.host}" port ${head.port} matches no entry of this ` +
            `${phase}'s allow-list (exact host names or "*.suffix"; ports ` +
            `${DEFAULT_PORTS.join(" and ")} unless the entry names one)`,
        );
      }
      if (head.kind === "http" && head.bodyLength === null) {
        return await answer(
          411,
          "Egress refused: a request body with Transfer-Encoding is not relayed; send Content-Length",
        );
      }
      exchange.touch();
      const dialled = await dial(head.host, head.port, exchange.ending.signal);
      if ("denied" in dialled) return await answer(403, dialled.denied);
      if ("unreachable" in dialled) {
        record.allowed = true;
        record.error = bound(`Origin unreachable: ${dialled.unreachable}`);
        await writeAll(client, proxyAnswer(502, record.error)).catch(() => {});
        return;
      }
      const origin = dialled.conn;
      exchange.conns.add(origin);
      if (exchange.endedBy !== null) closeQuietly(origin);
      record.allowed = true;
      exchange.touch();
      if (head.kind === "connect") {
        await tunnel(client, origin, got.rest, record, exchange);
      } else {
        await relayHttp(client, origin, head, got.rest, record, exchange);
      }
    } catch (error) {
      record.error ??= bound(describe(error));
    } finally {
      exchange.stop();
      if (exchange.endedBy !== null) record.error = exchange.endedBy;
      entry.done = true;
      record.ms = Math.round(performance.now() - entry.t0);
    }
  };

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        if (closing) {
          closeQuietly(conn);
          continue;
        }
        if (handlers.size >= maxConnections) {
          overConnections += 1;
          writeAll(
            conn,
            proxyAnswer(503, `Egress refused: ${maxConnections} connections are open already`),
          ).catch(() => {}).finally(() => closeQuietly(conn));
          continue;
        }
        const exchange = new Exchange(idleMs);
        exchanges.add(exchange);
        const handler = serve(conn, exchange).catch(() => {}).finally(() => {
          for (const open of exchange.conns) closeQuietly(open);
          exchanges.delete(exchange);
          handlers.delete(handler);
        });
        handlers.add(handler);
      }
    } catch {
      // the listener was closed
    }
  })();

  let closed: Promise<void> | null = null;
  return {
    socketPath,
    requests: () =>
      entries.map(({ record, t0, done }) => ({
        ...record,
        ms: done ? record.ms : Math.round(performance.now() - t0),
      })),
    refusedOverCap: () => overCap,
    refusedUnauthorized: () => unauthorized,
    refusedOverConnections: () => overConnections,
    openConnections: () => handlers.size,
    close: () => {
      closed ??= (async () => {
        closing = true;
        try {
          listener.close();
        } catch {
          // already closed
        }
        await accepting;
        for (const exchange of exchanges) exchange.end("Closed: the egress proxy stopped");
        await Promise.all(handlers);
        await Deno.remove(socketPath).catch(() => {});
      })();
      return closed;
    },
  };
}

/**
 * A `CONNECT` tunnel: `200 Connection established`, the bytes the client
 * sent after its head, then both directions piped until each has ended.
 */
async function tunnel(
  client: Deno.Conn,
  origin: Deno.Conn,
  early: Uint8Array,
  record: EgressRequest,
  exchange: Exchange,
): Promise<void> {
  await writeAll(client, CONNECTION_ESTABLISHED);
  record.status = 200;
  if (early.length > 0) {
    await writeAll(origin, early);
    record.bytes_up += early.length;
  }
  const fail = (error: unknown) => {
    record.error ??= bound(`Tunnel failed: ${describe(error)}`);
    for (const conn of [client, origin]) closeQuietly(conn);
  };
  await Promise.all([
    pump(client, origin, exchange, (n) => record.bytes_up += n).catch(fail),
    pump(origin, client, exchange, (n) => record.bytes_down += n).catch(fail),
  ]);
}

/**
 * One plain HTTP request: head and body up, the response head (after any
 * 1xx heads) and body down until the origin closes.
 */
async function relayHttp(
  client: Deno.Conn,
  origin: Deno.Conn,
  head: HttpHead,
  early: Uint8Array,
  record: EgressRequest,
  exchange: Exchange,
): Promise<void> {
  await writeAll(origin, originRequestHead(head));
  const length = head.bodyLength ?? 0;
  if (head.expectContinue && length > 0) await writeAll(client, CONTINUE);
  const upload = (async () => {
    const first = early.subarray(0, length);
    if (first.length > 0) {
      await writeAll(origin, first);
      record.bytes_up += first.length;
    }
    let left = length - first.length;
    const buffer = new Uint8Array(Math.min(left, BUFFER_BYTES));
    while (left > 0) {
      const read = await client.read(buffer.subarray(0, Math.min(left, buffer.length)));
      if (read === null) {
        record.error ??= "Client closed before the request body ended";
        closeQuietly(origin);
        return;
      }
      exchange.touch();
      await writeAll(origin, buffer.subarray(0, read));
      record.bytes_up += read;
      left -= read;
    }
  })().catch((error) => {
    record.error ??= bound(`Request body not relayed: ${describe(error)}`);
  });

  let pending: Uint8Array = new Uint8Array(0);
  let wroteHead = false;
  try {
    while (true) {
      const got = await readHead(origin, MAX_RESPONSE_HEAD_BYTES, pending, () => exchange.touch());
      const response = "end" in got ? null : parseResponseHead(binaryText(got.head));
      if ("end" in got || response === null) {
        const why = "end" in got
          ? got.end === "too-large"
            ? `its response head is over ${MAX_RESPONSE_HEAD_BYTES} bytes`
            : "it closed before its response head"
          : "its response head is malformed";
        record.error ??= bound(`Origin failed: host "${head.host}" port ${head.port}: ${why}`);
        await writeAll(client, proxyAnswer(502, record.error)).catch(() => {});
        return;
      }
      pending = got.rest;
      if (response.status < 200 && response.status !== 101) {
        await writeAll(client, got.head);
        continue;
      }
      record.status = response.status;
      await writeAll(client, clientResponseHead(response));
      wroteHead = true;
      break;
    }
    if (pending.length > 0) {
      await writeAll(client, pending);
      record.bytes_down += pending.length;
    }
    await pump(origin, client, exchange, (n) => record.bytes_down += n, false);
  } catch (error) {
    if (exchange.endedBy === null) {
      record.error ??= bound(
        wroteHead
          ? `Response not relayed: ${describe(error)}`
          : `Origin failed: ${describe(error)}`,
      );
    }
  } finally {
    for (const conn of [client, origin]) closeQuietly(conn);
    await upload;
  }
}

/** Reads a message head (after `initial`), at most `maxBytes`; throws when the connection is closed under it. */
async function readHead(
  conn: Deno.Conn,
  maxBytes: number,
  initial: Uint8Array,
  onRead: () => void,
): Promise<HeadRead> {
  let data = initial;
  let scanned = 0;
  const buffer = new Uint8Array(BUFFER_BYTES);
  while (true) {
    const end = headEnd(data, scanned);
    if (end > maxBytes) return { end: "too-large" };
    if (end >= 0) return { head: data.subarray(0, end), rest: data.subarray(end) };
    if (data.length >= maxBytes) return { end: "too-large" };
    scanned = data.length;
    const read = await conn.read(buffer.subarray(0, Math.min(BUFFER_BYTES, maxBytes)));
    if (read === null) return { end: data.length === 0 ? "empty" : "partial" };
    onRead();
    const joined = new Uint8Array(data.length + read);
    joined.set(data);
    joined.set(buffer.subarray(0, read), data.length);
    data = joined;
  }
}

/** Copies `from` to `to` until `from` ends, counting bytes; then half-closes `to` if asked. */
async function pump(
  from: Deno.Conn,
  to: Deno.Conn,
  exchange: Exchange,
  count: (bytes: number) => void,
  halfClose = true,
): Promise<void> {
  const buffer = new Uint8Array(BUFFER_BYTES);
  while (true) {
    const read = await from.read(buffer);
    if (read === null) break;
    exchange.touch();
    await writeAll(to, buffer.subarray(0, read));
    count(read);
  }
  if (halfClose) await to.closeWrite().catch(() => {});
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

async function clearStaleSocket(path: string): Promise<void> {
  try {
    const info = await Deno.lstat(path);
    if (!info.isSocket) throw new Error("a file that is not a socket is there");
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function bound(text: string): string {
  return text.length <= MAX_EGRESS_ERROR_CHARS
    ? text
    : `${text.slice(0, MAX_EGRESS_ERROR_CHARS - 3)}...`;
}
