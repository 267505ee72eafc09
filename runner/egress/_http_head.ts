/**
 * Private: the HTTP/1.1 message heads the egress proxy reads and writes
 * (RFC 9112): a client's proxy request parsed (absolute `http://` URI or
 * `CONNECT host:port`), the head forwarded to the origin, the origin's
 * response head parsed and passed back, and the proxy's own short answers.
 *
 * Heads are handled as "binary strings" (one character per byte), so that a
 * header value with bytes above 0x7f crosses unchanged.
 *
 * @module
 */
import { normalizeHost } from "./_allow_list.ts";
import {
  MAX_EGRESS_METHOD_CHARS,
  MAX_EGRESS_PATH_CHARS,
} from "../../analysis/schema/egress_request.ts";

/** One header line: name as sent, value without surrounding whitespace. */
export type Header = [name: string, value: string];

/** What a record can say of any request head, even a malformed one. */
export interface HeadSummary {
  method: string;
  host: string;
  port: number;
  /** Path and query (first 1024 characters); null for `CONNECT` or when unread. */
  path: string | null;
}

/** `CONNECT host:port`. */
export interface ConnectHead extends HeadSummary {
  kind: "connect";
  path: null;
}

/** A plain HTTP request with an absolute `http://` target. */
export interface HttpHead extends HeadSummary {
  kind: "http";
  /** Path and query in full, as forwarded (`path` is its first 1024 characters). */
  target: string;
  /** The end-to-end headers (hop-by-hop ones and `Host` removed). */
  headers: Header[];
  /** Body length from `Content-Length` (0 without); null when the body has a `Transfer-Encoding`. */
  bodyLength: number | null;
  /** True when the client sent `Expect: 100-continue`. */
  expectContinue: boolean;
}

/** A head the proxy cannot act on. */
export interface MalformedHead extends HeadSummary {
  kind: "malformed";
  /** `Malformed request: ...` */
  reason: string;
}

/** A parsed request head. */
export type RequestHead = ConnectHead | HttpHead | MalformedHead;

/** A parsed response head. */
export interface ResponseHead {
  status: number;
  /** The status line as sent. */
  statusLine: string;
  headers: Header[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const REQUEST_LINE = /^([^ ]+) ([\x21-\x7e]+) HTTP\/1\.[01]$/;
const STATUS_LINE = /^HTTP\/1\.[01] ([1-5][0-9][0-9])(?: [\t\x20-\x7e\x80-\xff]*)?$/;

/**
 * Headers a proxy never forwards (RFC 9110 §7.6.1: connection-specific), plus
 * `Host` (rebuilt from the target) and `Expect` (the proxy answers it).
 */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Where a message head ends in `bytes`: the index just past its blank line
 * (`\r\n\r\n`), or -1 when it has not ended yet. Cost: O(bytes scanned).
 *
 * @param bytes what has arrived so far
 * @param from the first index the blank line's last byte may be at (what was scanned before)
 * @returns the head's length, or -1
 */
export function headEnd(bytes: Uint8Array, from = 0): number {
  for (let i = Math.max(3, from); i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) {
      return i + 1;
    }
  }
  return -1;
}

/**
 * Bytes as a binary string, one character per byte.
 *
 * @param bytes the bytes
 * @returns the string
 */
export function binaryText(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

/**
 * A binary string (characters 0 to 255) back as bytes.
 *
 * @param text the string
 * @returns its bytes
 */
export function binaryBytes(text: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/** Splits a head's header lines; the 1-based number of the first that is not `name: value`. */
function parseHeaders(lines: string[]): Header[] | number {
  const headers: Header[] = [];
  for (let i = 0; i < lines.length; i++) {
    const colon = lines[i].indexOf(":");
    const name = colon < 0 ? "" : lines[i].slice(0, colon);
    const value = lines[i].slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) return i + 1;
    headers.push([name, value]);
  }
  return headers;
}

/** Lowercased names a `Connection` header lists (each is hop-by-hop for that message). */
function connectionTokens(headers: Header[]): Set<string> {
  const tokens = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) tokens.add(token.trim().toLowerCase());
  }
  return tokens;
}

function quoted(text: string): string {
  return `"${text.slice(0, 100)}${text.length > 100 ? "..." : ""}"`;
}

/**
 * Parses a client's request head to the proxy.
 *
 * Rule (RFC 9112 §3 and §5, read strictly, since the client is untrusted):
 * the request line is `METHOD target HTTP/1.0|1.1` with single spaces and a
 * token method of at most 32 characters; every header line is `name: value`
 * (a token name, no whitespace before the colon, no line folding, no
 * control characters but tab). `CONNECT` needs `host:port` (port 1 to
 * 65535); any other method an absolute `http://` URL without credentials
 * (parsed with the WHATWG URL parser, whose host, port and path are the
 * ones checked and forwarded; port 80 when absent). A host is accepted as
 * {@linkcode normalizeHost} says. A body is framed by `Content-Length`
 * (digits; repeated only with the same value) or by `Transfer-Encoding`;
 * both at once is malformed (a request-smuggling shape). Anything else is
 * `malformed`, with what could be read of method, host, port and path.
 *
 * @param head the head as a binary string, through its blank line
 * @returns the parsed head
 */
export function parseRequestHead(head: string): RequestHead {
  const lines = head.split("\r\n").slice(0, -2);
  const summary: HeadSummary = { method: "", host: "", port: 0, path: null };
  const malformed = (why: string): MalformedHead => ({
    kind: "malformed",
    ...summary,
    reason: `Malformed request: ${why}`,
  });
  if (lines.some((line) => line.includes("\r") || line.includes("\n"))) {
    return malformed("a bare CR or LF in the head");
  }
  const firstWord = lines[0].split(" ")[0];
  if (TOKEN.test(firstWord) && firstWord.length <= MAX_EGRESS_METHOD_CHARS) {
    summary.method = firstWord;
  }
  const line = REQUEST_LINE.exec(lines[0]);
  if (line === null || summary.method === "") {
    return malformed(`the request line is not "METHOD target HTTP/1.x"`);
  }
  const headers = parseHeaders(lines.slice(1));
  if (typeof headers === "number") return malformed(`header line ${headers} is not "name: value"`);
  const target = line[2];

  if (summary.method === "CONNECT") {
    const authority = /^(\[[^\]]*\]|[^:\[\]]+):([0-9]{1,5})$/.exec(target);
    if (authority === null) return malformed(`CONNECT target ${quoted(target)} is not host:port`);
    const host = normalizeHost(authority[1]);
    const port = Number(authority[2]);
    if (host === null) return malformed(`host ${quoted(authority[1])} is not a host name`);
    summary.host = host;
    if (port < 1 || port > 65_535) return malformed(`port ${port} is outside 1 to 65535`);
    return { kind: "connect", method: summary.method, host, port, path: null };
  }

  if (!/^http:\/\//i.test(target)) {
    return malformed(`target ${quoted(target)} is not an absolute http:// URL`);
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return malformed(`target ${quoted(target)} is not a URL`);
  }
  const host = normalizeHost(url.hostname);
  if (host === null) return malformed(`host ${quoted(url.hostname)} is not a host name`);
  summary.host = host;
  summary.port = url.port === "" ? 80 : Number(url.port);
  const path = `${url.pathname}${url.search}`;
  summary.path = path.slice(0, MAX_EGRESS_PATH_CHARS);
  if (url.username !== "" || url.password !== "") return malformed("credentials in the URL");
  if (summary.port === 0) return malformed("port 0");

  const lengths = new Set<string>();
  let encoded = false;
  let expectContinue = false;
  const hop = connectionTokens(headers);
  const forwarded: Header[] = [];
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === "content-length") lengths.add(value);
    if (lower === "transfer-encoding") encoded = true;
    if (lower === "expect" && value.toLowerCase() === "100-continue") expectContinue = true;
    if (HOP_BY_HOP.has(lower) || hop.has(lower) || lower === "host" || lower === "expect") continue;
    forwarded.push([name, value]);
  }
  if (encoded && lengths.size > 0) return malformed("both Content-Length and Transfer-Encoding");
  if (lengths.size > 1) return malformed("Content-Length headers that differ");
  const length = lengths.size === 0 ? "0" : [...lengths][0];
  if (!/^[0-9]{1,15}$/.test(length)) {
    return malformed(`Content-Length ${quoted(length)} is not a number`);
  }
  return {
    kind: "http",
    method: summary.method,
    host,
    port: summary.port,
    path: summary.path,
    target: path,
    headers: forwarded,
    bodyLength: encoded ? null : Number(length),
    expectContinue,
  };
}

/**
 * The head the proxy sends the origin for a plain HTTP request.
 *
 * Rule: `METHOD path HTTP/1.1`, `Host` rebuilt from the URL (with `:port`
 * unless 80), the client's end-to-end headers in order, then `Connection:
 * close`: one request per origin connection, so that the response ends
 * where the origin closes.
 *
 * @param request the parsed request
 * @returns the head's bytes
 */
export function originRequestHead(request: HttpHead): Uint8Array<ArrayBuffer> {
  const authority = request.port === 80 ? request.host : `${request.host}:${request.port}`;
  const lines = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${authority}`];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  lines.push("Connection: close", "", "");
  return binaryBytes(lines.join("\r\n"));
}

/**
 * Parses an origin's response head.
 *
 * Rule: `HTTP/1.0|1.1 NNN reason` (status 100 to 599), then `name: value`
 * lines as {@linkcode parseRequestHead} reads them; anything else is null
 * (the proxy then answers 502).
 *
 * @param head the head as a binary string, through its blank line
 * @returns the parsed head, or null
 */
export function parseResponseHead(head: string): ResponseHead | null {
  const lines = head.split("\r\n").slice(0, -2);
  if (lines.some((line) => line.includes("\r") || line.includes("\n"))) return null;
  const status = STATUS_LINE.exec(lines[0]);
  const headers = parseHeaders(lines.slice(1));
  if (status === null || typeof headers === "number") return null;
  return { status: Number(status[1]), statusLine: lines[0], headers };
}

/**
 * The response head the proxy passes back to the client.
 *
 * Rule: the origin's status line and headers, without the connection-specific
 * ones (`Connection`, `Keep-Alive`, `Proxy-Connection` and those `Connection`
 * names), plus `Connection: close`: the proxy serves one request per client
 * connection and closes it after the response. Framing headers
 * (`Content-Length`, `Transfer-Encoding`) pass unchanged, as does the body.
 *
 * @param response the origin's parsed head
 * @returns the head's bytes
 */
export function clientResponseHead(response: ResponseHead): Uint8Array<ArrayBuffer> {
  const hop = connectionTokens(response.headers);
  const lines = [response.statusLine];
  for (const [name, value] of response.headers) {
    const lower = name.toLowerCase();
    if (lower === "connection" || lower === "keep-alive" || lower === "proxy-connection") continue;
    if (hop.has(lower)) continue;
    lines.push(`${name}: ${value}`);
  }
  lines.push("Connection: close", "", "");
  return binaryBytes(lines.join("\r\n"));
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  411: "Length Required",
  407: "Proxy Authentication Required",
  429: "Too Many Requests",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/**
 * One of the proxy's own answers: a status, a one-line plain-text body and
 * `Connection: close`.
 *
 * @param status 400, 403, 407, 408, 411, 429, 502 or 503
 * @param line the body's one line, without its newline
 * @returns the whole response's bytes (a 407 names the Basic scheme, RFC 9110 §11.7.1)
 */
export function proxyAnswer(status: number, line: string): Uint8Array<ArrayBuffer> {
  const body = new TextEncoder().encode(`${line}\n`);
  const challenge = status === 407 ? 'Proxy-Authenticate: Basic realm="ledgerbench"\r\n' : "";
  const head = new TextEncoder().encode(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n${challenge}` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n` +
      `Connection: close\r\n\r\n`,
  );
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}

/**
 * The password of a request head's `Proxy-Authorization: Basic` credentials
 * (RFC 9110 §11.7.2; RFC 7617: base64 of `user:password`), or null when the
 * head has none or they are not Basic.
 *
 * @param head the request head as text (`binaryText`)
 * @returns the password, or null
 * @example
 * ```ts
 * import { proxyPassword } from "./_http_head.ts";
 * const head = "CONNECT a.test:443 HTTP/1.1\r\nProxy-Authorization: Basic " + btoa("v:s3cret") + "\r\n\r\n";
 * if (proxyPassword(head) !== "s3cret") throw new Error();
 * ```
 */
export function proxyPassword(head: string): string | null {
  const value = /^proxy-authorization:[ \t]*basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/im.exec(head)?.[1];
  if (value === undefined) return null;
  let decoded: string;
  try {
    decoded = atob(value);
  } catch {
    return null;
  }
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}
