/**
 * Token counts of Inspect AI samples by Inspect version and provider: what
 * `ModelUsage`'s `input_tokens` and `output_tokens` hold has changed over
 * releases and differs between providers, and these rules turn them into
 * an attempt's prompt and completion tokens (the cache rule:
 * {@link inputIncludesCache}; the reasoning rule:
 * {@link outputExcludesReasoning}; the releases where they changed:
 * {@link INPUT_EXCLUDES_CACHE_SINCE},
 * {@link GOOGLE_OUTPUT_INCLUDES_REASONING_SINCE}).
 *
 * Read from Inspect AI's `model/_model_output.py` (ModelUsage) and the
 * providers under `model/_providers/`, at the commits named below.
 *
 * @module
 */
import { displayId } from "../../analysis/untrusted_text.ts";
import { field, type Json, object, type Place, problem } from "./_inspect_fields.ts";

/**
 * The first Inspect release whose `input_tokens` excludes cache reads and
 * writes for every provider: PR 3341 ("Normalize handling of cached tokens
 * in ModelUsage", commit bf26615, 26 February 2026), released in 0.3.184
 * (CHANGELOG, 28 February 2026).
 */
export const INPUT_EXCLUDES_CACHE_SINCE = "0.3.184";

/**
 * The first Inspect release whose Google provider counts thinking in
 * `output_tokens`: PR 4427 (commit 659d27c, 6 July 2026), released in 0.3.245.
 */
export const GOOGLE_OUTPUT_INCLUDES_REASONING_SINCE = "0.3.245";

/** Summed token counts and cost of a sample, or null when none are recorded. */
export interface Usage {
  prompt: number;
  completion: number;
  cost: number | null;
}

const USAGE_COUNTS = [
  "input_tokens",
  "output_tokens",
  "input_tokens_cache_read",
  "input_tokens_cache_write",
  "reasoning_tokens",
] as const;

/**
 * A sample's `model_usage` summed over its models: the prompt tokens, the
 * completion tokens and the reported cost.
 *
 * Rule: prompt = `input_tokens` + `input_tokens_cache_read` +
 * `input_tokens_cache_write` where `input_tokens` leaves the cache out
 * (see {@link inputIncludesCache}); completion = `output_tokens`, +
 * `reasoning_tokens` where `output_tokens` leaves them out (see
 * {@link outputExcludesReasoning}); an absent or null count is 0; the cost
 * is the sum of `total_cost`, null when no model reports one.
 *
 * @param usage the sample's `model_usage`
 * @param place where the sample sits, named in problems
 * @param version the log's Inspect version (null: unknown, read by the current rules)
 * @returns the sums, or null when the sample records no usage (absent, null or empty)
 * @throws {LedgerError} `schema_violation` for a count that is no whole
 *   number ≥ 0, a cost that is no number ≥ 0
 */
export function sampleUsage(usage: unknown, place: Place, version: Version | null): Usage | null {
  if (usage === undefined || usage === null) return null;
  const models = object(usage, place, "model_usage");
  const names = Object.keys(models);
  if (names.length === 0) return null;
  const total: Usage = { prompt: 0, completion: 0, cost: null };
  for (const name of names) {
    const at = `model_usage.${name}`;
    const counts = object(models[name], place, at);
    const count = (key: typeof USAGE_COUNTS[number]) => {
      const value = counts[key];
      if (value === undefined || value === null) return 0;
      if (!Number.isInteger(value) || (value as number) < 0) {
        throw problem(
          "schema_violation",
          place.file,
          field(place, `${at}.${key}`),
          "must be a count",
        );
      }
      return value as number;
    };
    const cache = count("input_tokens_cache_read") + count("input_tokens_cache_write");
    total.prompt += count("input_tokens") + (inputIncludesCache(name, version) ? 0 : cache);
    total.completion += count("output_tokens") +
      (outputExcludesReasoning(name, version) ? count("reasoning_tokens") : 0);
    const cost = counts.total_cost;
    if (typeof cost === "number" && Number.isFinite(cost) && cost >= 0) {
      total.cost = (total.cost ?? 0) + cost;
    } else if (cost !== undefined && cost !== null) {
      throw problem(
        "schema_violation",
        place.file,
        field(place, `${at}.total_cost`),
        "must be a number ≥ 0",
      );
    }
  }
  return total;
}

/** A release triple and whether it is a development build before that release (PEP 440). */
export interface Version {
  release: [number, number, number];
  dev: boolean;
  text: string;
}

/**
 * The log's Inspect version, from `eval.packages.inspect_ai`.
 *
 * Rule: `major.minor.patch`, a `.devN` suffix marking a development build
 * before that release (PEP 440); absent or unreadable: null, with a
 * warning that the current rules are applied; a development build of a
 * release where the token rules changed is read as before it, with a
 * warning.
 *
 * @param spec the log's `eval`
 * @param file the file holding it, named in the warnings
 * @param warnings where the warnings go
 * @returns the version, or null
 */
export function inspectVersion(spec: Json, file: string, warnings: string[]): Version | null {
  const packages = spec.packages as Json | undefined;
  const text = typeof packages === "object" && packages !== null ? packages.inspect_ai : undefined;
  const match = typeof text === "string" ? /^(\d+)\.(\d+)\.(\d+)(\.dev\d+)?/.exec(text) : null;
  if (match === null) {
    warnings.push(
      `${file}: eval.packages.inspect_ai is absent or unreadable: tokens are read by the rules of ` +
        `Inspect ${INPUT_EXCLUDES_CACHE_SINCE} and later`,
    );
    return null;
  }
  const release: [number, number, number] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const version = { release, dev: match[4] !== undefined, text: text as string };
  for (const boundary of [INPUT_EXCLUDES_CACHE_SINCE, GOOGLE_OUTPUT_INCLUDES_REASONING_SINCE]) {
    if (version.dev && release.join(".") === boundary) {
      warnings.push(
        `${file}: eval.packages.inspect_ai is ${
          displayId(version.text)
        }, a development build of ${boundary}, where the token ` +
          "rules changed: read as a build from before that release",
      );
    }
  }
  return version;
}

/** True when `version` is at least `release` (a dev build counts as before its release). */
function atLeast(version: Version, release: string): boolean {
  const boundary = release.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if (version.release[i] !== boundary[i]) return version.release[i] > boundary[i];
  }
  return !version.dev;
}

function provider(model: string): string {
  return model.split("/", 1)[0];
}

/**
 * Whether `input_tokens` of `model` already counts the cache reads and
 * writes in the log's Inspect version.
 *
 * Rule: from 0.3.184 (PR 3341) never: `input_tokens` is the full-rate
 * input and the true input is `input_tokens + input_tokens_cache_read +
 * input_tokens_cache_write` (ModelUsage's docstring). Before it, every
 * provider that reported cache tokens except Anthropic counted them inside
 * `input_tokens` (at 0.3.183 the OpenAI chat, o1 and Responses readers and
 * Grok passed the prompt count with `cached_tokens` as the cache read;
 * Anthropic passed its `input_tokens`, which excludes cache reads and
 * writes; the other providers report no cache fields, so the choice does
 * not matter for them). An unknown version is read by the current rule.
 */
export function inputIncludesCache(model: string, version: Version | null): boolean {
  if (version === null || atLeast(version, INPUT_EXCLUDES_CACHE_SINCE)) return false;
  return provider(model) !== "anthropic";
}

/**
 * Whether `output_tokens` of `model` leaves out its `reasoning_tokens`.
 *
 * Rule: `output_tokens` includes reasoning for OpenAI (`completion_tokens`)
 * and Anthropic (its `output_tokens`); Inspect's Google provider reported
 * `candidates_token_count` without `thoughts_token_count` until 0.3.245 (PR
 * 4427), and its Grok provider passes xAI's `completion_tokens`, which
 * leaves out `reasoning_tokens` (xAI's usage reports them "separate from
 * completion_tokens": Google Cloud's Grok reasoning page), in every
 * version: there the reasoning tokens are added. An unknown version is read
 * by the current rule.
 */
export function outputExcludesReasoning(model: string, version: Version | null): boolean {
  const name = provider(model);
  if (name === "grok") return true;
  return name === "google" && version !== null &&
    !atLeast(version, GOOGLE_OUTPUT_INCLUDES_REASONING_SINCE);
}
