/**
 * Scripted replies as the OpenAI Chat Completions API sends them
 * (`POST /v1/chat/completions`): a `chat.completion` body, or a stream of
 * `chat.completion.chunk` events ended by `data: [DONE]`.
 *
 * @module
 */
import type { ReplyParts, ReplyUsage } from "./scripted_reply_parts.ts";
import { sseEvent, textPieces } from "./scripted_reply_parts.ts";
import type { ErrorKind, ScriptedWire } from "./scripted_wire.ts";

/**
 * The chat wire.
 *
 * Whole: `id` `chatcmpl-scripted-<call>`, `created` 0, the message's
 * `content` (null when it is empty and there are tool calls), `tool_calls`
 * with ids `call_<call>_<i>`, `finish_reason` `tool_calls` or `stop`, and
 * `usage` (`prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens` only when the script names a
 * detail).
 *
 * Streamed: a first delta with the role, the content in
 * {@linkcode textPieces}, for each tool call a delta with its `id`, type and
 * name and then one with its arguments, a last choice chunk with
 * `finish_reason`; then, only when the request has
 * `stream_options.include_usage` true, a chunk with `"choices": []` and the
 * usage (none for a `usage: null` reply; the other chunks then carry
 * `"usage": null`); then `data: [DONE]`.
 */
export const chatWire: ScriptedWire = {
  body(parts) {
    const toolCalls = chatToolCalls(parts);
    const message: Record<string, unknown> = {
      role: "assistant",
      content: parts.content === "" && toolCalls.length > 0 ? null : parts.content,
    };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    const out: Record<string, unknown> = {
      id: `chatcmpl-scripted-${parts.call}`,
      object: "chat.completion",
      created: 0,
    };
    if (parts.model !== null) out.model = parts.model;
    out.choices = [{ index: 0, message, finish_reason: finishReason(parts) }];
    if (parts.usage !== null) out.usage = openAiUsage(parts.usage);
    return out;
  },

  events(parts, request) {
    const includeUsage = includesUsage(request);
    const head: Record<string, unknown> = {
      id: `chatcmpl-scripted-${parts.call}`,
      object: "chat.completion.chunk",
      created: 0,
    };
    if (parts.model !== null) head.model = parts.model;
    const chunks: Record<string, unknown>[] = [];
    const delta = (value: Record<string, unknown>, finish: string | null = null) => {
      const chunk = { ...head, choices: [{ index: 0, delta: value, finish_reason: finish }] };
      chunks.push(includeUsage ? { ...chunk, usage: null } : chunk);
    };
    delta({ role: "assistant", content: "" });
    for (const piece of textPieces(parts.content)) delta({ content: piece });
    for (const [i, tool] of chatToolCalls(parts).entries()) {
      delta({
        tool_calls: [{
          index: i,
          id: tool.id,
          type: tool.type,
          function: { ...tool.function, arguments: "" },
        }],
      });
      if (tool.function.arguments !== "") {
        delta({ tool_calls: [{ index: i, function: { arguments: tool.function.arguments } }] });
      }
    }
    delta({}, finishReason(parts));
    if (includeUsage && parts.usage !== null) {
      chunks.push({ ...head, choices: [], usage: openAiUsage(parts.usage) });
    }
    return [...chunks.map((chunk) => sseEvent(chunk)), sseEvent("[DONE]")];
  },

  error: openAiError,
};

/**
 * An OpenAI error body, `{"error": {message, type, param: null, code: null}}`.
 *
 * Rule: a refused key or an unreadable request is `invalid_request_error`;
 * a scripted 429 is `rate_limit_error`, any other scripted status
 * `server_error`.
 *
 * @param kind Why the request failed.
 * @param status The HTTP status sent.
 * @param message The error's message.
 * @returns The body.
 */
export function openAiError(kind: ErrorKind, status: number, message: string): unknown {
  const type = kind !== "scripted"
    ? "invalid_request_error"
    : status === 429
    ? "rate_limit_error"
    : "server_error";
  return { error: { message, type, param: null, code: null } };
}

/**
 * OpenAI's usage object for chat and completions: `prompt_tokens`,
 * `completion_tokens`, `total_tokens`, and the cached and reasoning details
 * only when the script named a detail.
 *
 * @param usage The reply's usage.
 * @returns The `usage` field.
 */
export function openAiUsage(usage: ReplyUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
  if (usage.detailed) {
    out.prompt_tokens_details = { cached_tokens: usage.cached_tokens };
    out.completion_tokens_details = { reasoning_tokens: usage.reasoning_tokens };
  }
  return out;
}

/**
 * Whether a chat or completions request asks for a usage chunk
 * (`stream_options.include_usage` true).
 *
 * @param request The request body.
 * @returns true when it asks.
 */
export function includesUsage(request: Record<string, unknown>): boolean {
  const options = request.stream_options;
  return options !== null && typeof options === "object" &&
    (options as { include_usage?: unknown }).include_usage === true;
}

function chatToolCalls(parts: ReplyParts) {
  return parts.toolCalls.map((tool, i) => ({
    id: `call_${parts.call}_${i}`,
    type: "function" as const,
    function: { name: tool.name, arguments: tool.arguments },
  }));
}

function finishReason(parts: ReplyParts): "stop" | "tool_calls" {
  return parts.toolCalls.length > 0 ? "tool_calls" : "stop";
}
