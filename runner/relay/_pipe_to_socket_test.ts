import assert from "node:assert/strict";
import { type ConnectionSlots, pipeToSocket } from "./_pipe_to_socket.ts";
import { startRelay } from "./relay.ts";

const encoder = new TextEncoder();

/** A relay (nothing upstream: only its health probe answers) and a TCP listener to pipe from. */
async function rig(
  run: (accept: () => Promise<[Deno.Conn, Deno.Conn]>, socket: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "pipe_to_socket_test_" });
  const relay = await startRelay(`${dir}/relay.sock`, {
    upstreamBaseUrl: "http://127.0.0.1:9/v1",
    upstreamKey: "k",
  });
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const clients: Deno.Conn[] = [];
  const accept = async (): Promise<[Deno.Conn, Deno.Conn]> => {
    const client = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
    clients.push(client);
    return [client, await listener.accept()];
  };
  try {
    await run(accept, relay.socketPath);
  } finally {
    for (const client of clients) {
      try {
        client.close();
      } catch {
        // closed by the test
      }
    }
    listener.close();
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Reads until the peer closes; returns the text received. */
async function readAll(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(65_536);
  let text = "";
  while (true) {
    let read: number | null;
    try {
      read = await conn.read(buffer);
    } catch {
      return text;
    }
    if (read === null) return text;
    text += new TextDecoder().decode(buffer.subarray(0, read));
  }
}

const HEALTH = "GET /relay/health HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n";

Deno.test("pipeToSocket() closes a connection beyond its slots at once, unread", async () => {
  await rig(async (accept, socket) => {
    const slots: ConnectionSlots = { used: 0, max: 2 };
    const pumps: Promise<void>[] = [];
    const clients: Deno.Conn[] = [];
    for (let i = 0; i < 3; i++) {
      const [client, server] = await accept();
      clients.push(client);
      pumps.push(pipeToSocket(server, socket, { slots }));
    }
    assert.equal(slots.used, 2);
    assert.equal(await readAll(clients[2]), "");
    await clients[0].write(encoder.encode(HEALTH));
    assert.match(await readAll(clients[0]), /^HTTP\/1\.1 200 [\s\S]*\{"ok":true\}$/);
    clients[0].close();
    clients[1].close();
    await Promise.all(pumps);
    assert.equal(slots.used, 0);
  });
});

Deno.test("pipeToSocket() closes a connection whose request headers do not arrive by the deadline", async () => {
  await rig(async (accept, socket) => {
    const [silent, silentServer] = await accept();
    const [half, halfServer] = await accept();
    const [whole, wholeServer] = await accept();
    const options = { headerDeadlineMs: 50 };
    const pumps = [
      pipeToSocket(silentServer, socket, options),
      pipeToSocket(halfServer, socket, options),
      pipeToSocket(wholeServer, socket, options),
    ];
    await half.write(encoder.encode("POST /v1/chat/completions HTTP/1.1\r\nHost: relay\r\n"));
    // The headers' blank line split across two writes still counts as complete.
    await whole.write(encoder.encode(HEALTH.slice(0, -2)));
    await whole.write(encoder.encode("\r\n"));
    assert.equal(await readAll(silent), "");
    assert.equal(await readAll(half), "");
    assert.match(await readAll(whole), /\{"ok":true\}$/);
    whole.close();
    await Promise.all(pumps);
  });
});
