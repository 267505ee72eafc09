/**
 * Private: which `host:port` a verifier may reach through the egress proxy
 * (issue 22): the suite's allow-list, parsed once, and the match of one
 * request against it.
 *
 * @module
 */
import { MAX_EGRESS_HOST_CHARS } from "../../analysis/schema/egress_request.ts";

/** One parsed allow-list entry. */
export interface AllowRule {
  /** The entry as the suite wrote it. */
  entry: string;
  /** The host name, lowercased; for a suffix rule, the part after `*.`. */
  host: string;
  /** True for `*.suffix`: any name ending in `.suffix` (not `suffix` itself). */
  suffix: boolean;
  /** The one port it allows; null: ports 80 and 443. */
  port: number | null;
}

/** Ports an entry without `:port` allows: HTTP and HTTPS. */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

const LABEL = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
const IPV6_LITERAL = /^\[[0-9a-f:.]{2,45}\]$/;

/**
 * A host as a request names it, lowercased, or null when it is not one.
 *
 * Rule: a DNS name of letters, digits, `-` and `_` (labels of 1 to 63
 * characters, not starting or ending with `-`; IPv4 literals are such names),
 * or an IPv6 literal in brackets; at most 253 characters. A trailing dot is
 * not accepted (`astral.sh.` is not `astral.sh`), so one host has one
 * spelling.
 *
 * @param text the host as sent
 * @returns the lowercased host, or null
 */
export function normalizeHost(text: string): string | null {
  if (text.length === 0 || text.length > MAX_EGRESS_HOST_CHARS) return null;
  const host = text.toLowerCase();
  return HOST_NAME.test(host) || IPV6_LITERAL.test(host) ? host : null;
}

/**
 * Parses a suite's allow-list.
 *
 * Rule: each entry is `host`, `host:port`, `*.suffix` or `*.suffix:port`
 * (host names as {@linkcode normalizeHost} accepts them, an IPv6 literal in
 * brackets with an optional port after the bracket; matching ignores case).
 * An entry without a port allows ports 80 and 443; with one, exactly that
 * port.
 *
 * @param entries the allow-list as the suite names it
 * @returns the rules, in the order given
 * @throws {Error} `Cannot start egress proxy: allow-list entry "...": ...` for an entry of no such form
 */
export function parseAllowList(entries: readonly string[]): AllowRule[] {
  return entries.map((entry) => {
    const problem = (why: string) =>
      new Error(`Cannot start egress proxy: allow-list entry "${entry.slice(0, 300)}": ${why}`);
    const match = /^(\*\.)?(\[[^\]]*\]|[^:]*)(?::([0-9]{1,5}))?$/.exec(entry);
    if (match === null) throw problem("expected host, host:port, *.suffix or *.suffix:port");
    const port = match[3] === undefined ? null : Number(match[3]);
    if (port !== null && (port < 1 || port > 65_535)) throw problem("port outside 1 to 65535");
    const suffix = match[1] !== undefined;
    const host = normalizeHost(match[2]);
    if (host === null) throw problem("not a host name");
    if (suffix && host.startsWith("[")) throw problem("a suffix rule needs a host name");
    return { entry, host, suffix, port };
  });
}

/**
 * The first rule that allows `host:port`, or null.
 *
 * Rule: the host (lowercased, as {@linkcode normalizeHost} returns it)
 * equals the rule's host, or for a suffix rule ends in `.` + its host; and
 * the port is the rule's port, or 80 or 443 for a rule without one. Cost:
 * O(rules).
 *
 * @param rules the parsed allow-list
 * @param host the requested host, normalized
 * @param port the requested port
 * @returns the matching rule, or null when the request is denied
 */
export function allowingRule(
  rules: readonly AllowRule[],
  host: string,
  port: number,
): AllowRule | null {
  for (const rule of rules) {
    const hostMatches = rule.suffix ? host.endsWith(`.${rule.host}`) : host === rule.host;
    const portMatches = rule.port === null ? DEFAULT_PORTS.includes(port) : port === rule.port;
    if (hostMatches && portMatches) return rule;
  }
  return null;
}
