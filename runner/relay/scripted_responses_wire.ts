/**
 * Scripted replies as the OpenAI Responses API sends them
 * (`POST /v1/responses`): a `response` object whose `output` holds a
 * `message` item (`output_text` content) and one `function_call` item per
 * tool call, or, streamed, the API's typed events, each with `type` and
 * `sequence_number`, ending with `response.completed` (the full response and
 * its usage). Errors are OpenAI error bodies.
 *
 * @module
 */
import { openAiError } from "./scripted_chat_wire.ts";
import type { ReplyParts } from "./scripted_reply_parts.ts";
import { sseEvent, textPieces } from "./scripted_reply_parts.ts";
import type { ScriptedWire } from "./scripted_wire.ts";

type Json = Record<string, unknown>;

/**
 * The Responses wire.
 *
 * Whole: `id` `resp_scripted_<call>`, `object` `response`, `created_at` 0,
 * `status` `completed`, `error` and `incomplete_details` null; the request's
 * `instructions`, `max_output_tokens`, `previous_response_id` (else null),
 * `parallel_tool_calls` (else true), `temperature` and `top_p` (else 1),
 * `tool_choice` (else `auto`) and `tools` (else []) echoed as the API does;
 * `output`: a `message` item `msg_scripted_<call>` when the content is not
 * empty or there is no tool call, then per tool call a `function_call` item
 * `fc_scripted_<call>_<i>` with `call_id` `call_<call>_<i>`, `name` and
 * `arguments`; `usage` `{input_tokens, input_tokens_details: {cached_tokens,
 * cache_write_tokens}, output_tokens, output_tokens_details:
 * {reasoning_tokens}, total_tokens}`.
 *
 * Streamed (`event: <type>` and `data:` lines, no `[DONE]`):
 * `response.created` and `response.in_progress` (the response with status
 * `in_progress`, no output, `usage` null); for the message,
 * `response.output_item.added`, `response.content_part.added`, one
 * `response.output_text.delta` per {@linkcode textPieces} piece,
 * `response.output_text.done`, `response.content_part.done`,
 * `response.output_item.done`; for each function call,
 * `response.output_item.added` (arguments ""),
 * `response.function_call_arguments.delta` and `.done`,
 * `response.output_item.done`; then `response.completed` with the whole
 * response. A `usage: null` reply has no `usage` field anywhere.
 */
export const responsesWire: ScriptedWire = {
  body(parts, request) {
    return response(parts, request, "completed", outputItems(parts));
  },

  events(parts, request) {
    const events: string[] = [];
    const emit = (type: string, fields: Json) => {
      events.push(sseEvent({ type, sequence_number: events.length, ...fields }, type));
    };
    emit("response.created", { response: response(parts, request, "in_progress", []) });
    emit("response.in_progress", { response: response(parts, request, "in_progress", []) });
    for (const [output_index, item] of outputItems(parts).entries()) {
      const item_id = item.id;
      if (item.type === "message") {
        const text = parts.content;
        const at = { item_id, output_index, content_index: 0 };
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        });
        emit("response.content_part.added", { ...at, part: outputText("") });
        for (const delta of textPieces(text)) {
          emit("response.output_text.delta", { ...at, delta, logprobs: [] });
        }
        emit("response.output_text.done", { ...at, text, logprobs: [] });
        emit("response.content_part.done", { ...at, part: outputText(text) });
      } else {
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", arguments: "" },
        });
        emit("response.function_call_arguments.delta", {
          item_id,
          output_index,
          delta: item.arguments,
        });
        emit("response.function_call_arguments.done", {
          item_id,
          output_index,
          arguments: item.arguments,
        });
      }
      emit("response.output_item.done", { output_index, item });
    }
    emit("response.completed", {
      response: response(parts, request, "completed", outputItems(parts)),
    });
    return events;
  },

  error: openAiError,
};

function response(
  parts: ReplyParts,
  request: Json,
  status: "in_progress" | "completed",
  output: Json[],
): Json {
  const out: Json = {
    id: `resp_scripted_${parts.call}`,
    object: "response",
    created_at: 0,
    status,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
  };
  if (parts.model !== null) out.model = parts.model;
  out.output = output;
  out.parallel_tool_calls = request.parallel_tool_calls ?? true;
  out.previous_response_id = request.previous_response_id ?? null;
  out.temperature = request.temperature ?? 1;
  out.tool_choice = request.tool_choice ?? "auto";
  out.tools = request.tools ?? [];
  out.top_p = request.top_p ?? 1;
  const usage = parts.usage;
  if (usage !== null) {
    out.usage = status === "in_progress" ? null : {
      input_tokens: usage.prompt_tokens,
      input_tokens_details: {
        cached_tokens: usage.cached_tokens,
        cache_write_tokens: usage.cache_creation_tokens,
      },
      output_tokens: usage.completion_tokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
      total_tokens: usage.total_tokens,
    };
  }
  return out;
}

function outputItems(
  parts: ReplyParts,
): (Json & { id: string; type: string; arguments?: string })[] {
  const items: (Json & { id: string; type: string; arguments?: string })[] = [];
  if (parts.content !== "" || parts.toolCalls.length === 0) {
    items.push({
      id: `msg_scripted_${parts.call}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [outputText(parts.content)],
    });
  }
  for (const [i, tool] of parts.toolCalls.entries()) {
    items.push({
      id: `fc_scripted_${parts.call}_${i}`,
      type: "function_call",
      status: "completed",
      call_id: `call_${parts.call}_${i}`,
      name: tool.name,
      arguments: tool.arguments,
    });
  }
  return items;
}

function outputText(text: string): Json {
  return { type: "output_text", text, annotations: [] };
}
