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
 * so it cannot outlive the runner that started it. It serves at most
 * `MAX_CONNECTIONS` agent connections at once, each under the header
 * deadline of `pipeToSocket`. Its only import is the
 * pipe it shares with `forwardInNamespace` (`_pipe_to_socket.ts`, itself
 * without imports), so it starts fast and needs no module cache.
 *
 * @module
 */
import { MAX_CONNECTIONS, pipeToSocket } from "./_pipe_to_socket.ts";

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
  const slots = { used: 0, max: MAX_CONNECTIONS };
  for await (const tcp of listener) {
    pipeToSocket(tcp, socketPath, {
      slots,
      onUnreachable: (error) =>
        console.error(`forwarder: cannot reach relay socket "${socketPath}": ${error}`),
    });
  }
}

if (import.meta.main) await main(Deno.args);
