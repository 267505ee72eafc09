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
 *
 * @module
 */
import type { RelayUsage, RelayUsageDetail } from "../relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { messagesToolAllowance } from "../prompt_token_bound.ts";
import { errorBody } from "./upstream_kind.ts";
import {
  type CallEvidence,
  type EventVerdict,
  isCount,
  isRecord,
  type ModelApi,
  modelOf,
  TalliedStreamReader,
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
  paths: ["/v1/messages"],
  queries: ["beta=true"],
  outputCapFields: ["max_tokens"],
  defaultOutputCapField: "max_tokens",
  promptAllowance: messagesToolAllowance,
  requestProblem: () => null,
  streamedRequest: () => null,
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
  streamErrorEvent: (error) =>
    `event: error\ndata: ${JSON.stringify(errorBody("anthropic", error))}\n\n`,
};
