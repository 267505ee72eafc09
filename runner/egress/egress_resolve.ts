/**
 * Where the verifier's egress proxy connects for a named host, as curl's
 * `--resolve` says it (issue 22): `LEDGERBENCH_EGRESS_RESOLVE` holds
 * comma-separated `HOST:PORT=ADDRESS:PORT` entries, e.g.
 * `deb.debian.org:80=203.0.113.80:80,astral.sh:443=127.0.0.1:8443`, for a
 * package mirror on the runner's own network (which the proxy's
 * public-address rule would deny) or a loopback stand-in in the tests. The
 * allow-list still decides which hosts may be asked for at all.
 *
 * @module
 */

/** The variable the runner reads. */
export const EGRESS_RESOLVE_VARIABLE = "LEDGERBENCH_EGRESS_RESOLVE";

/** A resolver for `startEgressProxy`'s `connect`. */
export type EgressResolve = (
  host: string,
  port: number,
) => { hostname: string; port: number } | undefined;

/**
 * Parses the entries (see the module doc); host names are matched without case.
 *
 * @param text the variable's value (empty: no entry)
 * @returns the resolver, undefined for a host and port it does not name
 * @throws {Error} naming the variable and the entry that is not `HOST:PORT=ADDRESS:PORT`
 * @example
 * ```ts
 * import { parseEgressResolve } from "./egress_resolve.ts";
 * import { deepEqual, equal } from "node:assert/strict";
 * const resolve = parseEgressResolve("astral.sh:443=127.0.0.1:8443");
 * deepEqual(resolve("Astral.sh", 443), { hostname: "127.0.0.1", port: 8443 });
 * equal(resolve("astral.sh", 80), undefined);
 * ```
 */
export function parseEgressResolve(text: string): EgressResolve {
  const table = new Map<string, { hostname: string; port: number }>();
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const match = /^([A-Za-z0-9.-]+):(\d{1,5})=([A-Za-z0-9.:-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/
      .exec(entry);
    const ports = match === null ? [] : [Number(match[2]), Number(match[4])];
    if (match === null || ports.some((p) => p < 1 || p > 65535)) {
      throw new Error(
        `${EGRESS_RESOLVE_VARIABLE}: "${entry.slice(0, 120)}" is not HOST:PORT=ADDRESS:PORT`,
      );
    }
    table.set(`${match[1].toLowerCase()}:${ports[0]}`, {
      hostname: match[3].replace(/^\[|\]$/g, ""),
      port: ports[1],
    });
  }
  return (host, port) => table.get(`${host.toLowerCase()}:${port}`);
}
