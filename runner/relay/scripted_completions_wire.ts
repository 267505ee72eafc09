/**
 * Scripted replies as the OpenAI legacy Completions API sends them
 * (`POST /v1/completions`): a `text_completion` body, or a stream of
 * `text_completion` chunks ended by `data: [DONE]`. The API has no tool
 * calls, so a reply's are left out (the provider drops them before usage is
 * derived).
 *
 * @module
 */
import { includesUsage, openAiError, openAiUsage } from "./scripted_chat_wire.ts";
import { sseEvent, textPieces } from "./scripted_reply_parts.ts";
import type { ScriptedWire } from "./scripted_wire.ts";

/**
 * The completions wire.
 *
 * Whole: `id` `cmpl-scripted-<call>`, `object` `text_completion`, `created`
 * 0, one choice `{text, index: 0, logprobs: null, finish_reason: "stop"}`,
 * `usage` as for chat.
 *
 * Streamed: one chunk per {@linkcode textPieces} piece (`finish_reason`
 * null), a last chunk with text "" and `finish_reason` `stop`; then, only
 * when `stream_options.include_usage` is true, a chunk with `"choices": []`
 * and the usage (the other chunks then carry `"usage": null`); then
 * `data: [DONE]`.
 */
export const completionsWire: ScriptedWire = {
  body(parts) {
    const out: Record<string, unknown> = {
      id: `cmpl-scripted-${parts.call}`,
      object: "text_completion",
      created: 0,
    };
    if (parts.model !== null) out.model = parts.model;
    out.choices = [{ text: parts.content, index: 0, logprobs: null, finish_reason: "stop" }];
    if (parts.usage !== null) out.usage = openAiUsage(parts.usage);
    return out;
  },

  events(parts, request) {
    const includeUsage = includesUsage(request);
    const head: Record<string, unknown> = {
      id: `cmpl-scripted-${parts.call}`,
      object: "text_completion",
      created: 0,
    };
    if (parts.model !== null) head.model = parts.model;
    const chunks: Record<string, unknown>[] = [];
    const choice = (text: string, finish: string | null) => {
      const chunk = {
        ...head,
        choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
      };
      chunks.push(includeUsage ? { ...chunk, usage: null } : chunk);
    };
    for (const piece of textPieces(parts.content)) choice(piece, null);
    choice("", "stop");
    if (includeUsage && parts.usage !== null) {
      chunks.push({ ...head, choices: [], usage: openAiUsage(parts.usage) });
    }
    return [...chunks.map((chunk) => sseEvent(chunk)), sseEvent("[DONE]")];
  },

  error: openAiError,
};
