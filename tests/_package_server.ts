/**
 * Test helper (issue 22): a loopback "package server" standing in for the
 * hosts a verifier downloads from (`deb.debian.org`, `astral.sh`,
 * `pypi.org`, ...). It serves fixed files by the request's host and path,
 * over HTTP and optionally HTTPS, so that the egress proxy's `connect`
 * override can send every allowed host to it while clients still name the
 * real hosts.
 *
 * @module
 */

/** Options of {@linkcode startPackageServer}. */
export interface PackageServerOptions {
  /** Files by `"host/path"`, e.g. `"astral.sh/uv/0.9.7/install.sh"`; a string is served as UTF-8. */
  files: Record<string, Uint8Array | string>;
  /** A certificate and key (PEM) for the HTTPS listener; absent: HTTP only. */
  tls?: { certPem: string; keyPem: string };
}

/** A running package server. */
export interface PackageServer {
  /** Its HTTP port on 127.0.0.1. */
  port: number;
  /** Its HTTPS port on 127.0.0.1, when `tls` was given. */
  tlsPort?: number;
  /** Every request, in arrival order: host (no port) and path with its query. */
  requests: { host: string; path: string }[];
  /** Stops both listeners. */
  close(): Promise<void>;
}

/**
 * Starts a package server on 127.0.0.1 (free ports).
 *
 * Rule: a `GET` or `HEAD` whose host (from the `Host` header or HTTP/2
 * authority, port removed) and path (query ignored) form a key of `files`
 * gets 200 with that file (`application/octet-stream`, its exact length);
 * any other path 404, any other method 405, each with a one-line body.
 * Every request is appended to `requests`.
 *
 * @param options the files and an optional TLS certificate
 * @returns the server, once both listeners listen
 * @example
 * ```ts
 * import { startPackageServer } from "./_package_server.ts";
 * const server = await startPackageServer({ files: { "astral.sh/uv/0.9.7/install.sh": "echo uv\n" } });
 * const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
 * await conn.write(new TextEncoder().encode(
 *   "GET /uv/0.9.7/install.sh HTTP/1.1\r\nHost: astral.sh\r\nConnection: close\r\n\r\n",
 * ));
 * const text = await new Response(conn.readable).text();
 * await server.close();
 * if (!text.endsWith("\r\n\r\necho uv\n")) throw new Error("the file expected");
 * ```
 */
export async function startPackageServer(options: PackageServerOptions): Promise<PackageServer> {
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const [key, content] of Object.entries(options.files)) {
    files.set(
      key,
      typeof content === "string" ? new TextEncoder().encode(content) : content.slice(),
    );
  }
  const requests: { host: string; path: string }[] = [];
  const handler = (request: Request): Response => {
    const url = new URL(request.url);
    requests.push({ host: url.hostname, path: `${url.pathname}${url.search}` });
    const key = `${url.hostname}${url.pathname}`;
    const text = (status: number, line: string) =>
      new Response(`${line}\n`, { status, headers: { "content-type": "text/plain" } });
    if (request.method !== "GET" && request.method !== "HEAD") {
      return text(405, `Method not allowed: ${request.method}`);
    }
    const file = files.get(key);
    if (file === undefined) return text(404, `Not found: ${key}`);
    return new Response(file, { headers: { "content-type": "application/octet-stream" } });
  };
  const listen = async (tls?: { cert: string; key: string }) => {
    const { promise, resolve } = Promise.withResolvers<number>();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => resolve(port), ...tls },
      handler,
    );
    return { server, port: await promise };
  };
  const plain = await listen();
  const secure = options.tls === undefined
    ? undefined
    : await listen({ cert: options.tls.certPem, key: options.tls.keyPem });
  return {
    port: plain.port,
    ...(secure === undefined ? {} : { tlsPort: secure.port }),
    requests,
    close: async () => {
      await Promise.all([plain.server.shutdown(), secure?.server.shutdown()]);
    },
  };
}
