/**
 * The options naming the LLM judge's upstream (issue 14), shared by `run`
 * and `judge calibrate`: a real one (`--judge-upstream`, its key in the
 * environment, living in the judge's relay only) or a scripted provider
 * (`--judge-provider-script`, the stand-in for a paid judge in tests and
 * demos).
 *
 * @module
 */
import type { Upstream } from "../runner/relay/upstream.ts";
import { stringOption } from "./_args.ts";
import { UsageError } from "./_command.ts";
import { startScriptedUpstream, upstreamKindOf } from "./_upstream_options.ts";
import { upstreamKey } from "./_upstream_key.ts";

/** The two options, for a command's option table. */
export const JUDGE_UPSTREAM_OPTIONS = {
  "judge-upstream": { type: "string" },
  "judge-provider-script": { type: "string" },
} as const;

/** Their help lines. */
export const JUDGE_UPSTREAM_HELP =
  `  --judge-upstream [KIND+]URL  The LLM judge's upstream base URL ending in /v1
                             (KIND openai: Chat Completions, the default; or
                             anthropic: Messages). Its key is read from
                             LEDGERBENCH_JUDGE_KEY (else LEDGERBENCH_UPSTREAM_KEY)
                             and lives in the judge's relay only
  --judge-provider-script [KIND+]FILE  A scripted provider (a ProviderScript
                             JSON) answering as the judge`;

/** A judge upstream and what must be closed when the command ends. */
export interface JudgeUpstream {
  upstream: Upstream;
  close(): Promise<void>;
}

/**
 * The judge's upstream the options name, starting the scripted provider
 * when `--judge-provider-script` is given.
 *
 * @param values the parsed options
 * @returns the upstream, or null when neither option is given
 * @throws {UsageError} when both are given, or the real one has no key
 * @throws {LedgerError} when the script file cannot be read
 */
export async function judgeUpstreamOption(
  values: Record<string, string | boolean | string[] | undefined>,
): Promise<JudgeUpstream | null> {
  const url = stringOption(values, "judge-upstream");
  const script = stringOption(values, "judge-provider-script");
  if (url !== undefined && script !== undefined) {
    throw new UsageError('Give at most one of "--judge-upstream" and "--judge-provider-script"');
  }
  if (url !== undefined) {
    const key = upstreamKey("LEDGERBENCH_JUDGE_KEY", "LEDGERBENCH_UPSTREAM_KEY");
    const { kind, target } = upstreamKindOf(url);
    return { upstream: { baseUrl: target, kind, key }, close: () => Promise.resolve() };
  }
  if (script === undefined) return null;
  const { kind, target: file } = upstreamKindOf(script);
  const started = await startScriptedUpstream(file);
  return { upstream: { ...started.upstream, kind }, close: started.close };
}
