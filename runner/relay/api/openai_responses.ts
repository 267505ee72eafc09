/**
 * The OpenAI Responses API (`POST /v1/responses`) as the relay meters it
 * (OpenAI API reference, "Responses" and "Streaming events"; the `openai`
 * SDK's `resources/responses/responses.ts`, `ResponseUsage`,
 * `ResponseStreamEvent`).
 *
 * - Output cap: `max_output_tokens` (it bounds visible and reasoning output
 *   together), set by the relay when the agent set none.
 * - Usage: `prompt_tokens` = `usage.input_tokens`, `completion_tokens` =
 *   `usage.output_tokens`. Cached input (`input_tokens_details.cached_tokens`)
 *   is part of `input_tokens` and reasoning (`output_tokens_details.reasoning_tokens`)
 *   part of `output_tokens`, so nothing is counted twice and every billed
 *   token is counted. `usage_detail` keeps `input_tokens`, `output_tokens`,
 *   `cached_tokens`, `cache_write_tokens` and `reasoning_tokens` as reported.
 * - Tool calls: output items the agent is asked to run: `function_call`,
 *   `custom_tool_call`, `local_shell_call`, `shell_call`, `apply_patch_call`,
 *   `computer_call` (hosted tools such as `web_search_call` run at the
 *   provider and are not the agent's tool calls); in a stream, the distinct
 *   `call_id`s (else `id`s) of such items in `response.output_item.added`,
 *   `response.output_item.done` and the final response's `output`.
 * - Streams carry usage without being asked: the last event
 *   (`response.completed`, or `response.incomplete` / `response.failed`)
 *   holds the whole response with `usage`; there is no `[DONE]`. The model
 *   id comes from the first event's `response.model`. `response.failed`
 *   and an `error` event are upstream errors; the relay's own last error
 *   event is `event: error` with `{"type": "error", "code", "message",
 *   "param"}`, which the SDK throws as `APIError`.
 * - Whole from a stream ({@linkcode ModelApi.wholeFromEvents}): the
 *   `response` of the last `response.completed`, `response.incomplete` or
 *   `response.failed` event, which the API reference documents as the whole
 *   response object, exactly as it came (null when the stream has no such
 *   event).
 * - A request with `"background": true` is refused: its response is produced
 *   after the call returns, outside the relay's view, so its usage could
 *   never be metered.
 *
 * @module
 */
import type { RelayUsage, RelayUsageDetail } from "../../../analysis/schema/relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import {
  bodyStreamedApi,
  type CallEvidence,
  type EventVerdict,
  isCount,
  isRecord,
  type ModelApi,
  modelOf,
  parseEventData,
  TalliedStreamReader,
  withStreamFlag,
} from "./model_api.ts";

/** Output item types that ask the agent to run a tool. */
const TOOL_CALL_ITEMS = new Set([
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "shell_call",
  "apply_patch_call",
  "computer_call",
]);

/** The events whose `response` is final, ending a stream. */
const LAST_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

function usageOf(response: unknown): { usage: RelayUsage; detail: RelayUsageDetail } | null {
  if (!isRecord(response) || !isRecord(response.usage)) return null;
  const usage = response.usage;
  if (!isCount(usage.input_tokens) || !isCount(usage.output_tokens)) return null;
  const detail: RelayUsageDetail = {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
  };
  const input = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  for (
    const [field, value] of [
      ["cached_tokens", input.cached_tokens],
      ["cache_write_tokens", input.cache_write_tokens],
      ["reasoning_tokens", output.reasoning_tokens],
    ] as const
  ) {
    if (isCount(value)) detail[field] = value;
  }
  return {
    usage: { prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens },
    detail,
  };
}

/** The identity of a tool-call output item (`call_id`, else `id`), or null for other items. */
function toolCallId(item: unknown): string | null {
  if (!isRecord(item) || typeof item.type !== "string" || !TOOL_CALL_ITEMS.has(item.type)) {
    return null;
  }
  for (const field of ["call_id", "id"]) {
    const value = item[field];
    if (typeof value === "string" && value !== "") return value;
  }
  return "";
}

function outputItems(response: unknown): unknown[] {
  return isRecord(response) && Array.isArray(response.output) ? response.output : [];
}

class ResponsesStreamReader extends TalliedStreamReader {
  #usage: ReturnType<typeof usageOf> = null;
  #toolCalls = new Set<string>();

  constructor() {
    super("Upstream stream ended without response.completed");
  }

  add(event: SseEvent): EventVerdict {
    if (event.data === null) return { pass: true, end: false };
    const payload = this.parse(event.data);
    if (!isRecord(payload)) return { pass: true, end: false };
    const type = typeof payload.type === "string" ? payload.type : "";
    if (isRecord(payload.response)) this.seeModel(modelOf(payload.response));
    if (type === "response.output_item.added" || type === "response.output_item.done") {
      this.#seeItem(payload.item);
    }
    if (type === "error") {
      this.seeError(
        typeof payload.message === "string" ? payload.message : JSON.stringify(payload),
      );
    }
    if (!LAST_EVENTS.has(type)) return { pass: true, end: false };
    const response = payload.response;
    this.#usage = usageOf(response) ?? this.#usage;
    for (const item of outputItems(response)) this.#seeItem(item);
    if (type === "response.failed") {
      const failure = isRecord(response) && isRecord(response.error) ? response.error : null;
      this.seeError(
        typeof failure?.message === "string" ? failure.message : "response.failed",
      );
    }
    return { pass: true, end: true };
  }

  #seeItem(item: unknown): void {
    const id = toolCallId(item);
    if (id !== null) this.#toolCalls.add(id === "" ? `#${this.#toolCalls.size}` : id);
  }

  evidence(): CallEvidence {
    return {
      model: this.model,
      usage: this.#usage?.usage ?? null,
      usageDetail: this.#usage?.detail ?? null,
      toolCalls: this.#toolCalls.size,
    };
  }
}

/**
 * The Responses API (rules in the module doc).
 *
 * @example
 * ```ts
 * import { openaiResponses } from "./openai_responses.ts";
 * const evidence = openaiResponses.wholeEvidence({
 *   model: "m",
 *   output: [{ type: "reasoning" }, { type: "function_call", call_id: "c1" }],
 *   usage: {
 *     input_tokens: 30, output_tokens: 12,
 *     input_tokens_details: { cached_tokens: 20 }, output_tokens_details: { reasoning_tokens: 8 },
 *   },
 * });
 * // cached tokens are part of input_tokens, reasoning part of output_tokens
 * if (evidence.usage?.prompt_tokens !== 30 || evidence.usage.completion_tokens !== 12) throw new Error();
 * if (evidence.toolCalls !== 1) throw new Error("one function_call");
 * ```
 */
export const openaiResponses: ModelApi = {
  name: "Responses",
  kind: "openai",
  ...bodyStreamedApi(["/v1/responses"], []),
  outputCapFields: ["max_output_tokens"],
  defaultOutputCapField: "max_output_tokens",
  promptAllowance: () => 0,
  requestProblem: (body) =>
    body.background === true
      ? 'Field "background" must not be true: a background response is produced outside ' +
        "the relay's view, so its usage cannot be metered"
      : null,
  streamedCall: withStreamFlag,
  wholeEvidence: (response) => {
    const usage = usageOf(response);
    const ids = outputItems(response).map(toolCallId).filter((id) => id !== null);
    return {
      model: modelOf(response),
      usage: usage?.usage ?? null,
      usageDetail: usage?.detail ?? null,
      toolCalls: ids.length,
    };
  },
  streamReader: () => new ResponsesStreamReader(),
  wholeFromEvents: (events) => {
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const data = events[i].data;
      const payload = data === null ? undefined : parseEventData(data);
      if (
        isRecord(payload) && typeof payload.type === "string" && LAST_EVENTS.has(payload.type) &&
        isRecord(payload.response)
      ) {
        return payload.response;
      }
    }
    return null;
  },
  streamErrorEvent: (error) =>
    `event: error\ndata: ${
      JSON.stringify({ type: "error", code: error.code, message: error.message, param: null })
    }\n\n`,
};
