import assert from "node:assert/strict";
import {
  binaryBytes,
  binaryText,
  clientResponseHead,
  headEnd,
  originRequestHead,
  parseRequestHead,
  parseResponseHead,
} from "./_http_head.ts";

const text = (bytes: Uint8Array) => binaryText(bytes);

Deno.test("headEnd() finds the blank line, also when it arrives split", () => {
  const bytes = binaryBytes("GET http://a/ HTTP/1.1\r\n\r\nbody");
  assert.equal(headEnd(bytes), 26);
  assert.equal(headEnd(bytes, 25), 26);
  assert.equal(headEnd(binaryBytes("GET http://a/ HTTP/1.1\r\n\r")), -1);
});

Deno.test("parseRequestHead() reads an absolute-URI request and drops hop-by-hop headers", () => {
  const head = parseRequestHead(
    "GET http://Files.PythonHosted.org:8080/a%2Bb/?x=1#frag HTTP/1.1\r\nHost: elsewhere\r\n" +
      "Connection: keep-alive, X-Private\r\nX-Private: 1\r\nProxy-Authorization: Basic e30=\r\n" +
      "User-Agent: uv/0.9.7\r\nAccept: \t*/* \r\n\r\n",
  );
  assert.deepEqual(head, {
    kind: "http",
    method: "GET",
    host: "files.pythonhosted.org",
    port: 8080,
    path: "/a%2Bb/?x=1",
    target: "/a%2Bb/?x=1",
    headers: [["User-Agent", "uv/0.9.7"], ["Accept", "*/*"]],
    bodyLength: 0,
    expectContinue: false,
  });
  assert.equal(
    head.kind === "http" ? text(originRequestHead(head)) : "",
    "GET /a%2Bb/?x=1 HTTP/1.1\r\nHost: files.pythonhosted.org:8080\r\nUser-Agent: uv/0.9.7\r\n" +
      "Accept: */*\r\nConnection: close\r\n\r\n",
  );
});

Deno.test("parseRequestHead() reads CONNECT host:port, an IPv6 literal included", () => {
  assert.deepEqual(parseRequestHead("CONNECT PyPI.org:443 HTTP/1.1\r\n\r\n"), {
    kind: "connect",
    method: "CONNECT",
    host: "pypi.org",
    port: 443,
    path: null,
  });
  assert.deepEqual(parseRequestHead("CONNECT [2606:4700::1]:443 HTTP/1.0\r\n\r\n"), {
    kind: "connect",
    method: "CONNECT",
    host: "[2606:4700::1]",
    port: 443,
    path: null,
  });
});

Deno.test("parseRequestHead() refuses smuggling shapes and bare line ends", () => {
  const reason = (head: string) => {
    const parsed = parseRequestHead(head);
    return parsed.kind === "malformed" ? parsed.reason : parsed.kind;
  };
  assert.equal(
    reason("GET http://a/ HTTP/1.1\r\nX: a\nY: b\r\n\r\n"),
    "Malformed request: a bare CR or LF in the head",
  );
  assert.equal(
    reason("GET http://a/ HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\n"),
    'Malformed request: Content-Length "1, 2" is not a number',
  );
  assert.equal(
    reason("GET http://a/ HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n"),
    "http",
  );
  assert.equal(
    reason("GET https://a/ HTTP/1.1\r\n\r\n"),
    'Malformed request: target "https://a/" is not an absolute http:// URL',
  );
  assert.equal(reason("GET http://a:0/ HTTP/1.1\r\n\r\n"), "Malformed request: port 0");
  assert.equal(
    reason("GET http://a/ HTTP/2\r\n\r\n"),
    'Malformed request: the request line is not "METHOD target HTTP/1.x"',
  );
  const chunked = parseRequestHead("POST http://a/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  assert.equal(chunked.kind === "http" ? chunked.bodyLength : "not http", null);
});

Deno.test("parseResponseHead() and clientResponseHead() pass the origin's head back with Connection: close", () => {
  const response = parseResponseHead(
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\n" +
      'X-Hop: 1\r\nETag: "\xe9"\r\n\r\n',
  );
  assert.ok(response !== null);
  assert.equal(response.status, 200);
  assert.equal(
    text(clientResponseHead(response)),
    'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: "\xe9"\r\nConnection: close\r\n\r\n',
  );
  assert.equal(parseResponseHead("HTTP/1.1 99 Low\r\n\r\n"), null);
  assert.equal(parseResponseHead("ICY 200 OK\r\n\r\n"), null);
  assert.equal(parseResponseHead("HTTP/1.1 204\r\n\r\n")?.status, 204);
});
