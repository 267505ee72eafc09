/**
 * Reading a repeatable host option (`--verifier-allow-host`,
 * `--agent-allow-host`): each value lower-cased and checked against
 * `AllowHost` (a host name or `*.name`, optionally `:port`), the way the
 * suite and the plan store hosts.
 *
 * @module
 */
import type { ParsedArgs } from "./_args.ts";
import { UsageError } from "./_command.ts";
import { AllowHost } from "../analysis/schema/allow_host.ts";

/**
 * The hosts an option names, in the order given, each lower-cased; an
 * alias among `aliases` passes as it is (lower-cased).
 *
 * @param values the parsed options
 * @param option the option's name, without its dashes
 * @param aliases names that stand for a list of hosts (`@package-indexes`)
 * @returns the hosts, or undefined when the option is absent
 * @throws {UsageError} naming the option and the value that is no host
 * @example
 * ```ts
 * import { allowHostOption } from "./_allow_host_option.ts";
 * import { deepEqual, throws } from "node:assert/strict";
 * deepEqual(allowHostOption({ "h": ["PyPI.org", "*.x.io:443"] }, "h"), ["pypi.org", "*.x.io:443"]);
 * throws(
 *   () => allowHostOption({ "h": "https://x.io" }, "h", ["@all"]),
 *   /^UsageError: Option "--h" must be a host name or \*\.name, optionally :port, or "@all": "https:\/\/x\.io"$/,
 * );
 * ```
 */
export function allowHostOption(
  values: ParsedArgs["values"],
  option: string,
  aliases: readonly string[] = [],
): string[] | undefined {
  const given = values[option];
  if (given === undefined) return undefined;
  return (Array.isArray(given) ? given : [String(given)]).map((host) => {
    const lower = String(host).toLowerCase();
    if (!aliases.includes(lower) && !AllowHost.safeParse(lower).success) {
      throw new UsageError(
        `Option "--${option}" must be a host name or *.name, optionally :port${
          aliases.map((alias) => `, or "${alias}"`).join("")
        }: "${host}"`,
      );
    }
    return lower;
  });
}
