/**
 * What the options naming an upstream share (`run --upstream`,
 * `--provider-script`, `--judge-upstream`, `--judge-provider-script`, and
 * the demo's judge): their `[KIND+]TARGET` form, and the scripted provider
 * a script file starts.
 *
 * @module
 */
import { loadProviderScript } from "../inputs/provider_script.ts";
import { UPSTREAM_KINDS, type UpstreamKind } from "../runner/relay/api/upstream_kind.ts";
import { startScriptedProvider } from "../runner/relay/scripted_provider.ts";
import type { Upstream } from "../runner/relay/upstream.ts";

/** A scripted provider started for a script file, as an upstream, and how to stop it. */
export interface ScriptedUpstream {
  /** Its base URL and the fresh key it accepts (no kind: the option names it). */
  upstream: Upstream;
  close(): Promise<void>;
}

/**
 * Starts a scripted provider answering from a script file (the stand-in for
 * a paid model), with a fresh random key that lives only in the runner.
 *
 * @param file a `ProviderScript` JSON file
 * @returns the provider as an upstream, and its `close`
 * @throws {LedgerError} when the file cannot be read or does not fit the schema
 */
export async function startScriptedUpstream(file: string): Promise<ScriptedUpstream> {
  const script = (await loadProviderScript(file)).value;
  const key = crypto.randomUUID();
  const provider = await startScriptedProvider(script, { apiKey: key });
  return { upstream: { baseUrl: provider.baseUrl, key }, close: () => provider.close() };
}

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
