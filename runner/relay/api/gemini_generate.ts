/**
 * Google's Gemini API (`generateContent`, `streamGenerateContent`) as the
 * relay meters it (Gemini API reference, "Generating content"
 * https://ai.google.dev/api/generate-content, "Counting tokens"
 * https://ai.google.dev/api/tokens, and its `UsageMetadata`; the
 * `@google/genai` SDK's `models.generateContent`/`generateContentStream`,
 * which send `POST {version}/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse` with the key in `x-goog-api-key`).
 *
 * - Paths: `/{version}/models/{model}:generateContent` and
 *   `:streamGenerateContent`, for the versions the clients use (`v1beta`, the
 *   Gemini CLI's; `v1`, the SDK's default); the model is the path's, not the
 *   body's. The upstream gets the path after its version, on the version of
 *   its base URL.
 * - Queries: `alt=sse` on a stream (answered as server-sent events; without
 *   it a stream is answered as the API's JSON array); a `key=` the agent
 *   sends is dropped (the relay's key goes in `x-goog-api-key`); anything
 *   else is refused.
 * - Every call is forwarded as `:streamGenerateContent?alt=sse`: a whole
 *   call is answered with the whole response reassembled, a JSON-array
 *   stream with the events' payloads as the array's elements.
 * - Output cap: `generationConfig.maxOutputTokens` (it bounds thinking and
 *   answer together), set by the relay when the agent set none. The REST
 *   API reads snake_case names too (`generation_config.max_output_tokens`),
 *   so a request spelling a field the relay reads or sets in snake_case
 *   (`generation_config`, `max_output_tokens`, `candidate_count`,
 *   `cached_content`) is refused: the relay's cap must be the one the
 *   provider reads. `generationConfig.candidateCount` must be 1 when given
 *   (one call forwards one candidate, as `n` for OpenAI).
 * - Usage, from `usageMetadata` (the last chunk's, recorded once a chunk
 *   with a `finishReason` came, since every chunk carries the counts so far):
 *   `prompt_tokens` = `promptTokenCount` + `toolUsePromptTokenCount`
 *   (the prompt, cached tokens included: `cachedContentTokenCount` is a part
 *   of `promptTokenCount`, billed at a lower rate but billed, so it is not
 *   added again nor taken away; tool-use prompt tokens are input the provider
 *   adds from a tool's results, billed as input); `completion_tokens` =
 *   `candidatesTokenCount` + `thoughtsTokenCount` (thinking is output,
 *   billed as output and reported apart). A missing count is 0, except that
 *   usage needs `promptTokenCount`. `usage_detail` keeps the six counts as
 *   reported (`totalTokenCount` among them, which is their sum).
 * - Server model id: `modelVersion`.
 * - Tool calls: `functionCall` parts of the candidates (`executableCode` runs
 *   at the provider, and is a provider feature).
 * - Streams: each `data:` event is one `GenerateContentResponse`; there is no
 *   last event: a stream that ends with its body is whole once a chunk with a
 *   `finishReason` came (`StreamReader.wholeAtEnd`), and cut short
 *   otherwise. An event with `error`
 *   is an upstream error; the relay's own last event has the same form
 *   (`data: {"error": {...}}`), which the SDK throws.
 * - Whole from a stream ({@linkcode ModelApi.wholeFromEvents}): the first
 *   chunk's `responseId` and `modelVersion`; per candidate `index`, the
 *   parts of every chunk in order, adjacent parts that carry only `text`
 *   (and the same `thought`) joined; the last `finishReason`,
 *   `finishMessage`, `safetyRatings`, `citationMetadata`,
 *   `groundingMetadata` and `urlContextMetadata` of each candidate; the last
 *   `promptFeedback` and `usageMetadata`. Null without a chunk, and for a
 *   stream with an error event. Where the whole answer differs: its text may
 *   be split into parts where the provider's whole answer has one.
 *
 * @module
 */
import type { RelayUsage, RelayUsageDetail } from "../../../analysis/schema/relay_call_record.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import {
  type AnswerForm,
  type CallEvidence,
  type EventVerdict,
  isCount,
  isRecord,
  type ModelApi,
  parseEventData,
  TalliedStreamReader,
} from "./model_api.ts";
import { errorBody } from "./upstream_kind.ts";
import { geminiMediaAllowance } from "../prompt_token_bound.ts";

/** The API versions whose model calls are served. */
const VERSIONS = ["v1beta", "v1"];

/** `/{version}/models/{model}:{method}`: a model id is one canonical path segment. */
const CALL_PATH =
  /^\/(v1beta|v1)\/models\/([A-Za-z0-9_][A-Za-z0-9._-]*):(generateContent|streamGenerateContent)$/;

/** The usage counts the API reports, in the order `usage_detail` lists them. */
const COUNTS = [
  "promptTokenCount",
  "candidatesTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
  "toolUsePromptTokenCount",
  "totalTokenCount",
] as const;

/** Snake_case spellings of the fields the relay reads or sets, which the REST API also accepts. */
const SNAKE_TOP = ["generation_config", "cached_content"];
const SNAKE_CONFIG = ["max_output_tokens", "candidate_count"];

/** Candidate fields the whole answer takes from the last chunk that has them. */
const CANDIDATE_LAST = [
  "finishReason",
  "finishMessage",
  "safetyRatings",
  "citationMetadata",
  "groundingMetadata",
  "urlContextMetadata",
  "avgLogprobs",
  "logprobsResult",
];

/**
 * The parts of a Gemini model-call path.
 *
 * @param path a canonical request path
 * @returns the version, model and method, or null when it is no Gemini model call
 * @example
 * ```ts
 * import { geminiCallPath } from "./gemini_generate.ts";
 * const call = geminiCallPath("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
 * if (call?.model !== "gemini-2.5-flash" || call.method !== "streamGenerateContent") throw new Error();
 * ```
 */
export function geminiCallPath(
  path: string,
): { version: string; model: string; method: "generateContent" | "streamGenerateContent" } | null {
  const match = CALL_PATH.exec(path);
  if (match === null) return null;
  return {
    version: match[1],
    model: match[2],
    method: match[3] as "generateContent" | "streamGenerateContent",
  };
}

/** The integer counts of a `usageMetadata` object (other members ignored). */
function countsOf(metadata: unknown): RelayUsageDetail {
  const counts: RelayUsageDetail = {};
  if (!isRecord(metadata)) return counts;
  for (const field of COUNTS) {
    if (isCount(metadata[field])) counts[field] = metadata[field];
  }
  return counts;
}

/** The relay's usage from the API's counts (rules in the module doc); null without a prompt count. */
function relayUsage(counts: RelayUsageDetail): RelayUsage | null {
  if (counts.promptTokenCount === undefined) return null;
  return {
    prompt_tokens: counts.promptTokenCount + (counts.toolUsePromptTokenCount ?? 0),
    completion_tokens: (counts.candidatesTokenCount ?? 0) + (counts.thoughtsTokenCount ?? 0),
  };
}

function candidatesOf(response: unknown): Record<string, unknown>[] {
  if (!isRecord(response) || !Array.isArray(response.candidates)) return [];
  return response.candidates.filter(isRecord);
}

function partsOf(candidate: Record<string, unknown>): unknown[] {
  const content = candidate.content;
  return isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
}

function functionCalls(response: unknown): number {
  return candidatesOf(response).reduce(
    (sum, candidate) =>
      sum +
      partsOf(candidate).filter((part) => isRecord(part) && isRecord(part.functionCall)).length,
    0,
  );
}

function finished(response: unknown): boolean {
  return candidatesOf(response).some((candidate) => typeof candidate.finishReason === "string");
}

function modelVersionOf(response: unknown): string | null {
  return isRecord(response) && typeof response.modelVersion === "string" &&
      response.modelVersion !== ""
    ? response.modelVersion
    : null;
}

function errorMessageOf(payload: Record<string, unknown>): string | null {
  if (!isRecord(payload.error)) return null;
  const message = payload.error.message;
  return typeof message === "string" ? message : JSON.stringify(payload.error);
}

class GeminiStreamReader extends TalliedStreamReader {
  #counts: RelayUsageDetail = {};
  #finished = false;
  #toolCalls = 0;

  constructor() {
    super("Upstream stream ended without a finishReason");
  }

  add(event: SseEvent): EventVerdict {
    if (event.data === null) return { pass: true, end: false };
    const payload = this.parse(event.data);
    if (!isRecord(payload)) return { pass: true, end: false };
    const error = errorMessageOf(payload);
    if (error !== null) this.seeError(error);
    this.seeModel(modelVersionOf(payload));
    const counts = countsOf(payload.usageMetadata);
    if (Object.keys(counts).length > 0) this.#counts = counts;
    if (finished(payload)) this.#finished = true;
    this.#toolCalls += functionCalls(payload);
    return { pass: true, end: false };
  }

  evidence(): CallEvidence {
    const usage = this.#finished ? relayUsage(this.#counts) : null;
    return {
      model: this.model,
      usage,
      usageDetail: usage === null ? null : { ...this.#counts },
      toolCalls: this.#toolCalls,
    };
  }

  wholeAtEnd(): boolean {
    return this.#finished;
  }
}

/** True for a part that is text only (with or without `thought`), which the next may extend. */
function isTextPart(part: unknown): part is Record<string, unknown> {
  if (!isRecord(part) || typeof part.text !== "string") return false;
  return Object.keys(part).every((key) => key === "text" || key === "thought");
}

/**
 * The whole `GenerateContentResponse` a stream's chunks make (rules in the module doc).
 *
 * @param events the stream's events
 * @returns the response, or null
 */
function wholeResponse(events: readonly SseEvent[]): Record<string, unknown> | null {
  let whole: Record<string, unknown> | null = null;
  const candidates = new Map<number, { fields: Record<string, unknown>; parts: unknown[] }>();
  for (const event of events) {
    const payload = event.data === null ? undefined : parseEventData(event.data);
    if (!isRecord(payload)) continue;
    if (errorMessageOf(payload) !== null) return null;
    whole ??= {};
    for (const field of ["responseId", "modelVersion", "createTime"]) {
      if (payload[field] !== undefined && whole[field] === undefined) whole[field] = payload[field];
    }
    if (payload.promptFeedback !== undefined) whole.promptFeedback = payload.promptFeedback;
    if (payload.usageMetadata !== undefined) whole.usageMetadata = payload.usageMetadata;
    for (const [at, candidate] of candidatesOf(payload).entries()) {
      const index = isCount(candidate.index) ? candidate.index : at;
      const merged = candidates.get(index) ?? { fields: { index }, parts: [] };
      candidates.set(index, merged);
      if (isRecord(candidate.content) && typeof candidate.content.role === "string") {
        merged.fields.role = candidate.content.role;
      }
      for (const field of CANDIDATE_LAST) {
        if (candidate[field] !== undefined) merged.fields[field] = candidate[field];
      }
      for (const part of partsOf(candidate)) {
        const last = merged.parts.at(-1);
        if (isTextPart(part) && isTextPart(last) && last.thought === part.thought) {
          merged.parts[merged.parts.length - 1] = { ...last, text: `${last.text}${part.text}` };
        } else {
          merged.parts.push(part);
        }
      }
    }
  }
  if (whole === null) return null;
  if (candidates.size > 0) {
    whole.candidates = [...candidates.entries()].sort(([a], [b]) => a - b).map(
      ([, { fields, parts }]) => {
        const { role, ...rest } = fields;
        return { content: { parts, role: role ?? "model" }, ...rest };
      },
    );
  }
  const { usageMetadata, modelVersion, responseId, ...others } = whole;
  return {
    ...("candidates" in others ? { candidates: others.candidates } : {}),
    ...(others.promptFeedback === undefined ? {} : { promptFeedback: others.promptFeedback }),
    ...(usageMetadata === undefined ? {} : { usageMetadata }),
    ...(modelVersion === undefined ? {} : { modelVersion }),
    ...(others.createTime === undefined ? {} : { createTime: others.createTime }),
    ...(responseId === undefined ? {} : { responseId }),
  };
}

/** The first snake_case spelling of a field the relay reads or sets, or null. */
function snakeCaseField(body: Record<string, unknown>): string | null {
  const top = SNAKE_TOP.find((field) => Object.hasOwn(body, field));
  if (top !== undefined) return top;
  const config = body.generationConfig;
  if (!isRecord(config)) return null;
  const inner = SNAKE_CONFIG.find((field) => Object.hasOwn(config, field));
  return inner === undefined ? null : `generationConfig.${inner}`;
}

/**
 * The Gemini API's generate calls (rules in the module doc).
 *
 * @example
 * ```ts
 * import { geminiGenerate } from "./gemini_generate.ts";
 * const evidence = geminiGenerate.wholeEvidence({
 *   candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "run", args: {} } }] }, finishReason: "STOP" }],
 *   usageMetadata: { promptTokenCount: 10, cachedContentTokenCount: 4, candidatesTokenCount: 3, thoughtsTokenCount: 5, totalTokenCount: 18 },
 *   modelVersion: "gemini-2.5-flash",
 * });
 * // prompt 10 (the 4 cached are part of it); output 3 + 5 thinking
 * if (evidence.usage?.prompt_tokens !== 10 || evidence.usage.completion_tokens !== 8) throw new Error();
 * if (evidence.toolCalls !== 1 || evidence.model !== "gemini-2.5-flash") throw new Error();
 * ```
 */
export const geminiGenerate: ModelApi = {
  name: "Gemini",
  kind: "gemini",
  paths: VERSIONS.flatMap((version) => [
    `/${version}/models/{model}:generateContent`,
    `/${version}/models/{model}:streamGenerateContent`,
  ]),
  matches: (path) => geminiCallPath(path) !== null,
  forwardedQuery: (path, query) => {
    if (query === "") return "";
    const stream = geminiCallPath(path)?.method === "streamGenerateContent";
    const params = query.split("&");
    const known = params.every((param) =>
      (stream && param === "alt=sse") || /^key=[A-Za-z0-9._-]*$/.test(param)
    );
    return known && new Set(params.map((param) => param.split("=")[0])).size === params.length
      ? ""
      : null;
  },
  requestedModel: (path) => geminiCallPath(path)?.model,
  answerForm: (path, query): AnswerForm => {
    if (geminiCallPath(path)?.method !== "streamGenerateContent") return "whole";
    return query.split("&").includes("alt=sse") ? "sse" : "json_array";
  },
  outputCapFields: ["generationConfig.maxOutputTokens"],
  defaultOutputCapField: "generationConfig.maxOutputTokens",
  promptAllowance: geminiMediaAllowance,
  requestProblem: (body) => {
    const snake = snakeCaseField(body);
    if (snake !== null) {
      return `Field "${snake}" is refused in snake_case: the relay reads and caps the camelCase ` +
        "field, so spell it in camelCase";
    }
    const config = body.generationConfig;
    if (Object.hasOwn(body, "generationConfig") && !isRecord(config) && config !== null) {
      return `Field "generationConfig" must be an object, not ${JSON.stringify(config)}`;
    }
    const count = isRecord(config) ? config.candidateCount : undefined;
    if (count !== undefined && count !== null && count !== 1) {
      return `Field "generationConfig.candidateCount" must be 1 when given, not ` +
        `${JSON.stringify(count)}: the relay forwards one candidate per call`;
    }
    return null;
  },
  streamedCall: (target, body) => {
    const call = geminiCallPath(target.split("?")[0]);
    if (call === null) throw new Error(`Not a Gemini model call: "${target}"`);
    return {
      target: `/${call.version}/models/${call.model}:streamGenerateContent?alt=sse`,
      body,
    };
  },
  wholeEvidence: (response) => {
    const counts = countsOf(isRecord(response) ? response.usageMetadata : undefined);
    const usage = relayUsage(counts);
    return {
      model: modelVersionOf(response),
      usage,
      usageDetail: usage === null ? null : counts,
      toolCalls: functionCalls(response),
    };
  },
  streamReader: () => new GeminiStreamReader(),
  wholeFromEvents: (events) => wholeResponse(events),
  streamErrorEvent: (error) => `data: ${JSON.stringify(errorBody("gemini", error, 500))}\n\n`,
};
