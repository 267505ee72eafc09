/**
 * An upper bound of a model call's prompt tokens, taken before it is
 * forwarded (seed 003: the token cap is a ceiling on spend): the token cap reserves it, so
 * that the tokens the provider bills cannot pass the cap.
 * {@linkcode boundPrompt} takes it from the provider's count, the model's
 * tokenizer or the body's bytes, whichever the call has first.
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
 * Tokens added to a count (the provider's or a tokenizer's) for what the
 * model is given besides the request's text: the chat template's tokens
 * that start the answer (OpenAI's `<|start|>assistant<|message|>`, about 3),
 * and the error Anthropic allows its count ("an estimate ... may differ by a
 * small amount", "Token counting"), with a share of the count
 * ({@linkcode COUNT_MARGIN_DIVISOR}) on top.
 */
export const COUNT_MARGIN_TOKENS = 32;

/** A count's proportional margin: one token per this many counted (2%). */
export const COUNT_MARGIN_DIVISOR = 50;

/** Where a call's prompt bound came from (recorded as `prompt_bound_source`). */
export type PromptBoundSource = "count" | "tokenizer" | "bytes";

/** The ways to bound one call's prompt, in the order {@linkcode boundPrompt} tries them. */
export interface PromptBoundWays {
  /**
   * Asks the provider's count endpoint (`provider_prompt_count.ts`); null when
   * the API has none. Resolves null when the provider gave no count.
   */
  count: (() => Promise<number | null>) | null;
  /** Counts the body's text with the model's published tokenizer; null when it has none. */
  tokenize: ((text: string) => Promise<number>) | null;
}

/**
 * An upper bound of the prompt tokens a provider bills for a request, for
 * any text (seed 003: the token cap is a promise about spend, so it must
 * hold whatever the agent sends).
 *
 * Rule, the first that applies:
 * 1. `count`: the provider's own count of the request (Anthropic's and
 *    Gemini's count endpoints, which count what they bill, tools and media
 *    included), plus {@linkcode COUNT_MARGIN_TOKENS} and one token in
 *    {@linkcode COUNT_MARGIN_DIVISOR};
 * 2. `tokenizer`: the model's published tokenizer over the body's JSON text
 *    as forwarded (OpenAI's, `openai_tokenizer.ts`): the JSON syntax of each
 *    message (`{"role":"user","content":""}`, at least 8 tokens) is worth
 *    more than the chat template that replaces it (about 4), and escaping
 *    only lengthens text, so the text's tokens are within it; plus
 *    {@linkcode COUNT_MARGIN_TOKENS}, {@linkcode MEDIA_PART_TOKENS} per media
 *    part and the API's own allowance;
 * 3. `bytes`: one token per byte of the body as forwarded, the most any
 *    byte-level tokenizer can make of a text (every token is at least one
 *    byte: Anthropic's, OpenAI's and Gemini's byte-fallback vocabularies
 *    alike), plus {@linkcode MEDIA_PART_TOKENS} per media part and the API's
 *    own allowance. It holds for every byte sequence (rare scripts at one
 *    token per byte included), at the price of reserving about 3 to 4 times
 *    what English or code takes.
 * Input a provider feature adds at the provider (a fetched URL, a web
 * search) is outside every bound, which is why those are refused unless the
 * plan allows them (`provider_features.ts`).
 *
 * O(size of the body), plus a count request for `count`.
 *
 * @param body the request as it will be forwarded, parsed
 * @param forwarded its text and UTF-8 length in bytes, as forwarded (with room for a cap field)
 * @param allowance the API's own allowance for the body, in tokens (`ModelApi.promptAllowance`)
 * @param ways the count and the tokenizer this call has
 * @returns the bound, in tokens, and where it came from
 * @example
 * ```ts
 * import { boundPrompt } from "./prompt_token_bound.ts";
 * // No count, no tokenizer: one token per byte.
 * const bytes = await boundPrompt({}, { text: "", bytes: 49029 }, 600, { count: null, tokenize: null });
 * if (bytes.bound !== 49629 || bytes.source !== "bytes") throw new Error();
 * // The provider counted 15,000: 15,000 + 32 + 300.
 * const counted = await boundPrompt({}, { text: "", bytes: 49029 }, 600, {
 *   count: () => Promise.resolve(15000), tokenize: null,
 * });
 * if (counted.bound !== 15332 || counted.source !== "count") throw new Error();
 * ```
 */
export async function boundPrompt(
  body: Record<string, unknown>,
  forwarded: { text: string; bytes: number },
  allowance: number,
  ways: PromptBoundWays,
): Promise<{ bound: number; source: PromptBoundSource }> {
  const counted = ways.count === null ? null : await ways.count();
  if (counted !== null) {
    return {
      bound: counted + COUNT_MARGIN_TOKENS + Math.ceil(counted / COUNT_MARGIN_DIVISOR),
      source: "count",
    };
  }
  const extra = MEDIA_PART_TOKENS * mediaParts(body) + allowance;
  if (ways.tokenize !== null) {
    return {
      bound: (await ways.tokenize(forwarded.text)) + COUNT_MARGIN_TOKENS + extra,
      source: "tokenizer",
    };
  }
  return { bound: forwarded.bytes + extra, source: "bytes" };
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
