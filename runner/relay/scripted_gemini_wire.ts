/**
 * Scripted replies as Google's Gemini API sends them (`:generateContent`,
 * `:streamGenerateContent`; Gemini API reference, "Generating content",
 * `GenerateContentResponse` and `UsageMetadata`): a candidate whose parts
 * are a `text` part and one `functionCall` part per tool call, or, streamed,
 * one `GenerateContentResponse` per chunk. Errors are Google error bodies.
 *
 * @module
 */
import type { ReplyParts, ReplyUsage } from "./scripted_reply_parts.ts";
import { textPieces } from "./scripted_reply_parts.ts";
import type { ErrorKind, ScriptedWire } from "./scripted_wire.ts";
import { errorBody } from "./api/upstream_kind.ts";

type Json = Record<string, unknown>;

/**
 * The Gemini wire.
 *
 * Whole: `candidates` with one candidate (`index` 0, `content` of role
 * `model` whose `parts` are a `text` part when the content is not empty or
 * there is no tool call, then per tool call a `functionCall` part with
 * `id` `call_<call>_<i>`, `name` and `args`, the parsed arguments;
 * `finishReason` `STOP`), `usageMetadata`, `modelVersion` (the reply's
 * model) and `responseId` `scripted-<call>`. `usageMetadata`:
 * `promptTokenCount` the prompt (cached tokens included, as Gemini counts
 * them), `candidatesTokenCount` the completion less its reasoning tokens,
 * `thoughtsTokenCount` the reasoning tokens and `cachedContentTokenCount`
 * the cached ones (each when not 0), `totalTokenCount` the sum.
 *
 * Streamed: one chunk per {@linkcode textPieces} piece of the content, then
 * one chunk with every `functionCall` part (one chunk with an empty `text`
 * part when there is neither); each carries `modelVersion`, `responseId` and
 * `usageMetadata` with the prompt count so far (as the API sends it), and
 * the last one also `finishReason` and the whole `usageMetadata`. A
 * `usage: null` reply has no `usageMetadata` anywhere. `events` gives the
 * chunks as server-sent events ({@linkcode geminiChunks}; without `alt=sse`
 * the provider sends them as one JSON array).
 */
export const geminiWire: ScriptedWire = {
  body(parts) {
    return response(parts, [...textParts(parts, [parts.content]), ...callParts(parts)], true);
  },

  events(parts) {
    return geminiChunks(parts).map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
  },

  error: geminiError,
};

/**
 * The chunks of a streamed Gemini reply (rules in {@linkcode geminiWire}).
 *
 * @param parts the reply
 * @returns each chunk's `GenerateContentResponse`, in order
 */
export function geminiChunks(parts: ReplyParts): Json[] {
  const contents = [
    ...textPieces(parts.content).map((piece) => textParts(parts, [piece])),
    ...(parts.toolCalls.length > 0 ? [callParts(parts)] : []),
  ];
  if (contents.length === 0) contents.push([{ text: "" }]);
  return contents.map((content, i) => response(parts, content, i === contents.length - 1));
}

/**
 * A Google error body (Google AIP-193), the same form the relay words its own
 * refusals in (`errorBody`, `upstream_kind.ts`): a refused key is
 * `UNAUTHENTICATED`-style 401/400, an unreadable request `INVALID_ARGUMENT`.
 *
 * @param kind why the request failed
 * @param status the HTTP status sent
 * @param message the error's message
 * @returns the body
 */
export function geminiError(kind: ErrorKind, status: number, message: string): unknown {
  return errorBody("gemini", { message, type: kind, code: null }, status);
}

function textParts(parts: ReplyParts, texts: string[]): Json[] {
  if (parts.content === "" && parts.toolCalls.length > 0) return [];
  return texts.map((text) => ({ text }));
}

function callParts(parts: ReplyParts): Json[] {
  return parts.toolCalls.map((tool, i) => ({
    functionCall: {
      id: `call_${parts.call}_${i}`,
      name: tool.name,
      args: JSON.parse(tool.arguments),
    },
  }));
}

function response(parts: ReplyParts, content: Json[], last: boolean): Json {
  const candidate: Json = { content: { role: "model", parts: content }, index: 0 };
  if (last) candidate.finishReason = "STOP";
  const out: Json = { candidates: [candidate] };
  if (parts.usage !== null) {
    out.usageMetadata = last
      ? usageMetadata(parts.usage)
      : { promptTokenCount: parts.usage.prompt_tokens, totalTokenCount: parts.usage.prompt_tokens };
  }
  if (parts.model !== null) out.modelVersion = parts.model;
  out.responseId = `scripted-${parts.call}`;
  return out;
}

function usageMetadata(usage: ReplyUsage): Json {
  const out: Json = {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens - usage.reasoning_tokens,
  };
  if (usage.cached_tokens > 0) out.cachedContentTokenCount = usage.cached_tokens;
  if (usage.reasoning_tokens > 0) out.thoughtsTokenCount = usage.reasoning_tokens;
  out.totalTokenCount = usage.total_tokens;
  return out;
}
