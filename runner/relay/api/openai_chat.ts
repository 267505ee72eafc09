/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`) and the legacy
 * Completions (`POST /v1/completions`) as the relay meters them (OpenAI API
 * reference, "Chat", "Completions"; the `openai` SDK's
 * `resources/chat/completions`).
 *
 * - Output cap: `max_completion_tokens` ?? `max_tokens`; the relay sets
 *   `max_tokens` (the field every OpenAI-compatible server accepts) when
 *   the agent set neither.
 * - Usage: `usage.prompt_tokens` and `usage.completion_tokens` as they are
 *   (both integers, or no usage); no `usage_detail`.
 * - Tool calls: the `tool_calls` of each choice's `message`; in a stream,
 *   the distinct `choices[i].delta.tool_calls[j]` entries carrying an `id`.
 * - Streams carry usage only when asked: the forwarded request gets
 *   `stream_options.include_usage` true (the agent's other `stream_options`
 *   kept), and the usage-only chunk (`"choices": []`) this adds is withheld
 *   from an agent that did not ask for it. `data: [DONE]` ends a stream; an
 *   error arrives as `data: {"error": {...}}`.
 *
 * @module
 */
import type { RelayUsage } from "../relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import {
  type CallEvidence,
  type EventVerdict,
  isCount,
  isRecord,
  type ModelApi,
  modelOf,
  TalliedStreamReader,
} from "./model_api.ts";

function usageOf(response: unknown): RelayUsage | null {
  if (!isRecord(response) || !isRecord(response.usage)) return null;
  const { prompt_tokens, completion_tokens } = response.usage;
  if (!isCount(prompt_tokens) || !isCount(completion_tokens)) return null;
  return { prompt_tokens, completion_tokens };
}

function toolCallCount(response: unknown): number {
  if (!isRecord(response) || !Array.isArray(response.choices)) return 0;
  let count = 0;
  for (const choice of response.choices) {
    const calls = isRecord(choice) && isRecord(choice.message) ? choice.message.tool_calls : null;
    if (Array.isArray(calls)) count += calls.length;
  }
  return count;
}

/** True when the agent itself set `stream_options.include_usage` to true. */
function asksForUsage(request: Record<string, unknown>): boolean {
  return isRecord(request.stream_options) && request.stream_options.include_usage === true;
}

class ChatStreamReader extends TalliedStreamReader {
  #usage: RelayUsage | null = null;
  /** `<choice index> <id>` of each tool call delta that carried an id. */
  #toolCalls = new Set<string>();
  readonly #passUsage: boolean;

  constructor(passUsage: boolean) {
    super("Upstream stream ended without [DONE]");
    this.#passUsage = passUsage;
  }

  add(event: SseEvent): EventVerdict {
    if (event.data === null) return { pass: true, end: false };
    if (event.data === "[DONE]") return { pass: true, end: true };
    const chunk = this.parse(event.data);
    if (!isRecord(chunk)) return { pass: true, end: false };
    this.seeModel(modelOf(chunk));
    const usage = usageOf(chunk);
    if (usage !== null) this.#usage = usage;
    if (isRecord(chunk.error)) {
      const message = chunk.error.message;
      this.seeError(typeof message === "string" ? message : JSON.stringify(chunk.error));
    }
    if (Array.isArray(chunk.choices)) {
      for (const [i, choice] of chunk.choices.entries()) {
        if (!isRecord(choice) || !isRecord(choice.delta)) continue;
        const calls = choice.delta.tool_calls;
        if (!Array.isArray(calls)) continue;
        const at = typeof choice.index === "number" ? choice.index : i;
        for (const call of calls) {
          if (isRecord(call) && typeof call.id === "string" && call.id !== "") {
            this.#toolCalls.add(`${at} ${call.id}`);
          }
        }
      }
    }
    const usageOnly = usage !== null && Array.isArray(chunk.choices) &&
      chunk.choices.length === 0;
    return { pass: !usageOnly || this.#passUsage, end: false };
  }

  evidence(): CallEvidence {
    return {
      model: this.model,
      usage: this.#usage,
      usageDetail: null,
      toolCalls: this.#toolCalls.size,
    };
  }
}

/**
 * The Chat Completions and Completions API (rules in the module doc).
 *
 * @example
 * ```ts
 * import { openaiChat } from "./openai_chat.ts";
 * const evidence = openaiChat.wholeEvidence({
 *   model: "m",
 *   usage: { prompt_tokens: 3, completion_tokens: 2 },
 *   choices: [{ message: { tool_calls: [{ id: "a" }] } }],
 * });
 * if (evidence.toolCalls !== 1 || evidence.usage?.prompt_tokens !== 3) throw new Error();
 * ```
 */
export const openaiChat: ModelApi = {
  name: "Chat Completions",
  kind: "openai",
  paths: ["/v1/chat/completions", "/v1/completions"],
  queries: [],
  outputCapFields: ["max_completion_tokens", "max_tokens"],
  defaultOutputCapField: "max_tokens",
  promptAllowance: () => 0,
  requestProblem: () => null,
  streamedRequest: (body) => {
    const kept = isRecord(body.stream_options) ? body.stream_options : {};
    return { ...body, stream_options: { ...kept, include_usage: true } };
  },
  wholeEvidence: (response) => ({
    model: modelOf(response),
    usage: usageOf(response),
    usageDetail: null,
    toolCalls: toolCallCount(response),
  }),
  streamReader: (request) => new ChatStreamReader(asksForUsage(request)),
  streamErrorEvent: (error) =>
    `data: ${
      JSON.stringify({
        error: { message: error.message, type: error.type, param: null, code: error.code },
      })
    }\n\n`,
};
