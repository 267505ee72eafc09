/**
 * Where one agent's model calls go (the relay's upstream): apart from the
 * episode executor that takes one per agent, since the judge's relay takes
 * one too (issue 23: the judge modules imported it from
 * \`runner/run_episode.ts\`, which imports them, an import cycle).
 *
 * @module
 */
import type { UpstreamKind } from "./api/upstream_kind.ts";

/** Where one agent's model calls go. */
export interface Upstream {
  /**
   * Base URL ending in its API version, e.g. `http://127.0.0.1:4000/v1`,
   * `https://api.anthropic.com/v1` or
   * `https://generativelanguage.googleapis.com/v1beta`.
   */
  baseUrl: string;
  /**
   * Which vendor's APIs it serves (`RelayOptions.upstreamKind`; absent:
   * `openai`): the relay meters and forwards model calls of that kind only.
   */
  kind?: UpstreamKind;
  /** The upstream key; lives in the relay only. */
  key: string;
  /** When given, a call served by another model id is missing evidence. */
  expectedModelIds?: readonly string[];
}
