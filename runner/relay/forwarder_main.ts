/**
 * The in-sandbox end of the relay (issue 3, "One episode" 2): listens on
 * 127.0.0.1:<port> and pipes every TCP connection, byte for byte in both
 * directions, to the host relay's unix socket. {@linkcode startForwarder}
 * runs it with `nsenter -t <container pid> -n`, so it listens inside the
 * container's own network namespace (the container keeps `--network none`)
 * while it still sees the host's filesystem, where the socket lives. Nothing
 * is installed in the candidate image.
 *
 * Usage: `deno run --allow-net=127.0.0.1,unix:<socket> --allow-read=<socket>
 * --allow-write=<socket> forwarder_main.ts <socket path> <port>` (Deno 2.9 asks
 * for all three on a unix socket). Prints `ready <port>` on stdout
 * once listening (port 0 picks a free one), and exits when its stdin closes,
 * so it cannot outlive the runner that started it. No imports, so it starts
 * fast and needs no module cache.
 *
 * @module
 */

const BUFFER_BYTES = 64 * 1024;

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

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

async function serveConnection(tcp: Deno.Conn, socketPath: string): Promise<void> {
  // A pump that fails leaves the other one blocked on a read: closing both
  // connections as soon as one direction fails unblocks it.
  let unix: Deno.Conn;
  try {
    unix = await Deno.connect({ transport: "unix", path: socketPath });
  } catch (error) {
    console.error(`forwarder: cannot reach relay socket "${socketPath}": ${error}`);
    closeQuietly(tcp);
    return;
  }
  const fail = () => {
    closeQuietly(tcp);
    closeQuietly(unix);
  };
  await Promise.all([pump(tcp, unix).catch(fail), pump(unix, tcp).catch(fail)]);
  closeQuietly(tcp);
  closeQuietly(unix);
}

async function main(args: string[]): Promise<void> {
  const [socketPath, portText] = args;
  const port = Number(portText);
  if (socketPath === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error("usage: forwarder_main.ts <socket path> <port>");
    Deno.exit(2);
  }
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  console.log(`ready ${listener.addr.port}`);
  (async () => {
    for await (const _ of Deno.stdin.readable) {
      // input is ignored; only its end matters
    }
    Deno.exit(0);
  })();
  for await (const tcp of listener) {
    serveConnection(tcp, socketPath);
  }
}

if (import.meta.main) await main(Deno.args);
