/**
 * The Anthropic Messages API (`POST /v1/messages`) as the relay meters it
 * (Anthropic API reference, "Messages" and "Streaming messages"; the
 * `@anthropic-ai/sdk` SDK's `resources/messages/messages.ts` `Usage` and its
 * `MessageStream`, which merges `message_delta` usage the same way).
 *
 * - Path: `/v1/messages`, also with the query `?beta=true` that Claude Code
 *   sends (forwarded as it is).
 * - Output cap: `max_tokens`, which the API requires; the relay sets it to
 *   the plan's output cap when the agent's is absent or larger.
 * - Usage: `prompt_tokens` = `input_tokens` + `cache_creation_input_tokens`
 *   + `cache_read_input_tokens` (Anthropic reports cache writes and reads
 *   apart from `input_tokens` and bills all three as input, so all three
 *   count: the token cap is a promise about spend; a null or absent cache
 *   count is 0); `completion_tokens` = `output_tokens`. `usage_detail` keeps
 *   the four counts as reported.
 * - Tool calls: `tool_use` content blocks (the agent runs them;
 *   `server_tool_use` runs at the provider and is not counted); in a
 *   stream, the distinct `content_block_start` events of a `tool_use` block.
 * - Streams carry usage without being asked: `message_start` holds the
 *   message's `model` and its usage so far, each `message_delta` the
 *   cumulative counts that changed (at least `output_tokens`); the usage is
 *   recorded once a `message_delta` has reported it, merged over
 *   `message_start`'s. `message_stop` ends a stream; an `error` event is an
 *   upstream error, and the relay's own last error event has the same form
 *   (`event: error`, `{"type": "error", "error": {...}}`), which the SDK
 *   throws as `APIError`.
 * - Whole from a stream ({@linkcode ModelApi.wholeFromEvents}; the API
 *   reference's "Streaming messages", as the SDK's `MessageStream` builds its
 *   final message): `message_start`'s `message`; each `content_block_start`'s
 *   block at its `index` (blocks in index order), grown by its
 *   `content_block_delta`s: `text_delta` appended to `text`,
 *   `thinking_delta` to `thinking`, `signature_delta` setting `signature`,
 *   `citations_delta` appended to `citations`, and the `input_json_delta`
 *   parts concatenated and parsed as the block's `input` (left as the start
 *   gave it when they are all ""; not JSON: no whole response); then each
 *   `message_delta`'s `delta` members (`stop_reason`, `stop_sequence`, ...)
 *   set on the message and its `usage` members that are not null merged over
 *   the message's. Null without `message_start`, and for a stream with an
 *   `error` event. No difference from the whole body in what the API sends
 *   (`ping` events carry nothing).
 *
 * @module
 */
import type { RelayUsage, RelayUsageDetail } from "../../../analysis/schema/relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { messagesToolAllowance } from "../prompt_token_bound.ts";
import { errorBody } from "./upstream_kind.ts";
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

/** The usage counts the API reports, in the order `usage_detail` lists them. */
const COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
] as const;

/** The integer counts of a `usage` object (other members ignored). */
function countsOf(usage: unknown): RelayUsageDetail {
  const counts: RelayUsageDetail = {};
  if (!isRecord(usage)) return counts;
  for (const field of COUNTS) {
    if (isCount(usage[field])) counts[field] = usage[field];
  }
  return counts;
}

/** The relay's usage from the API's counts; null without input and output tokens. */
function relayUsage(counts: RelayUsageDetail): RelayUsage | null {
  const { input_tokens, output_tokens } = counts;
  if (input_tokens === undefined || output_tokens === undefined) return null;
  return {
    prompt_tokens: input_tokens + (counts.cache_creation_input_tokens ?? 0) +
      (counts.cache_read_input_tokens ?? 0),
    completion_tokens: output_tokens,
  };
}

function isToolUse(block: unknown): boolean {
  return isRecord(block) && block.type === "tool_use";
}

class MessagesStreamReader extends TalliedStreamReader {
  #counts: RelayUsageDetail = {};
  #delta = false;
  #toolCalls = 0;

  constructor() {
    super("Upstream stream ended without message_stop");
  }

  add(event: SseEvent): EventVerdict {
    if (event.data === null) return { pass: true, end: false };
    const payload = this.parse(event.data);
    if (!isRecord(payload)) return { pass: true, end: false };
    switch (payload.type) {
      case "message_start":
        if (isRecord(payload.message)) {
          this.seeModel(modelOf(payload.message));
          this.#counts = { ...this.#counts, ...countsOf(payload.message.usage) };
        }
        break;
      case "message_delta": {
        const counts = countsOf(payload.usage);
        if (Object.keys(counts).length > 0) {
          this.#counts = { ...this.#counts, ...counts };
          this.#delta = true;
        }
        break;
      }
      case "content_block_start":
        if (isToolUse(payload.content_block)) this.#toolCalls += 1;
        break;
      case "error": {
        const message = isRecord(payload.error) ? payload.error.message : undefined;
        this.seeError(typeof message === "string" ? message : JSON.stringify(payload));
        break;
      }
      case "message_stop":
        return { pass: true, end: true };
    }
    return { pass: true, end: false };
  }

  evidence(): CallEvidence {
    const usage = this.#delta ? relayUsage(this.#counts) : null;
    return {
      model: this.model,
      usage,
      usageDetail: usage === null ? null : { ...this.#counts },
      toolCalls: this.#toolCalls,
    };
  }
}

/** A content block grown by one `content_block_delta`'s `delta`. */
function growBlock(block: Record<string, unknown>, delta: Record<string, unknown>): void {
  const append = (field: string, part: unknown) => {
    if (typeof part !== "string") return;
    block[field] = (typeof block[field] === "string" ? block[field] : "") + part;
  };
  switch (delta.type) {
    case "text_delta":
      append("text", delta.text);
      break;
    case "thinking_delta":
      append("thinking", delta.thinking);
      break;
    case "signature_delta":
      if (typeof delta.signature === "string") block.signature = delta.signature;
      break;
    case "citations_delta":
      block.citations = [
        ...(Array.isArray(block.citations) ? block.citations : []),
        delta.citation,
      ];
      break;
  }
}

/**
 * The whole `message` a Messages stream makes (rules in the module doc).
 *
 * @param events the stream's events
 * @returns the message, or null
 */
function wholeMessage(events: readonly SseEvent[]): Record<string, unknown> | null {
  let message: Record<string, unknown> | null = null;
  const blocks = new Map<number, Record<string, unknown>>();
  const json = new Map<number, string>();
  for (const event of events) {
    const payload = event.data === null ? undefined : parseEventData(event.data);
    if (!isRecord(payload)) continue;
    const index = isCount(payload.index) ? payload.index : -1;
    switch (payload.type) {
      case "message_start":
        if (!isRecord(payload.message)) return null;
        message = { ...payload.message };
        if (Array.isArray(message.content)) {
          for (const [at, block] of message.content.entries()) {
            if (isRecord(block)) blocks.set(at, { ...block });
          }
        }
        break;
      case "content_block_start":
        if (isRecord(payload.content_block)) blocks.set(index, { ...payload.content_block });
        break;
      case "content_block_delta": {
        const block = blocks.get(index);
        if (block === undefined || !isRecord(payload.delta)) break;
        if (payload.delta.type === "input_json_delta") {
          const part = payload.delta.partial_json;
          if (typeof part === "string") json.set(index, (json.get(index) ?? "") + part);
        } else {
          growBlock(block, payload.delta);
        }
        break;
      }
      case "message_delta":
        if (message === null) return null;
        if (isRecord(payload.delta)) Object.assign(message, payload.delta);
        if (isRecord(payload.usage)) {
          const usage: Record<string, unknown> = isRecord(message.usage)
            ? { ...message.usage }
            : {};
          for (const [field, value] of Object.entries(payload.usage)) {
            if (value !== null && value !== undefined) usage[field] = value;
          }
          message.usage = usage;
        }
        break;
      case "error":
        return null;
    }
  }
  if (message === null) return null;
  for (const [index, text] of json) {
    if (text === "") continue;
    try {
      blocks.get(index)!.input = JSON.parse(text);
    } catch {
      return null;
    }
  }
  message.content = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  return message;
}

/**
 * The Messages API (rules in the module doc).
 *
 * @example
 * ```ts
 * import { anthropicMessages } from "./anthropic_messages.ts";
 * const evidence = anthropicMessages.wholeEvidence({
 *   model: "claude-x",
 *   content: [{ type: "text", text: "ok" }, { type: "tool_use", id: "t1", name: "run", input: {} }],
 *   usage: { input_tokens: 5, output_tokens: 7, cache_creation_input_tokens: 100, cache_read_input_tokens: 40 },
 * });
 * // billed input: 5 + 100 + 40
 * if (evidence.usage?.prompt_tokens !== 145 || evidence.toolCalls !== 1) throw new Error();
 * ```
 */
export const anthropicMessages: ModelApi = {
  name: "Messages",
  kind: "anthropic",
  ...bodyStreamedApi(["/v1/messages"], ["beta=true"]),
  outputCapFields: ["max_tokens"],
  defaultOutputCapField: "max_tokens",
  promptAllowance: messagesToolAllowance,
  requestProblem: () => null,
  streamedCall: withStreamFlag,
  wholeEvidence: (response) => {
    const counts = countsOf(isRecord(response) ? response.usage : undefined);
    const usage = relayUsage(counts);
    const content = isRecord(response) && Array.isArray(response.content) ? response.content : [];
    return {
      model: modelOf(response),
      usage,
      usageDetail: usage === null ? null : counts,
      toolCalls: content.filter(isToolUse).length,
    };
  },
  streamReader: () => new MessagesStreamReader(),
  wholeFromEvents: (events) => wholeMessage(events),
  streamErrorEvent: (error) =>
    `event: error\ndata: ${JSON.stringify(errorBody("anthropic", error, 500))}\n\n`,
};
