/**
 * The `[KIND+]TARGET` form of the options naming an upstream (`run
 * --upstream`, `--provider-script`, `--judge-upstream`,
 * `--judge-provider-script`).
 *
 * @module
 */
import { UPSTREAM_KINDS, type UpstreamKind } from "../runner/relay/api/upstream_kind.ts";

/**
 * Splits an upstream value `[KIND+]TARGET` (`anthropic+https://...`) into
 * its kind (default `openai`) and target; only a known kind is a prefix.
 *
 * @param value the option value after any `ID=`
 * @returns the kind and the URL or file
 */
export function upstreamKindOf(value: string): { kind: UpstreamKind; target: string } {
  const plus = value.indexOf("+");
  const prefix = value.slice(0, plus) as UpstreamKind;
  if (plus > 0 && UPSTREAM_KINDS.includes(prefix)) {
    return { kind: prefix, target: value.slice(plus + 1) };
  }
  return { kind: "openai", target: value };
}
