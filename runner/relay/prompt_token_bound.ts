/**
 * An upper bound of a model call's prompt tokens, read from its request body
 * before it is forwarded (issue 21, "The cap as a ceiling"): the token cap
 * reserves it, so that the tokens the provider bills cannot pass the cap.
 *
 * @module
 */
import { isRecord } from "./api/model_api.ts";

/**
 * Tokens added for each image or file part (`image_url`, `input_image`,
 * `image`, `input_file`, `file`, `document`, `input_audio`) on top of its
 * bytes: a provider bills an image by its size in pixels, not by its bytes,
 * and a tiny image can cost more tokens than it has bytes (OpenAI bills at
 * least 85 tokens per image and 255 for a small one in high detail, "Images
 * and vision", "Calculating costs"; Anthropic about width × height / 750,
 * "Vision", "Evaluate image size"), so each part adds the largest count a
 * small image can reach, rounded up.
 */
export const MEDIA_PART_TOKENS = 1000;

/**
 * Tokens added once per Messages call that carries `tools`: the tool-use
 * system prompt Anthropic adds and bills (at most 530 tokens for any listed
 * model, "Tool use with Claude", "Pricing"), rounded up.
 */
export const TOOL_SYSTEM_PROMPT_TOKENS = 600;

/**
 * Tokens added for each Messages tool with a `type` other than `custom`
 * (Anthropic-defined tools such as `bash_20250124` or
 * `text_editor_20250728`, whose definitions the provider expands: at most
 * 735 tokens each, "Tool use with Claude", "Pricing"), rounded up.
 */
export const TYPED_TOOL_TOKENS = 1000;

/** The parts that {@linkcode MEDIA_PART_TOKENS} applies to, by their `type`. */
const MEDIA_PART_TYPES = new Set([
  "image_url",
  "input_image",
  "image",
  "input_file",
  "file",
  "document",
  "input_audio",
]);

/**
 * Bytes of request body counted as one prompt token by
 * {@linkcode promptTokenBound} (3). The tokenizers of the served APIs are
 * byte-level BPEs that take about 4 bytes of English or code per token and
 * 3 of JSON; a request body is mostly JSON, its syntax (quotes, keys,
 * braces) longer than the chat template tokens that replace it. Text that
 * tokenizes more densely (CJK at about one token per character, random
 * bytes at up to one per byte) can take more tokens than the bound: that is
 * the bound's error, recorded per call (`prompt_tokens - prompt_bound`) and
 * per row (`evidence.prompt_bound_excess`), and at most 3 times the bound
 * (one token per byte).
 */
export const PROMPT_BYTES_PER_TOKEN = 3;

/**
 * An upper bound, as documented, of the prompt tokens a provider bills for
 * a request body.
 *
 * Rule: `ceil(bytes / PROMPT_BYTES_PER_TOKEN)`, plus
 * {@linkcode MEDIA_PART_TOKENS} per image or file part anywhere in the body,
 * plus the API's own allowance (`ModelApi.promptAllowance`: for Messages,
 * {@linkcode messagesToolAllowance}). Its error is in
 * {@linkcode PROMPT_BYTES_PER_TOKEN}; input a provider feature adds at the
 * provider (a fetched URL, a web search) is outside it, which is why those
 * are refused unless the plan allows them (`provider_features.ts`).
 *
 * O(size of the body).
 *
 * @param body the request as it will be forwarded, parsed
 * @param bytes its UTF-8 length in bytes, as forwarded
 * @param allowance the API's own allowance for the body, in tokens
 * @returns the bound, in tokens
 * @example
 * ```ts
 * import { promptTokenBound } from "./prompt_token_bound.ts";
 * // Claude Code's first request: 49,029 bytes -> ceil(49029 / 3) = 16343, + 600 for its tools.
 * if (promptTokenBound({}, 49029, 600) !== 16943) throw new Error();
 * ```
 */
export function promptTokenBound(
  body: Record<string, unknown>,
  bytes: number,
  allowance: number,
): number {
  return Math.ceil(bytes / PROMPT_BYTES_PER_TOKEN) + MEDIA_PART_TOKENS * mediaParts(body) +
    allowance;
}

/**
 * The Messages API's allowance: {@linkcode TOOL_SYSTEM_PROMPT_TOKENS} when
 * the request has tools, plus {@linkcode TYPED_TOOL_TOKENS} per tool whose
 * `type` is set and is not `custom` (an Anthropic-defined tool).
 *
 * @param body a Messages request
 * @returns the allowance in tokens
 */
export function messagesToolAllowance(body: Record<string, unknown>): number {
  if (!Array.isArray(body.tools) || body.tools.length === 0) return 0;
  let allowance = TOOL_SYSTEM_PROMPT_TOKENS;
  for (const tool of body.tools) {
    if (isRecord(tool) && typeof tool.type === "string" && tool.type !== "custom") {
      allowance += TYPED_TOOL_TOKENS;
    }
  }
  return allowance;
}

/**
 * The Gemini API's allowance: {@linkcode MEDIA_PART_TOKENS} per `inlineData`
 * or `fileData` part anywhere in the body (Gemini parts carry no `type`; the
 * provider bills an image by its tiles, 258 tokens per tile, "Understand and
 * count tokens", not by its bytes).
 *
 * @param body a `generateContent` request
 * @returns the allowance in tokens
 */
export function geminiMediaAllowance(body: Record<string, unknown>): number {
  let count = 0;
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      pending.push(...next);
    } else if (isRecord(next)) {
      for (const [key, value] of Object.entries(next)) {
        const name = key.replaceAll("_", "").toLowerCase();
        if ((name === "inlinedata" || name === "filedata") && isRecord(value)) count += 1;
        else pending.push(value);
      }
    }
  }
  return MEDIA_PART_TOKENS * count;
}

/** Objects anywhere in `value` whose `type` is a media part's. */
function mediaParts(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      pending.push(...next);
    } else if (isRecord(next)) {
      if (typeof next.type === "string" && MEDIA_PART_TYPES.has(next.type)) count += 1;
      pending.push(...Object.values(next));
    }
  }
  return count;
}
