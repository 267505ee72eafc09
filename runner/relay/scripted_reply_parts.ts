/**
 * What a status-200 scripted reply says, before any API's shape: the one
 * source the whole and the streamed answer of every API are rendered from,
 * so that they cannot drift apart.
 *
 * @module
 */
import {
  derivedUsage,
  type ProviderReply,
  type ProviderScript,
} from "../../analysis/schema/provider_script.ts";

/** Token counts of a reply, in the script's meaning (see `ProviderUsage`). */
export interface ReplyUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_creation_tokens: number;
  reasoning_tokens: number;
  /** The script named `cached_tokens`, `cache_creation_tokens` or `reasoning_tokens`. */
  detailed: boolean;
}

/** A reply ready to render. */
export interface ReplyParts {
  /** The call's 1-based number, which every id of the response carries. */
  call: number;
  content: string;
  toolCalls: { name: string; arguments: string }[];
  /** null: the response has no `model` field. */
  model: string | null;
  /** null: the response has no `usage` field. */
  usage: ReplyUsage | null;
}

/** Options of {@linkcode replyParts}. */
export interface ReplyPartsOptions {
  /** The request's prompt text, for derived usage. */
  promptText: string;
  /** The credential header received, for `echo_authorization`. */
  credential: string | null;
  /** Leave the tool calls out (the legacy completions API has none). */
  withoutToolCalls?: boolean;
  /**
   * The request's output cap (`max_completion_tokens`, `max_tokens` or
   * `max_output_tokens`); absent or null: none. A model stops at it, so the
   * reply's completion tokens are at most this many.
   */
  outputCap?: number | null;
}

/**
 * Resolves a reply's defaults: content (or the echoed credential), tool
 * calls, model (absent: the script's) and usage (absent: derived from the
 * prompt and the reply as sent, see `derivedUsage`; `total_tokens` absent:
 * prompt + completion; details absent: 0). With `outputCap`, completion
 * tokens above it are reported as the cap (and the total with them), as a
 * model that stops at its output cap would report them.
 *
 * @param script The parsed script.
 * @param call The call's number.
 * @param reply The chosen reply (status 200).
 * @param options Prompt text, credential and whether tool calls are dropped.
 * @returns The parts every API renders.
 * @example
 * ```ts
 * import { replyParts } from "./scripted_reply_parts.ts";
 * import { parseProviderScript } from "../../analysis/schema/provider_script.ts";
 * const script = parseProviderScript({ default: { content: "hello" } });
 * const parts = replyParts(script, 1, script.default, { promptText: "0123456789", credential: null });
 * if (parts.usage?.total_tokens !== 5 || parts.model !== "scripted-model-1") throw new Error();
 * ```
 */
export function replyParts(
  script: ProviderScript,
  call: number,
  reply: ProviderReply,
  options: ReplyPartsOptions,
): ReplyParts {
  const content = reply.echo_authorization ? options.credential ?? "" : reply.content;
  const toolCalls = options.withoutToolCalls === true
    ? []
    : reply.tool_calls.map(({ name, arguments: args }) => ({ name, arguments: args }));
  let usage: ReplyUsage | null = null;
  if (reply.usage !== null) {
    const given = reply.usage ??
      derivedUsage(options.promptText, { content, tool_calls: toolCalls }, script.prompt_billing);
    const cap = options.outputCap ?? null;
    const stopped = cap !== null && given.completion_tokens > cap;
    const completion = stopped ? cap : given.completion_tokens;
    usage = {
      prompt_tokens: given.prompt_tokens,
      completion_tokens: completion,
      total_tokens: stopped || given.total_tokens === undefined
        ? given.prompt_tokens + completion
        : given.total_tokens,
      cached_tokens: reply.usage?.cached_tokens ?? 0,
      cache_creation_tokens: reply.usage?.cache_creation_tokens ?? 0,
      reasoning_tokens: reply.usage?.reasoning_tokens ?? 0,
      detailed: reply.usage !== undefined &&
        (reply.usage.cached_tokens !== undefined ||
          reply.usage.cache_creation_tokens !== undefined ||
          reply.usage.reasoning_tokens !== undefined),
    };
  }
  return {
    call,
    content,
    toolCalls,
    model: reply.model === undefined ? script.model : reply.model,
    usage,
  };
}

/**
 * How every scripted stream cuts text: after each run of whitespace
 * (`"a b  c"` gives `"a "`, `"b  "`, `"c"`); "" gives no piece.
 *
 * @param text The text to stream.
 * @returns The pieces, in order; joined they are `text`.
 */
export function textPieces(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== "");
}

/**
 * One server-sent event: an `event:` line when `name` is given, then the
 * `data:` line (JSON, or `[DONE]` given as a string) and the blank line.
 *
 * @param data The payload (a string is sent as is).
 * @param name The event name, e.g. `message_start`.
 * @returns The event's text.
 */
export function sseEvent(data: unknown, name?: string): string {
  const line = `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
  return name === undefined ? line : `event: ${name}\n${line}`;
}
