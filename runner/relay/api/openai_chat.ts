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
 * - Whole from a stream ({@linkcode ModelApi.wholeFromEvents}; the OpenAI
 *   API reference's "The chat completion object" and "The chat completion
 *   chunk object", as the `openai` SDK's `ChatCompletionStream` accumulates
 *   them): `object` `chat.completion` (`text_completion` for
 *   `/v1/completions`); `id`, `created`, `model`, `system_fingerprint` and
 *   `service_tier` from the first chunk carrying each (null replaced by a
 *   later value; no other chunk-level member, so no `obfuscation`); `usage`
 *   from the last chunk carrying one (the `include_usage` chunk), absent
 *   when none did. One choice per `index`, in index order, with its last
 *   non-null `finish_reason` (else null) and, when any chunk's choice had a
 *   `logprobs` member, `logprobs`: null while every one was null, else the
 *   arrays of its members (`content`, `refusal`; Completions' `tokens`,
 *   `token_logprobs`, `top_logprobs`, `text_offset`) concatenated; other
 *   choice members keep their last non-null value. Chat's `message` is the
 *   deltas merged: `role` (`assistant` when none came); `tool_calls` merged
 *   by their `index` in index order, `id`, `type` (`function` when none
 *   came) and `function.name` set by the delta that carried them,
 *   `function.arguments` concatenated; every other string member
 *   concatenated (`content`, `refusal`, an OpenAI-compatible server's
 *   `reasoning_content`), a null one kept null until a string comes, other
 *   values the last sent; `content` is null when no delta carried text, and
 *   when it is "" beside tool calls (as the whole API answers). Completions'
 *   `text` is the choices' `text` concatenated. Differences from the whole
 *   body the upstream would have sent: only what a stream does not carry
 *   (e.g. a whole body's `message.annotations` when no delta sent them, the
 *   `logprobs: null` of a server whose chunks carry no `logprobs`).
 *
 * @module
 */
import type { RelayUsage } from "../../../analysis/schema/relay_call_record.ts";
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

/** One choice being merged from chunks. */
interface ChoiceDraft {
  index: number;
  /** Chat: the message so far (tool calls apart); Completions: unused. */
  message: Record<string, unknown>;
  toolCalls: Map<number, Record<string, unknown>>;
  text: string;
  finish: unknown;
  /** undefined: no chunk had a `logprobs` member. */
  logprobs: unknown;
  extra: Record<string, unknown>;
}

/** Choice members handled apart from the others. */
const CHOICE_FIELDS = new Set(["index", "delta", "text", "finish_reason", "logprobs"]);

/** Chunk members copied to the whole response (first non-null value). */
const HEAD_FIELDS = ["id", "created", "model", "system_fingerprint", "service_tier"];

/**
 * `logprobs` merged: arrays concatenated, other members the first non-null
 * value; a null chunk value changes nothing.
 */
function mergeLogprobs(soFar: unknown, next: unknown): unknown {
  if (!isRecord(next)) return soFar ?? null;
  const merged: Record<string, unknown> = isRecord(soFar) ? { ...soFar } : {};
  for (const [key, value] of Object.entries(next)) {
    const old = merged[key];
    if (Array.isArray(value)) merged[key] = [...(Array.isArray(old) ? old : []), ...value];
    else if (old === undefined || old === null) merged[key] = value;
  }
  return merged;
}

function mergeToolCalls(draft: ChoiceDraft, calls: unknown[]): void {
  for (const [position, call] of calls.entries()) {
    if (!isRecord(call)) continue;
    const at = isCount(call.index) ? call.index : position;
    const tool = draft.toolCalls.get(at) ?? {};
    draft.toolCalls.set(at, tool);
    for (const [key, value] of Object.entries(call)) {
      if (key === "index") continue;
      if (key !== "function" || !isRecord(value)) {
        if (value !== null && value !== undefined) tool[key] = value;
        continue;
      }
      const fn = isRecord(tool.function) ? tool.function : {};
      tool.function = fn;
      for (const [member, part] of Object.entries(value)) {
        if (member === "arguments" && typeof part === "string") {
          fn.arguments = (typeof fn.arguments === "string" ? fn.arguments : "") + part;
        } else if (part !== null && part !== undefined) {
          fn[member] = part;
        }
      }
    }
  }
}

function mergeDelta(draft: ChoiceDraft, delta: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(delta)) {
    const old = draft.message[key];
    if (key === "tool_calls") {
      if (Array.isArray(value)) mergeToolCalls(draft, value);
    } else if (key === "role") {
      if (typeof value === "string") draft.message.role = value;
    } else if (typeof value === "string") {
      draft.message[key] = (typeof old === "string" ? old : "") + value;
    } else if (value === null) {
      if (old === undefined) draft.message[key] = null;
    } else if (value !== undefined) {
      draft.message[key] = value;
    }
  }
}

function finishChoice(draft: ChoiceDraft, completions: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { index: draft.index };
  if (completions) {
    out.text = draft.text;
  } else {
    const tools = [...draft.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, tool]) => {
      const fn = isRecord(tool.function) ? tool.function : {};
      return {
        ...tool,
        type: tool.type ?? "function",
        function: { ...fn, name: fn.name ?? "", arguments: fn.arguments ?? "" },
      };
    });
    const message: Record<string, unknown> = { role: "assistant", ...draft.message };
    const content = message.content;
    message.content = typeof content !== "string" || (content === "" && tools.length > 0)
      ? null
      : content;
    if (tools.length > 0) message.tool_calls = tools;
    out.message = message;
  }
  if (draft.logprobs !== undefined) out.logprobs = draft.logprobs;
  out.finish_reason = draft.finish ?? null;
  return { ...out, ...draft.extra };
}

/**
 * The whole `chat.completion` (or `text_completion`) a stream of chunks
 * makes (rules in the module doc).
 *
 * @param events the stream's events
 * @param completions true for `/v1/completions`
 * @returns the whole body, or null without any chunk or with an error chunk
 */
function wholeFromChunks(
  events: readonly SseEvent[],
  completions: boolean,
): Record<string, unknown> | null {
  const head: Record<string, unknown> = {};
  const drafts = new Map<number, ChoiceDraft>();
  let usage: Record<string, unknown> | null = null;
  let chunks = 0;
  for (const event of events) {
    if (event.data === null || event.data === "[DONE]") continue;
    const chunk = parseEventData(event.data);
    if (!isRecord(chunk)) continue;
    if (isRecord(chunk.error)) return null;
    chunks += 1;
    for (const field of HEAD_FIELDS) {
      if (Object.hasOwn(chunk, field) && (head[field] === undefined || head[field] === null)) {
        head[field] = chunk[field];
      }
    }
    if (isRecord(chunk.usage)) usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) continue;
    for (const [position, choice] of chunk.choices.entries()) {
      if (!isRecord(choice)) continue;
      const index = isCount(choice.index) ? choice.index : position;
      let draft = drafts.get(index);
      if (draft === undefined) {
        draft = {
          index,
          message: {},
          toolCalls: new Map(),
          text: "",
          finish: null,
          logprobs: undefined,
          extra: {},
        };
        drafts.set(index, draft);
      }
      if (completions && typeof choice.text === "string") draft.text += choice.text;
      if (!completions && isRecord(choice.delta)) mergeDelta(draft, choice.delta);
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        draft.finish = choice.finish_reason;
      }
      if (Object.hasOwn(choice, "logprobs")) {
        draft.logprobs = mergeLogprobs(draft.logprobs, choice.logprobs);
      }
      for (const [key, value] of Object.entries(choice)) {
        if (!CHOICE_FIELDS.has(key) && value !== null && value !== undefined) {
          draft.extra[key] = value;
        }
      }
    }
  }
  if (chunks === 0) return null;
  const out: Record<string, unknown> = {
    id: head.id,
    object: completions ? "text_completion" : "chat.completion",
  };
  for (const field of HEAD_FIELDS.slice(1)) {
    if (Object.hasOwn(head, field)) out[field] = head[field];
  }
  if (out.id === undefined) delete out.id;
  out.choices = [...drafts.values()].sort((a, b) => a.index - b.index).map((draft) =>
    finishChoice(draft, completions)
  );
  if (usage !== null) out.usage = usage;
  return out;
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
  ...bodyStreamedApi(["/v1/chat/completions", "/v1/completions"], []),
  outputCapFields: ["max_completion_tokens", "max_tokens"],
  defaultOutputCapField: "max_tokens",
  promptAllowance: () => 0,
  requestProblem: () => null,
  streamedCall: (target, body) => {
    const kept = isRecord(body.stream_options) ? body.stream_options : {};
    return {
      target,
      body: { ...body, stream: true, stream_options: { ...kept, include_usage: true } },
    };
  },
  wholeEvidence: (response) => ({
    model: modelOf(response),
    usage: usageOf(response),
    usageDetail: null,
    toolCalls: toolCallCount(response),
  }),
  streamReader: (request) => new ChatStreamReader(asksForUsage(request)),
  wholeFromEvents: (events, path) => wholeFromChunks(events, path === "/v1/completions"),
  streamErrorEvent: (error) =>
    `data: ${
      JSON.stringify({
        error: { message: error.message, type: error.type, param: null, code: error.code },
      })
    }\n\n`,
};
