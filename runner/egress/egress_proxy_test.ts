import assert from "node:assert/strict";
import { pipeToSocket } from "../relay/_pipe_to_socket.ts";
import { startPackageServer } from "../../tests/_package_server.ts";
import { testCa } from "../../tests/_test_ca.ts";
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from "./egress_proxy.ts";
import { EgressRequest } from "../../analysis/schema/egress_request.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const FILES = {
  "pkg.test/hello.txt": "hello, world\n", // 13 bytes
  "astral.sh/uv/0.9.7/install.sh": "#!/bin/sh\necho 'uv 0.9.7 installed'\n", // 36 bytes
  "deb.debian.org/debian/dists/bookworm/Release": "Origin: Debian\nSuite: stable\n", // 29 bytes
};

/** A proxy on a fresh short socket path; closed and removed at the end. */
async function withProxy(
  options: Omit<EgressProxyOptions, "socketPath">,
  run: (proxy: EgressProxy) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "egress-" });
  const proxy = await startEgressProxy({ socketPath: `${dir}/e.sock`, ...options });
  try {
    await run(proxy);
  } finally {
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Sends `request` on a fresh connection to the proxy and reads until the proxy closes. */
async function exchange(proxy: EgressProxy, request: string | Uint8Array): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
  try {
    await write(conn, typeof request === "string" ? encoder.encode(request) : request);
    return await readToEnd(conn);
  } finally {
    conn.close();
  }
}

async function write(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Reads until end of input (or a reset); returns the text. */
async function readToEnd(conn: Deno.Conn): Promise<string> {
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
    text += decoder.decode(buffer.subarray(0, read));
  }
}

/** Reads exactly `length` bytes as text (null if the peer closed first). */
async function readExactly(conn: Deno.Conn, length: number): Promise<string | null> {
  const bytes = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const read = await conn.read(bytes.subarray(got));
    if (read === null) return null;
    got += read;
  }
  return decoder.decode(bytes);
}

/** Waits until the proxy serves no connection, so that every record is final. */
async function settled(proxy: EgressProxy): Promise<EgressRequest[]> {
  for (let i = 0; i < 400 && proxy.openConnections() > 0; i++) {
    await new Promise((done) => setTimeout(done, 5));
  }
  assert.equal(proxy.openConnections(), 0);
  return proxy.requests();
}

/** The records without their clock fields, after checking them against the schema. */
function withoutClock(records: EgressRequest[]): Omit<EgressRequest, "started_at" | "ms">[] {
  return records.map((record) => {
    const { started_at: _started, ms: _ms, ...rest } = EgressRequest.parse(record);
    return rest;
  });
}

/** The proxy's own answer, byte for byte (`proxyAnswer` in `_http_head.ts`). */
function answer(status: string, line: string): string {
  const body = `${line}\n`;
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${encoder.encode(body).length}\r\nConnection: close\r\n\r\n${body}`;
}

const denial = (host: string, port: number) =>
  `Egress denied: host "${host}" port ${port} matches no entry of this verifier's allow-list ` +
  `(exact host names or "*.suffix"; ports 80 and 443 unless the entry names one)`;

/** A TCP server on loopback that echoes each connection's bytes and closes at its end of input. */
function startEcho(): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  const serving = (async () => {
    const echoes: Promise<void>[] = [];
    try {
      for await (const conn of listener) {
        conns.add(conn);
        echoes.push((async () => {
          const buffer = new Uint8Array(65_536);
          try {
            while (true) {
              const read = await conn.read(buffer);
              if (read === null) break;
              await write(conn, buffer.subarray(0, read));
            }
          } catch {
            // closed under us
          } finally {
            conns.delete(conn);
            try {
              conn.close();
            } catch {
              // already closed
            }
          }
        })());
      }
    } catch {
      // listener closed
    }
    await Promise.all(echoes);
  })();
  return {
    port: listener.addr.port,
    close: async () => {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await serving;
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (listened on, then closed). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  return port;
}

Deno.test("startEgressProxy() relays an allowed GET and records its status and body bytes", async () => {
  const server = await startPackageServer({ files: FILES });
  await withProxy({
    allowHosts: ["pkg.test"],
    connect: () => ({ hostname: "127.0.0.1", port: server.port }),
  }, async (proxy) => {
    const text = await exchange(
      proxy,
      "GET http://pkg.test/hello.txt HTTP/1.1\r\nHost: pkg.test\r\nProxy-Connection: keep-alive\r\n" +
        "Proxy-Authorization: Basic c2VjcmV0\r\nAccept: */*\r\n\r\n",
    );
    const [head, body] = text.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(head, /\r\ncontent-length: 13(\r\n|$)/i);
    // one Connection header, the proxy's: it closes after each response
    assert.deepEqual(head.match(/^connection:.*$/gim), ["Connection: close"]);
    assert.equal(body, "hello, world\n");
    assert.deepEqual(server.requests, [{ host: "pkg.test", path: "/hello.txt" }]);
    assert.deepEqual(withoutClock(await settled(proxy)), [{
      method: "GET",
      host: "pkg.test",
      port: 80,
      path: "/hello.txt",
      allowed: true,
      status: 200,
      bytes_up: 0,
      bytes_down: 13, // "hello, world\n"
      error: null,
    }]);
  });
  await server.close();
});

Deno.test("startEgressProxy() records the origin's own status and keeps 1024 characters of a path", async () => {
  const server = await startPackageServer({ files: FILES });
  await withProxy({
    allowHosts: ["pypi.org"],
    connect: () => ({ hostname: "127.0.0.1", port: server.port }),
  }, async (proxy) => {
    const long = `/simple/${"p".repeat(2000)}/?q=1`;
    const text = await exchange(proxy, `GET http://PyPI.org${long} HTTP/1.1\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 404 Not Found\r\n/);
    assert.ok(text.endsWith(`\r\n\r\nNot found: pypi.org/simple/${"p".repeat(2000)}/\n`));
    // the origin got the whole path; the record keeps its first 1024 characters
    assert.deepEqual(server.requests, [{ host: "pypi.org", path: long }]);
    const [record] = withoutClock(await settled(proxy));
    assert.deepEqual(record, {
      method: "GET",
      host: "pypi.org",
      port: 80,
      path: long.slice(0, 1024),
      allowed: true,
      status: 404,
      bytes_up: 0,
      bytes_down: 2029, // "Not found: pypi.org/simple/" (27) + 2000 "p" + "/\n" (2)
      error: null,
    });
  });
  await server.close();
});

Deno.test("startEgressProxy() denies a host or port off the allow-list with 403 and records it", async () => {
  const server = await startPackageServer({ files: FILES });
  await withProxy({
    allowHosts: ["pkg.test", "*.pythonhosted.org", "mirror.test:8080"],
    connect: () => ({ hostname: "127.0.0.1", port: server.port }),
  }, async (proxy) => {
    const cases: [string, string, number, string][] = [
      ["http://evil.test/steal", "evil.test", 80, "/steal"],
      ["http://pkg.test:8080/x", "pkg.test", 8080, "/x"],
      ["http://mirror.test/x", "mirror.test", 80, "/x"], // the entry names port 8080 only
      ["http://pythonhosted.org/x", "pythonhosted.org", 80, "/x"], // a suffix rule needs a label before it
    ];
    for (const [url, host, port] of cases) {
      assert.equal(
        await exchange(proxy, `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
        answer("403 Forbidden", denial(host, port)),
      );
    }
    // what the rules do allow
    for (const url of ["http://files.pythonhosted.org/a", "http://mirror.test:8080/b"]) {
      assert.match(await exchange(proxy, `GET ${url} HTTP/1.1\r\n\r\n`), /^HTTP\/1\.1 404 /);
    }
    assert.deepEqual(server.requests, [
      { host: "files.pythonhosted.org", path: "/a" },
      { host: "mirror.test", path: "/b" },
    ]);
    const records = withoutClock(await settled(proxy));
    assert.deepEqual(
      records.slice(0, 4),
      cases.map(([, host, port, path]) => ({
        method: "GET",
        host,
        port,
        path,
        allowed: false,
        status: 403,
        bytes_up: 0,
        bytes_down: 0,
        error: denial(host, port),
      })),
    );
    assert.deepEqual(records.slice(4).map((r) => [r.allowed, r.status, r.port]), [
      [true, 404, 80],
      [true, 404, 8080],
    ]);
  });
  await server.close();
});

Deno.test("startEgressProxy() tunnels CONNECT to an allowed host, bytes flowing both ways", async () => {
  const echo = startEcho();
  const asked: string[] = [];
  await withProxy({
    allowHosts: ["astral.sh"],
    connect: (host, port) => {
      asked.push(`${host}:${port}`);
      return { hostname: "127.0.0.1", port: echo.port };
    },
  }, async (proxy) => {
    const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
    await write(
      conn,
      encoder.encode("CONNECT astral.sh:443 HTTP/1.1\r\nHost: astral.sh:443\r\n\r\n"),
    );
    const established = "HTTP/1.1 200 Connection established\r\n\r\n";
    assert.equal(await readExactly(conn, established.length), established);
    await write(conn, encoder.encode("ping"));
    assert.equal(await readExactly(conn, 4), "ping");
    await write(conn, encoder.encode("hello"));
    assert.equal(await readExactly(conn, 5), "hello");
    await conn.closeWrite(); // passed on: the echo server ends, and so does the tunnel
    assert.equal(await readToEnd(conn), "");
    conn.close();
    assert.deepEqual(asked, ["astral.sh:443"]);
    assert.deepEqual(withoutClock(await settled(proxy)), [{
      method: "CONNECT",
      host: "astral.sh",
      port: 443,
      path: null,
      allowed: true,
      status: 200,
      bytes_up: 9, // "ping" + "hello"
      bytes_down: 9,
      error: null,
    }]);
  });
  await echo.close();
});

Deno.test("startEgressProxy() refuses CONNECT to a host or port off the allow-list", async () => {
  const asked: string[] = [];
  await withProxy({
    allowHosts: ["astral.sh"],
    connect: (host, port) => {
      asked.push(`${host}:${port}`);
      return { hostname: "127.0.0.1", port: closedPort() };
    },
  }, async (proxy) => {
    for (const [host, port] of [["evil.test", 443], ["astral.sh", 22]] as const) {
      assert.equal(
        await exchange(proxy, `CONNECT ${host}:${port} HTTP/1.1\r\n\r\nearly bytes`),
        answer("403 Forbidden", denial(host, port)),
      );
    }
    assert.deepEqual(asked, []); // never dialled
    assert.deepEqual(
      withoutClock(await settled(proxy)).map((r) => [r.method, r.host, r.port, r.path, r.allowed]),
      [["CONNECT", "evil.test", 443, null, false], ["CONNECT", "astral.sh", 22, null, false]],
    );
  });
});

Deno.test("startEgressProxy() answers a malformed request 400 and records what it could read", async () => {
  await withProxy(
    { allowHosts: ["pkg.test"], connect: () => ({ hostname: "127.0.0.1", port: 9 }) },
    async (proxy) => {
      const cases: [string, string, Partial<EgressRequest>][] = [
        [
          "GET /relative HTTP/1.1\r\nHost: pkg.test\r\n\r\n",
          'target "/relative" is not an absolute http:// URL',
          { method: "GET" },
        ],
        ["garbage\r\n\r\n", 'the request line is not "METHOD target HTTP/1.x"', {
          method: "garbage",
        }],
        [
          "GET  http://pkg.test/ HTTP/1.1\r\n\r\n",
          'the request line is not "METHOD target HTTP/1.x"',
          {
            method: "GET",
          },
        ],
        [
          "GET http://pkg.test/ HTTP/1.1\r\nHost : pkg.test\r\n\r\n",
          'header line 1 is not "name: value"',
          { method: "GET" },
        ],
        [
          "GET http://pkg.test/ HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n",
          'header line 2 is not "name: value"',
          { method: "GET" },
        ],
        [
          "POST http://pkg.test/up HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
          "both Content-Length and Transfer-Encoding",
          { method: "POST", host: "pkg.test", port: 80, path: "/up" },
        ],
        [
          "POST http://pkg.test/up HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
          "Content-Length headers that differ",
          { method: "POST", host: "pkg.test", port: 80, path: "/up" },
        ],
        [
          "GET http://user:pw@pkg.test/ HTTP/1.1\r\n\r\n",
          "credentials in the URL",
          { method: "GET", host: "pkg.test", port: 80, path: "/" },
        ],
        ["CONNECT astral.sh HTTP/1.1\r\n\r\n", 'CONNECT target "astral.sh" is not host:port', {
          method: "CONNECT",
        }],
        ["CONNECT astral.sh:99999 HTTP/1.1\r\n\r\n", "port 99999 is outside 1 to 65535", {
          method: "CONNECT",
          host: "astral.sh",
        }],
        [
          `CONNECT ${"a".repeat(254)}:443 HTTP/1.1\r\n\r\n`,
          `host "${"a".repeat(100)}..." is not a host name`,
          { method: "CONNECT" },
        ],
        [
          `GET http://pkg.test/ HTTP/1.1\r\nX-Long: ${"a".repeat(17_000)}`,
          "head over 16384 bytes",
          {},
        ],
      ];
      for (const [request, reason] of cases) {
        assert.equal(
          await exchange(proxy, request),
          answer("400 Bad Request", `Malformed request: ${reason}`),
          request.slice(0, 60),
        );
      }
      const records = withoutClock(await settled(proxy));
      assert.deepEqual(
        records,
        cases.map(([, reason, read]) => ({
          method: "",
          host: "",
          port: 0,
          path: null,
          ...read,
          allowed: false,
          status: 400,
          bytes_up: 0,
          bytes_down: 0,
          error: `Malformed request: ${reason}`,
        })),
      );
    },
  );
});

Deno.test("startEgressProxy() streams a request body up and answers Expect: 100-continue itself", async () => {
  const seen: { expect: string | null; proxyAuth: string | null; body: string }[] = [];
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const origin = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    async (request) => {
      const body = await request.text();
      seen.push({
        expect: request.headers.get("expect"),
        proxyAuth: request.headers.get("proxy-authorization"),
        body,
      });
      return new Response(`got ${body.length} bytes`);
    },
  );
  const port = await listening;
  await withProxy({
    allowHosts: ["upload.test"],
    connect: () => ({ hostname: "127.0.0.1", port }),
  }, async (proxy) => {
    const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
    await write(
      conn,
      encoder.encode(
        "POST http://upload.test/files HTTP/1.1\r\nContent-Length: 11\r\nExpect: 100-continue\r\n" +
          "Proxy-Authorization: Basic c2VjcmV0\r\n\r\n",
      ),
    );
    const interim = "HTTP/1.1 100 Continue\r\n\r\n";
    assert.equal(await readExactly(conn, interim.length), interim);
    await write(conn, encoder.encode("hello world"));
    const text = await readToEnd(conn);
    conn.close();
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(text.endsWith("\r\n\r\ngot 11 bytes"));
    assert.deepEqual(seen, [{ expect: null, proxyAuth: null, body: "hello world" }]);

    // a body framed by Transfer-Encoding is not relayed
    const chunked = await exchange(
      proxy,
      "POST http://upload.test/files HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    );
    const refusal =
      "Egress refused: a request body with Transfer-Encoding is not relayed; send Content-Length";
    assert.equal(chunked, answer("411 Length Required", refusal));
    assert.equal(seen.length, 1);

    const records = withoutClock(await settled(proxy));
    assert.deepEqual(records, [
      {
        method: "POST",
        host: "upload.test",
        port: 80,
        path: "/files",
        allowed: true,
        status: 200,
        bytes_up: 11, // "hello world"
        bytes_down: 12, // "got 11 bytes"
        error: null,
      },
      {
        method: "POST",
        host: "upload.test",
        port: 80,
        path: "/files",
        allowed: false,
        status: 411,
        bytes_up: 0,
        bytes_down: 0,
        error: refusal,
      },
    ]);
  });
  await origin.shutdown();
});

Deno.test("startEgressProxy() streams bodies both ways instead of holding them whole", async () => {
  // The origin reads the first half of the upload before the client sends the second, and the
  // client reads the first half of the download before the origin sends the second: each half
  // can only have arrived if the proxy passed it on at once.
  const firstUpHalf = Promise.withResolvers<void>();
  const firstDownHalf = Promise.withResolvers<void>();
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const origin = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port) },
    async (request) => {
      const reader = request.body!.getReader();
      let up = "";
      while (up.length < 8) up += decoder.decode((await reader.read()).value);
      firstUpHalf.resolve();
      while (up.length < 16) up += decoder.decode((await reader.read()).value);
      assert.equal(up, "part onepart two");
      assert.equal((await reader.read()).done, true); // until then, Deno keeps the connection open
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode("part one"));
          await firstDownHalf.promise;
          controller.enqueue(encoder.encode("part two"));
          controller.close();
        },
      });
      return new Response(body);
    },
  );
  const port = await listening;
  await withProxy({
    allowHosts: ["files.pythonhosted.org"],
    connect: () => ({ hostname: "127.0.0.1", port }),
  }, async (proxy) => {
    const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
    await write(
      conn,
      encoder.encode(
        "POST http://files.pythonhosted.org/upload HTTP/1.1\r\nContent-Length: 16\r\n\r\npart one",
      ),
    );
    await firstUpHalf.promise;
    await write(conn, encoder.encode("part two"));
    let text = "";
    const buffer = new Uint8Array(65_536);
    while (!text.includes("part one")) {
      const read = await conn.read(buffer);
      assert.ok(read !== null);
      text += decoder.decode(buffer.subarray(0, read));
    }
    assert.ok(!text.includes("part two"));
    firstDownHalf.resolve();
    text += await readToEnd(conn);
    conn.close();
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(text, /\r\ntransfer-encoding: chunked\r\n/i);
    // hyper's chunked framing, passed through as it came
    assert.ok(text.endsWith("\r\n\r\n8\r\npart one\r\n8\r\npart two\r\n0\r\n\r\n"));
    const [record] = withoutClock(await settled(proxy));
    assert.deepEqual([record.status, record.bytes_up, record.bytes_down, record.error], [
      200,
      16, // "part one" + "part two"
      31, // "8\r\npart one\r\n" (13) twice, then "0\r\n\r\n" (5)
      null,
    ]);
  });
  await origin.shutdown();
});

Deno.test("startEgressProxy() serves one request per connection: a pipelined second one is dropped", async () => {
  const server = await startPackageServer({ files: FILES });
  await withProxy({
    allowHosts: ["pkg.test"],
    connect: () => ({ hostname: "127.0.0.1", port: server.port }),
  }, async (proxy) => {
    const text = await exchange(
      proxy,
      "GET http://pkg.test/hello.txt HTTP/1.1\r\n\r\nGET http://evil.test/ HTTP/1.1\r\n\r\n",
    );
    assert.equal(text.match(/HTTP\/1\.1 /g)?.length, 1);
    assert.ok(text.endsWith("\r\n\r\nhello, world\n"));
    assert.deepEqual(server.requests, [{ host: "pkg.test", path: "/hello.txt" }]);
    assert.deepEqual(withoutClock(await settled(proxy)).map((r) => r.host), ["pkg.test"]);
  });
  await server.close();
});

Deno.test("startEgressProxy() answers 502 with a null status when the origin cannot be reached", async () => {
  const port = closedPort();
  await withProxy({
    allowHosts: ["pkg.test"],
    connect: () => ({ hostname: "127.0.0.1", port }),
  }, async (proxy) => {
    const text = await exchange(proxy, "GET http://pkg.test/hello.txt HTTP/1.1\r\n\r\n");
    assert.match(text, /^HTTP\/1\.1 502 Bad Gateway\r\n/);
    assert.match(text, /\r\n\r\nOrigin unreachable: host "pkg.test" port 80: .+\n$/);
    const [record] = withoutClock(await settled(proxy));
    assert.equal(record.status, null);
    assert.equal(record.allowed, true);
    assert.match(record.error ?? "", /^Origin unreachable: host "pkg.test" port 80: /);
  });
});

Deno.test("startEgressProxy() denies an allowed name that resolves only to non-public addresses", async () => {
  const server = await startPackageServer({ files: { "127.0.0.1/hello.txt": "hi\n" } });
  const entry = `127.0.0.1:${server.port}`;
  const request = `GET http://${entry}/hello.txt HTTP/1.1\r\n\r\n`;
  // no `connect` override: the production path, which resolves and checks the address
  await withProxy({ allowHosts: [entry] }, async (proxy) => {
    const line = 'Egress denied: host "127.0.0.1" resolves only to non-public addresses ' +
      "(127.0.0.1); the proxy connects to public addresses only";
    assert.equal(await exchange(proxy, request), answer("403 Forbidden", line));
    const [record] = withoutClock(await settled(proxy));
    assert.deepEqual([record.allowed, record.status, record.error], [false, 403, line]);
  });
  assert.deepEqual(server.requests, []);
  await withProxy({ allowHosts: [entry], allowPrivateAddresses: true }, async (proxy) => {
    assert.ok((await exchange(proxy, request)).endsWith("\r\n\r\nhi\n"));
    const [record] = withoutClock(await settled(proxy));
    assert.deepEqual([record.allowed, record.status, record.bytes_down], [true, 200, 3]);
  });
  assert.deepEqual(server.requests, [{ host: "127.0.0.1", path: "/hello.txt" }]);
  await server.close();
});

Deno.test("startEgressProxy() refuses requests past maxRequests with 429 and counts them", async () => {
  await withProxy({ allowHosts: [], maxRequests: 2 }, async (proxy) => {
    const request = "GET http://evil.test/ HTTP/1.1\r\n\r\n";
    assert.match(await exchange(proxy, request), /^HTTP\/1\.1 403 /);
    assert.match(await exchange(proxy, request), /^HTTP\/1\.1 403 /);
    for (let i = 0; i < 3; i++) {
      assert.equal(
        await exchange(proxy, request),
        answer("429 Too Many Requests", "Egress refused: this verifier has used its 2 requests"),
      );
    }
    assert.equal((await settled(proxy)).length, 2);
    assert.equal(proxy.refusedOverCap(), 3);
  });
});

Deno.test("startEgressProxy() with a password serves only requests that carry it; others get 407, unrecorded and uncounted", async () => {
  await withProxy({ allowHosts: [], maxRequests: 2, password: "s3cret" }, async (proxy) => {
    const credentials = (user: string, password: string) =>
      `Proxy-Authorization: Basic ${btoa(`${user}:${password}`)}\r\n`;
    const refused = answer(
      "407 Proxy Authentication Required",
      "Egress refused: this proxy serves the verifier's processes only",
    ).replace(
      "HTTP/1.1 407 Proxy Authentication Required\r\n",
      'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="ledgerbench"\r\n',
    );
    // A leftover process's 1,100 junk requests, without or with a wrong password: none counts.
    for (let i = 0; i < 1100; i++) {
      const wrong = i % 2 === 0 ? "" : credentials("verifier", "guess");
      const text = await exchange(proxy, `CONNECT evil.test:443 HTTP/1.1\r\n${wrong}\r\n`);
      if (text !== refused) assert.equal(text, refused);
    }
    assert.equal(proxy.refusedUnauthorized(), 1100);
    assert.deepEqual(await settled(proxy), []);
    // The verifier's own requests are served and recorded, its budget untouched.
    const request = `GET http://evil.test/ HTTP/1.1\r\n${credentials("verifier", "s3cret")}\r\n`;
    assert.match(await exchange(proxy, request), /^HTTP\/1\.1 403 /);
    assert.match(await exchange(proxy, request), /^HTTP\/1\.1 403 /);
    assert.equal((await settled(proxy)).length, 2);
    assert.equal(proxy.refusedOverCap(), 0);
  });
});

Deno.test("startEgressProxy() answers 503 to connections past maxConnections, leaving open ones served", async () => {
  await withProxy({ allowHosts: [], maxConnections: 2 }, async (proxy) => {
    const held = [
      await Deno.connect({ transport: "unix", path: proxy.socketPath }),
      await Deno.connect({ transport: "unix", path: proxy.socketPath }),
    ];
    for (let i = 0; i < 400 && proxy.openConnections() < 2; i++) {
      await new Promise((done) => setTimeout(done, 5));
    }
    assert.equal(
      await exchange(proxy, "GET http://evil.test/ HTTP/1.1\r\n\r\n"),
      answer("503 Service Unavailable", "Egress refused: 2 connections are open already"),
    );
    assert.equal(proxy.refusedOverConnections(), 1);
    await write(held[0], encoder.encode("GET http://evil.test/ HTTP/1.1\r\n\r\n"));
    assert.match(await readToEnd(held[0]), /^HTTP\/1\.1 403 /);
    for (const conn of held) conn.close();
  });
});

Deno.test("startEgressProxy() times out a slow head (408) and an idle tunnel", async () => {
  const echo = startEcho();
  await withProxy({
    allowHosts: ["astral.sh"],
    idleTimeoutMs: 150,
    connect: () => ({ hostname: "127.0.0.1", port: echo.port }),
  }, async (proxy) => {
    // a connection that sends nothing is closed, unrecorded
    assert.equal(await exchange(proxy, ""), "");
    assert.equal(
      await exchange(proxy, "GET http://astral.sh/ HTTP/1.1\r\nHost: astr"),
      answer("408 Request Timeout", "Request head not received within 150 ms"),
    );
    const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
    await write(conn, encoder.encode("CONNECT astral.sh:443 HTTP/1.1\r\n\r\nping"));
    const established = "HTTP/1.1 200 Connection established\r\n\r\n";
    assert.equal(await readExactly(conn, established.length + 4), `${established}ping`);
    assert.equal(await readToEnd(conn), ""); // then silence: the proxy ends the tunnel
    conn.close();
    assert.deepEqual(
      withoutClock(await settled(proxy)).map((r) => [r.method, r.status, r.bytes_up, r.error]),
      [
        ["", 408, 0, "Request head not received within 150 ms"], // no head: no method
        ["CONNECT", 200, 4, "Idle for 150 ms: the connection was closed"],
      ],
    );
  });
  await echo.close();
});

Deno.test("EgressProxy.close() ends open tunnels and removes its socket", async () => {
  const echo = startEcho();
  const dir = await Deno.makeTempDir({ prefix: "egress-" });
  const proxy = await startEgressProxy({
    socketPath: `${dir}/e.sock`,
    allowHosts: ["astral.sh"],
    connect: () => ({ hostname: "127.0.0.1", port: echo.port }),
  });
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < 2; i++) {
    const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
    conns.push(conn);
    await write(conn, encoder.encode("CONNECT astral.sh:443 HTTP/1.1\r\n\r\n"));
    await readExactly(conn, "HTTP/1.1 200 Connection established\r\n\r\n".length);
    await write(conn, encoder.encode("ping"));
    assert.equal(await readExactly(conn, 4), "ping");
  }
  await proxy.close();
  for (const conn of conns) {
    assert.equal(await readToEnd(conn), "");
    conn.close();
  }
  assert.equal(proxy.openConnections(), 0);
  assert.deepEqual(
    withoutClock(proxy.requests()).map((r) => [r.status, r.bytes_up, r.bytes_down, r.error]),
    [
      [200, 4, 4, "Closed: the egress proxy stopped"],
      [200, 4, 4, "Closed: the egress proxy stopped"],
    ],
  );
  await assert.rejects(Deno.lstat(`${dir}/e.sock`), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
  await echo.close();
});

Deno.test("startEgressProxy() refuses a malformed allow-list entry, a bad limit or a long socket path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "egress-" });
  const socketPath = `${dir}/e.sock`;
  for (
    const [entry, why] of [
      ["https://astral.sh", "expected host, host:port, *.suffix or *.suffix:port"],
      ["astral.sh:0", "port outside 1 to 65535"],
      ["bad host", "not a host name"],
      ["*.[::1]", "a suffix rule needs a host name"],
    ]
  ) {
    await assert.rejects(
      startEgressProxy({ socketPath, allowHosts: [entry] }),
      { message: `Cannot start egress proxy: allow-list entry "${entry}": ${why}` },
    );
  }
  await assert.rejects(
    startEgressProxy({ socketPath, allowHosts: [], maxRequests: 0 }),
    { message: 'Cannot start egress proxy: "maxRequests" must be a positive integer, not 0' },
  );
  const long = `${dir}/${"s".repeat(120)}.sock`;
  await assert.rejects(
    startEgressProxy({ socketPath: long, allowHosts: [] }),
    /^Error: Cannot start egress proxy: socket path ".*" is \d+ bytes, over the 107-byte limit/,
  );
  await Deno.remove(dir, { recursive: true });
});

/**
 * The production path from a client's side: a loopback TCP port piped to the
 * proxy's socket by `pipeToSocket` (what the in-namespace forwarder runs),
 * with real curl as the client, over TLS through CONNECT.
 */
Deno.test("startEgressProxy() serves curl over HTTPS and HTTP through the forwarder's pipe", async () => {
  const ca = await testCa();
  const leaf = await ca.certFor(["astral.sh", "deb.debian.org"]);
  const server = await startPackageServer({ files: FILES, tls: leaf });
  const dir = await Deno.makeTempDir({ prefix: "egress-" });
  await Deno.writeTextFile(`${dir}/ca.pem`, ca.caCertPem);
  const tlsPort = server.tlsPort;
  assert.ok(tlsPort !== undefined);
  const proxy = await startEgressProxy({
    socketPath: `${dir}/e.sock`,
    allowHosts: ["astral.sh", "deb.debian.org"],
    connect: (_host, port) => ({
      hostname: "127.0.0.1",
      port: port === 443 ? tlsPort : server.port,
    }),
  });
  const bridge = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const pipes: Promise<void>[] = [];
  const bridging = (async () => {
    for await (const tcp of bridge) pipes.push(pipeToSocket(tcp, proxy.socketPath));
  })().catch(() => {});
  const curl = async (url: string) => {
    const out = await new Deno.Command("curl", {
      args: [
        "-sS",
        "--fail",
        "--max-time",
        "20",
        "--proxy",
        `http://127.0.0.1:${bridge.addr.port}`,
        "--cacert",
        `${dir}/ca.pem`,
        url,
      ],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  };
  try {
    assert.deepEqual(await curl("https://astral.sh/uv/0.9.7/install.sh"), {
      code: 0,
      stdout: FILES["astral.sh/uv/0.9.7/install.sh"],
      stderr: "",
    });
    assert.deepEqual(await curl("http://deb.debian.org/debian/dists/bookworm/Release"), {
      code: 0,
      stdout: FILES["deb.debian.org/debian/dists/bookworm/Release"],
      stderr: "",
    });
    const denied = await curl("https://pypi.org/simple/pytest/");
    // curl's --fail exit code for an HTTP status of 400 or more, the CONNECT answer included
    assert.equal(denied.code, 22);
    assert.match(denied.stderr, /returned error: 403/);
    assert.deepEqual(server.requests, [
      { host: "astral.sh", path: "/uv/0.9.7/install.sh" },
      { host: "deb.debian.org", path: "/debian/dists/bookworm/Release" },
    ]);
    const records = withoutClock(await settled(proxy));
    assert.deepEqual(records.map((r) => [r.method, r.host, r.port, r.path, r.allowed, r.status]), [
      ["CONNECT", "astral.sh", 443, null, true, 200],
      ["GET", "deb.debian.org", 80, "/debian/dists/bookworm/Release", true, 200],
      ["CONNECT", "pypi.org", 443, null, false, 403],
    ]);
    // TLS handshake sizes vary by library version: the tunnel carried more than the file each way
    assert.ok(records[0].bytes_up > 0 && records[0].bytes_down > 36, JSON.stringify(records[0]));
    assert.equal(records[0].error, null);
    assert.deepEqual([records[1].bytes_up, records[1].bytes_down], [0, 29]);
  } finally {
    bridge.close();
    await bridging;
    await Promise.all(pipes);
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("startEgressProxy() for an agent: any public host by its name, never a denied host or an address literal", async () => {
  const server = await startPackageServer({ files: FILES });
  await withProxy({
    allowHosts: [],
    anyPublicHost: true,
    denyHosts: ["api.openai.com", "*.openai.azure.com"],
    phase: "agent",
    connect: () => ({ hostname: "127.0.0.1", port: server.port }),
  }, async (proxy) => {
    const get = (host: string) =>
      exchange(proxy, `GET http://${host}/hello.txt HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    assert.match(await get("pkg.test"), /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(
      await get("api.openai.com"),
      /^HTTP\/1\.1 403 [^\r]*\r\n[\s\S]*matches "api\.openai\.com", which this agent may not reach/,
    );
    assert.match(await get("x.openai.azure.com"), /^HTTP\/1\.1 403 /);
    // An address literal passes no name-based deny list: not "any public host".
    assert.match(
      await get("162.159.140.245"),
      /^HTTP\/1\.1 403 [^\r]*\r\n[\s\S]*matches no entry of this agent's allow-list/,
    );
    assert.deepEqual(
      (await settled(proxy)).map((r) => [r.host, r.allowed, r.status]),
      [
        ["pkg.test", true, 200],
        ["api.openai.com", false, 403],
        ["x.openai.azure.com", false, 403],
        ["162.159.140.245", false, 403],
      ],
    );
  });
  await server.close();
});
