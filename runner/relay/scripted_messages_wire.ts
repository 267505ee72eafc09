/**
 * Scripted replies as the Anthropic Messages API sends them
 * (`POST /v1/messages`): a `message` whose `content` holds a `text` block
 * and one `tool_use` block per tool call, or, streamed, the API's named
 * events (`event:` and `data:` lines). Errors are Anthropic error bodies.
 *
 * @module
 */
import type { ReplyParts, ReplyUsage } from "./scripted_reply_parts.ts";
import { sseEvent, textPieces } from "./scripted_reply_parts.ts";
import type { ErrorKind, ScriptedWire } from "./scripted_wire.ts";

type Json = Record<string, unknown>;

/**
 * The Messages wire.
 *
 * Whole: `id` `msg_scripted_<call>`, `type` `message`, `role` `assistant`,
 * `model`, `content` (a `text` block when the content is not empty or there
 * is no tool call, then per tool call a `tool_use` block `toolu_<call>_<i>`
 * with `name` and `input`, the parsed arguments), `stop_reason` `tool_use`
 * or `end_turn`, `stop_sequence` null, `usage` `{input_tokens,
 * cache_creation_input_tokens, cache_read_input_tokens, output_tokens}`
 * where `input_tokens` is the prompt less its cached and cache-creation
 * tokens (Anthropic counts those apart).
 *
 * Streamed: `message_start` (the message with no content, null stop reason,
 * and the usage with `output_tokens` at most 1, as the API sends a
 * placeholder), `ping`; per block `content_block_start` (text "", or the
 * `tool_use` block with `input` {}), `content_block_delta` (a `text_delta`
 * per {@linkcode textPieces} piece, or one `input_json_delta` with the whole
 * arguments), `content_block_stop`; `message_delta` (stop reason, and
 * `usage.output_tokens`, the final count), `message_stop`. A `usage: null`
 * reply has no `usage` field anywhere.
 */
export const messagesWire: ScriptedWire = {
  body(parts) {
    return message(
      parts,
      blocks(parts),
      stopReason(parts),
      parts.usage && anthropicUsage(parts.usage),
    );
  },

  events(parts) {
    const events: string[] = [];
    const emit = (type: string, fields: Json = {}) => {
      events.push(sseEvent({ type, ...fields }, type));
    };
    const startUsage = parts.usage && {
      ...anthropicUsage(parts.usage),
      output_tokens: Math.min(1, parts.usage.completion_tokens),
    };
    emit("message_start", { message: message(parts, [], null, startUsage) });
    emit("ping");
    let tool = 0;
    for (const [index, block] of blocks(parts).entries()) {
      if (block.type === "text") {
        emit("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const text of textPieces(parts.content)) {
          emit("content_block_delta", { index, delta: { type: "text_delta", text } });
        }
      } else {
        emit("content_block_start", { index, content_block: { ...block, input: {} } });
        emit("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: parts.toolCalls[tool].arguments },
        });
        tool += 1;
      }
      emit("content_block_stop", { index });
    }
    const delta: Json = { delta: { stop_reason: stopReason(parts), stop_sequence: null } };
    if (parts.usage !== null) delta.usage = { output_tokens: parts.usage.completion_tokens };
    emit("message_delta", delta);
    emit("message_stop");
    return events;
  },

  error: anthropicError,
};

/**
 * An Anthropic error body, `{"type": "error", "error": {type, message}}`.
 *
 * Rule (the API's error types by HTTP status): a refused key is
 * `authentication_error`, an unreadable request `invalid_request_error`; a
 * scripted status maps 400 `invalid_request_error`, 401
 * `authentication_error`, 403 `permission_error`, 404 `not_found_error`, 413
 * `request_too_large`, 429 `rate_limit_error`, 529 `overloaded_error`, any
 * other `api_error`.
 *
 * @param kind Why the request failed.
 * @param status The HTTP status sent.
 * @param message The error's message.
 * @returns The body.
 */
export function anthropicError(kind: ErrorKind, status: number, message: string): unknown {
  const type = kind === "authentication"
    ? "authentication_error"
    : kind === "invalid_request"
    ? "invalid_request_error"
    : ANTHROPIC_ERROR_TYPES[status] ?? "api_error";
  return { type: "error", error: { type, message } };
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

type Block = { type: "text"; text: string } | {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
};

function blocks(parts: ReplyParts): Block[] {
  const out: Block[] = [];
  if (parts.content !== "" || parts.toolCalls.length === 0) {
    out.push({ type: "text", text: parts.content });
  }
  for (const [i, tool] of parts.toolCalls.entries()) {
    out.push({
      type: "tool_use",
      id: `toolu_${parts.call}_${i}`,
      name: tool.name,
      input: JSON.parse(tool.arguments),
    });
  }
  return out;
}

function message(
  parts: ReplyParts,
  content: Block[],
  stop: string | null,
  usage: Json | null,
): Json {
  const out: Json = { id: `msg_scripted_${parts.call}`, type: "message", role: "assistant" };
  if (parts.model !== null) out.model = parts.model;
  out.content = content;
  out.stop_reason = stop;
  out.stop_sequence = null;
  if (usage !== null) out.usage = usage;
  return out;
}

function anthropicUsage(usage: ReplyUsage): Json {
  return {
    input_tokens: usage.prompt_tokens - usage.cached_tokens - usage.cache_creation_tokens,
    cache_creation_input_tokens: usage.cache_creation_tokens,
    cache_read_input_tokens: usage.cached_tokens,
    output_tokens: usage.completion_tokens,
  };
}

function stopReason(parts: ReplyParts): "tool_use" | "end_turn" {
  return parts.toolCalls.length > 0 ? "tool_use" : "end_turn";
}
