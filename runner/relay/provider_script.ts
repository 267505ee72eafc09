/**
 * The script a {@linkcode startScriptedProvider} answers from: rules matched
 * against the last user message, a default reply, and per-call overrides
 * ("the 3rd call gets a 429"). Issue 3 asks for a deterministic scripted
 * provider that "can be told to return 429, 500 or a response without
 * usage"; this is the data that tells it.
 *
 * In a reply, an absent `model` means the script's model id and `null` means
 * the field is left out of the response; an absent `usage` means usage derived
 * from byte lengths (see {@linkcode derivedUsage}) and `null` means the field
 * is left out.
 *
 * @module
 */
import { z } from "zod";

const Count = z.number().int().nonnegative();

/** Token usage as the OpenAI chat API reports it. */
export const ProviderUsage = z.object({
  prompt_tokens: Count,
  completion_tokens: Count,
  /** Defaults to prompt + completion when absent. */
  total_tokens: Count.optional(),
}).strict();
export type ProviderUsage = z.infer<typeof ProviderUsage>;

/** One tool call the scripted model asks for (OpenAI `tool_calls` entry). */
export const ProviderToolCall = z.object({
  name: z.string().min(1),
  /** The JSON text of the arguments, passed through verbatim. */
  arguments: z.string().default("{}"),
}).strict();
export type ProviderToolCall = z.infer<typeof ProviderToolCall>;

/**
 * One scripted answer. `status` 200 sends a chat completion; any other status
 * sends an OpenAI-style error body (`{"error": {...}}`), with a
 * `Retry-After` header for 429.
 */
export const ProviderReply = z.object({
  status: z.number().int().min(200).max(599).default(200),
  content: z.string().default(""),
  tool_calls: z.array(ProviderToolCall).default([]),
  /** Absent: the script's `model`; null: the response has no `model` field. */
  model: z.string().min(1).nullable().optional(),
  /** Absent: derived from byte lengths; null: the response has no `usage` field. */
  usage: ProviderUsage.nullable().optional(),
  /** Seconds written in `Retry-After` when `status` is 429. */
  retry_after_s: Count.default(1),
  /** Waits this long before answering (for wall-clock tests). */
  delay_ms: Count.default(0),
  /**
   * Test hook: the reply content becomes the `Authorization` header the
   * provider received, so a test can prove the relay redacts the key.
   */
  echo_authorization: z.boolean().default(false),
}).strict();
export type ProviderReply = z.infer<typeof ProviderReply>;
/** A reply as written in a script, before defaults. */
export type ProviderReplyInput = z.input<typeof ProviderReply>;

/**
 * A rule: `contains` matches when the last user message includes the text,
 * `equals` when it is exactly the text. Exactly one of the two is given.
 */
export const ProviderRule = z.object({
  contains: z.string().optional(),
  equals: z.string().optional(),
  reply: ProviderReply,
}).strict().refine((rule) => (rule.contains === undefined) !== (rule.equals === undefined), {
  message: 'must have exactly one of "contains" and "equals"',
});
export type ProviderRule = z.infer<typeof ProviderRule>;

/**
 * A whole script. For each chat completion request, in this order: an entry
 * of `calls` whose `call` is the request's 1-based number (counting every
 * `POST /v1/chat/completions` the provider received, errors included), else
 * the first matching rule, else `default`.
 */
export const ProviderScript = z.object({
  model: z.string().min(1).default("scripted-model-1"),
  rules: z.array(ProviderRule).default([]),
  default: ProviderReply.default({
    status: 200,
    content: "",
    tool_calls: [],
    retry_after_s: 1,
    delay_ms: 0,
    echo_authorization: false,
  }),
  calls: z.array(
    z.object({
      call: z.number().int().positive(),
      reply: ProviderReply,
    }).strict(),
  ).default([]),
}).strict();
export type ProviderScript = z.infer<typeof ProviderScript>;
/** A script as written, before defaults. */
export type ProviderScriptInput = z.input<typeof ProviderScript>;

const encoder = new TextEncoder();

/**
 * The usage the scripted provider reports when a reply gives none: one token
 * per started 4 bytes of UTF-8, at least 1 each.
 *
 * Rule: `prompt_tokens = max(1, ceil(P / 4))` where P is the byte length of
 * the text of every message (string contents, and the `text` of content
 * parts); `completion_tokens = max(1, ceil(C / 4))` where C is the byte length
 * of the reply content plus each tool call's name and arguments.
 *
 * @param messages The request's `messages` array (anything else counts as no text).
 * @param reply The reply being sent.
 * @returns prompt, completion and total tokens.
 * @example
 * ```ts
 * import { derivedUsage } from "./provider_script.ts";
 * // 10 prompt bytes -> ceil(10/4) = 3; 5 reply bytes -> ceil(5/4) = 2
 * const u = derivedUsage([{ role: "user", content: "0123456789" }], { content: "hello", tool_calls: [] });
 * if (u.prompt_tokens !== 3 || u.completion_tokens !== 2 || u.total_tokens !== 5) throw new Error();
 * ```
 */
export function derivedUsage(
  messages: unknown,
  reply: Pick<ProviderReply, "content" | "tool_calls">,
): Required<ProviderUsage> {
  let promptBytes = 0;
  if (Array.isArray(messages)) {
    for (const message of messages) promptBytes += encoder.encode(messageText(message)).length;
  }
  let completionBytes = encoder.encode(reply.content).length;
  for (const call of reply.tool_calls) {
    completionBytes += encoder.encode(call.name).length + encoder.encode(call.arguments).length;
  }
  const prompt = Math.max(1, Math.ceil(promptBytes / 4));
  const completion = Math.max(1, Math.ceil(completionBytes / 4));
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/**
 * The text of one chat message: its string content, or the concatenated
 * `text` of its content parts; anything else is empty.
 *
 * @param message One entry of a chat request's `messages`.
 * @returns The text, possibly empty.
 */
export function messageText(message: unknown): string {
  if (message === null || typeof message !== "object") return "";
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (part !== null && typeof part === "object" && typeof part.text === "string") {
      text += part.text;
    }
  }
  return text;
}
