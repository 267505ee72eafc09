/**
 * The script a {@linkcode startScriptedProvider} answers from: rules matched
 * against the conversation a request carries, a default reply, and per-call
 * overrides ("the 3rd call gets a 429"). Issue 3 asks for a deterministic
 * scripted provider that "can be told to return 429, 500 or a response
 * without usage"; issue 8 asks that it "script a multi-turn, tool-using
 * conversation deterministically at any `--parallel`"; this is the data that
 * tells it.
 *
 * One script serves all four model APIs the provider speaks (OpenAI Chat
 * Completions, legacy Completions, the Responses API and the Anthropic
 * Messages API): a reply's fields mean the same for each, and the provider
 * renders them in the shape of the API that was called (see
 * {@linkcode startScriptedProvider}).
 *
 * A rule may match (all given conditions must hold):
 * - `turn`: the request's turn index, the number of assistant turns already
 *   in the conversation the request carries (see
 *   {@linkcode readConversation}), so a tool-then-finish conversation is
 *   `turn: 0` then `turn: 1`, whatever other episodes do meanwhile;
 * - `last`: the kind of the conversation's last message, `"user"` or
 *   `"tool_result"` (chat `role: "tool"`, a Responses `function_call_output`
 *   item, a Messages user message with a `tool_result` block);
 * - at most one of `contains` (substring), `equals` (exact) and `matches`
 *   (a JavaScript regular expression, unanchored, no flags) on a text: the
 *   results of the last turn's tool calls when `last` is `"tool_result"`,
 *   else the last user message.
 *
 * In a reply, an absent `model` means the script's model id and `null` means
 * the field is left out of the response; an absent `usage` means usage derived
 * from byte lengths (see {@linkcode derivedUsage}) and `null` means the field
 * is left out.
 *
 * @example A tool call on turn 0, a final answer once the tool has answered
 * ```ts
 * import { parseProviderScript } from "./provider_script.ts";
 * const script = parseProviderScript({
 *   rules: [
 *     { turn: 0, reply: { tool_calls: [{ name: "shell", arguments: '{"command":["ls"]}' }] } },
 *     { turn: 1, last: "tool_result", reply: { content: "Done." } },
 *   ],
 * }, "codex.json");
 * if (script.rules[1].last !== "tool_result") throw new Error("not parsed");
 * ```
 *
 * @module
 */
import { z } from "zod";
import { schemaProblem } from "./schema_problems.ts";

const Count = z.number().int().nonnegative();

/**
 * Token usage of one reply. The names are the OpenAI chat API's; the other
 * APIs get the same numbers under their own names (Responses `input_tokens`
 * = `prompt_tokens`, with `cached_tokens` and `cache_creation_tokens` among
 * them; Messages `input_tokens` = `prompt_tokens` − `cached_tokens` −
 * `cache_creation_tokens`, since Anthropic counts cache reads and writes
 * apart).
 */
export const ProviderUsage = z.object({
  prompt_tokens: Count,
  completion_tokens: Count,
  /** Defaults to prompt + completion when absent. */
  total_tokens: Count.optional(),
  /** Prompt tokens read from a prompt cache; default 0. */
  cached_tokens: Count.optional(),
  /** Prompt tokens written to a prompt cache; default 0. */
  cache_creation_tokens: Count.optional(),
  /** Completion tokens spent on reasoning; default 0. */
  reasoning_tokens: Count.optional(),
}).strict()
  .refine((u) => (u.cached_tokens ?? 0) + (u.cache_creation_tokens ?? 0) <= u.prompt_tokens, {
    message: 'must have "cached_tokens" + "cache_creation_tokens" at most "prompt_tokens"',
  })
  .refine((u) => (u.reasoning_tokens ?? 0) <= u.completion_tokens, {
    message: 'must have "reasoning_tokens" at most "completion_tokens"',
  });
export type ProviderUsage = z.infer<typeof ProviderUsage>;

/**
 * One tool call the scripted model asks for: an OpenAI chat `tool_calls`
 * entry, a Responses `function_call` item or a Messages `tool_use` block.
 */
export const ProviderToolCall = z.object({
  name: z.string().min(1),
  /**
   * The JSON text of the arguments (an object), passed through verbatim
   * (Messages: parsed into `input`).
   */
  arguments: z.string().default("{}").refine(isJsonObjectText, {
    message: "must be the JSON text of an object",
  }),
}).strict();
export type ProviderToolCall = z.infer<typeof ProviderToolCall>;

/**
 * One scripted answer. `status` 200 sends a model response; any other status
 * sends the API's error body (OpenAI `{"error": {...}}`, Anthropic
 * `{"type": "error", "error": {...}}`), with a `Retry-After` header for 429.
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
   * Test hook: the reply content becomes the credential header the provider
   * received (`Authorization`; for Messages `x-api-key` when sent), so a test can prove
   * the relay redacts the key.
   */
  echo_authorization: z.boolean().default(false),
}).strict();
export type ProviderReply = z.infer<typeof ProviderReply>;
/** A reply as written in a script, before defaults. */
export type ProviderReplyInput = z.input<typeof ProviderReply>;

/** The kinds of last message a rule's `last` can ask for. */
export const ProviderLastKind = z.enum(["user", "tool_result"]);
export type ProviderLastKind = z.infer<typeof ProviderLastKind>;

/**
 * A rule: each condition given must hold (see the module doc); at least one
 * is given, and at most one of `contains`, `equals` and `matches`.
 */
export const ProviderRule = z.object({
  turn: Count.optional(),
  last: ProviderLastKind.optional(),
  contains: z.string().optional(),
  equals: z.string().optional(),
  matches: z.string().refine(isRegExp, { message: "must be a valid regular expression" })
    .optional(),
  reply: ProviderReply,
}).strict()
  .refine((rule) => textMatchers(rule) <= 1, {
    message: 'must have at most one of "contains", "equals" and "matches"',
  })
  .refine(
    (rule) => textMatchers(rule) + +(rule.turn !== undefined) + +(rule.last !== undefined) > 0,
    {
      message: 'must have at least one of "turn", "last", "contains", "equals" and "matches"',
    },
  );
export type ProviderRule = z.infer<typeof ProviderRule>;

/**
 * A whole script. For each model call (a `POST` to one of the four model
 * APIs), in this order: an entry of `calls` whose `call` is the request's
 * 1-based number (counting every model call the provider received, of any
 * API, errors included; global, so meant for `--parallel 1`), else the first
 * matching rule, else `default`.
 */
export const ProviderScript = z.object({
  model: z.string().min(1).default("scripted-model-1"),
  /**
   * How derived usage counts a prompt's tokens (see {@linkcode derivedUsage}):
   * `quarter_bytes`, one per started 4 UTF-8 bytes (about what a byte-level
   * BPE takes of English and code); `bytes`, one per UTF-8 byte, the most a
   * byte-level tokenizer can bill (a stand-in for a provider billing dense
   * text, such as rare scripts, at one token per byte).
   */
  prompt_billing: z.enum(["quarter_bytes", "bytes"]).default("quarter_bytes"),
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

/**
 * Parses a script through {@linkcode ProviderScript}, wording the first
 * problem on one line (the house rule for bad input: name the file, the
 * rule and the field).
 *
 * @param value The script, e.g. the parsed JSON of a script file.
 * @param source Where it came from (a file name), quoted in the error; omitted: not named.
 * @returns The script with defaults applied.
 * @throws {Error} `Invalid provider script "<source>": "<path>" <message>` (the
 * message worded by `schemaProblem`, analysis/schema/schema_problems.ts), e.g.
 * `Invalid provider script "s.json": "rules.1.turn" expected number, received string`
 * @example
 * ```ts
 * import { parseProviderScript } from "./provider_script.ts";
 * let message = "";
 * try {
 *   parseProviderScript({ rules: [{ turn: -1, reply: {} }] }, "s.json");
 * } catch (error) {
 *   message = (error as Error).message;
 * }
 * if (!message.startsWith('Invalid provider script "s.json": "rules.0.turn" ')) throw new Error(message);
 * ```
 */
export function parseProviderScript(value: unknown, source?: string): ProviderScript {
  const parsed = ProviderScript.safeParse(value);
  if (parsed.success) return parsed.data;
  const { field, message } = schemaProblem(parsed.error.issues[0], value);
  const where = source === undefined ? ":" : ` "${source}":`;
  throw new Error(`Invalid provider script${where} "${field}" ${message}`);
}

const encoder = new TextEncoder();

/**
 * The usage the scripted provider reports when a reply gives none: one token
 * per started 4 bytes of UTF-8, at least 1 each; no cached, cache-creation or
 * reasoning tokens.
 *
 * Rule: `prompt_tokens = max(1, ceil(P / 4))` where P is the byte length of
 * the request's prompt text (for chat, the text of every message: string
 * contents, and the `text` of content parts; see {@linkcode readConversation}
 * for each API), or `max(1, P)` under the script's `prompt_billing: "bytes"`;
 * `completion_tokens = max(1, ceil(C / 4))` where C is the byte length of the
 * reply content plus each tool call's name and arguments.
 *
 * @param promptText The request's prompt text, concatenated.
 * @param reply The reply being sent.
 * @param billing The script's `prompt_billing` (default `quarter_bytes`).
 * @returns prompt, completion and total tokens.
 * @example
 * ```ts
 * import { derivedUsage } from "./provider_script.ts";
 * // 10 prompt bytes -> ceil(10/4) = 3; 5 reply bytes -> ceil(5/4) = 2
 * const u = derivedUsage("0123456789", { content: "hello", tool_calls: [] });
 * if (u.prompt_tokens !== 3 || u.completion_tokens !== 2 || u.total_tokens !== 5) throw new Error();
 * ```
 */
export function derivedUsage(
  promptText: string,
  reply: Pick<ProviderReply, "content" | "tool_calls">,
  billing: ProviderScript["prompt_billing"] = "quarter_bytes",
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  let completionBytes = encoder.encode(reply.content).length;
  for (const call of reply.tool_calls) {
    completionBytes += encoder.encode(call.name).length + encoder.encode(call.arguments).length;
  }
  const promptBytes = encoder.encode(promptText).length;
  const prompt = Math.max(1, billing === "bytes" ? promptBytes : Math.ceil(promptBytes / 4));
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
  return contentText((message as { content?: unknown }).content);
}

/**
 * The text of a message content: a string, or the concatenated `text` of its
 * parts (OpenAI `text`/`input_text` parts, Anthropic `text` blocks); anything
 * else is empty.
 *
 * @param content A `content` (or Responses `output`) value.
 * @returns The text, possibly empty.
 */
export function contentText(content: unknown): string {
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

function textMatchers(rule: { contains?: string; equals?: string; matches?: string }): number {
  return +(rule.contains !== undefined) + +(rule.equals !== undefined) +
    +(rule.matches !== undefined);
}

function isRegExp(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

function isJsonObjectText(text: string): boolean {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}
