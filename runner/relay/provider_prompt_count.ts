/**
 * The provider's own count of a model call's prompt, asked before the call
 * is forwarded under a token cap: Anthropic's `POST /v1/messages/count_tokens`
 * (Anthropic API reference, "Count Message tokens": the same `model`,
 * `messages`, `system`, `tools`, `tool_choice` and `thinking` as the call,
 * answered `{"input_tokens"}`) and Gemini's `models.countTokens` (Gemini API
 * reference, "Counting tokens": the call as `generateContentRequest`,
 * answered `{"totalTokens"}`). Both are free. The count is the relay's own
 * request, sent with the relay's key and the agent's forwarded headers
 * (`anthropic-version`, `anthropic-beta`), and recorded on the call
 * (`prompt_bound_source: "count"`).
 *
 * @module
 */
import { isCount, isRecord, type ModelApi } from "./api/model_api.ts";
import { geminiCallPath } from "./api/gemini_generate.ts";
import { openUpstream, readWhole, SilenceTimer, type Upstream } from "./forward_call.ts";

/** The members of a Messages request that count_tokens takes. */
const MESSAGES_COUNTED = ["model", "messages", "system", "tools", "tool_choice", "thinking"];

/** The members of a Gemini request that `generateContentRequest` takes besides its contents. */
const GEMINI_COUNTED = ["contents", "systemInstruction", "tools", "toolConfig"];

/**
 * The count request for a model call, when its API has a count endpoint.
 *
 * @param api the call's API
 * @param path the call's path
 * @param body the request as it will be forwarded
 * @returns the path and body of the count request; null when the API has none
 * @example
 * ```ts
 * import { countRequestOf } from "./provider_prompt_count.ts";
 * import { anthropicMessages } from "./api/anthropic_messages.ts";
 * const count = countRequestOf(anthropicMessages, "/v1/messages", {
 *   model: "claude-x", max_tokens: 9, stream: true, messages: [{ role: "user", content: "hi" }],
 * });
 * if (count?.path !== "/v1/messages/count_tokens" || "max_tokens" in count.body) throw new Error();
 * ```
 */
export function countRequestOf(
  api: ModelApi,
  path: string,
  body: Record<string, unknown>,
): { path: string; body: Record<string, unknown> } | null {
  const pick = (names: readonly string[]) =>
    Object.fromEntries(names.filter((name) => body[name] !== undefined).map((n) => [n, body[n]]));
  if (api.kind === "anthropic") {
    return { path: "/v1/messages/count_tokens", body: pick(MESSAGES_COUNTED) };
  }
  const call = api.kind === "gemini" ? geminiCallPath(path) : null;
  if (call === null) return null;
  return {
    path: `/${call.version}/models/${call.model}:countTokens`,
    body: { generateContentRequest: { model: `models/${call.model}`, ...pick(GEMINI_COUNTED) } },
  };
}

/**
 * Asks the upstream to count a call's prompt.
 *
 * @param upstream the relay's upstream
 * @param count the count request ({@linkcode countRequestOf})
 * @param incoming the agent's request headers (those its kind forwards go along)
 * @returns the count, or null when the upstream did not answer one (the relay then bounds the
 *   prompt by its bytes)
 */
export async function askPromptCount(
  upstream: Upstream,
  count: { path: string; body: Record<string, unknown> },
  incoming: Headers,
): Promise<number | null> {
  const silence = new SilenceTimer(upstream.timeoutMs);
  try {
    const response = await openUpstream(upstream, {
      pathAndSearch: count.path,
      method: "POST",
      incoming,
      body: new TextEncoder().encode(JSON.stringify(count.body)),
      silence,
    });
    const whole = await readWhole(response, silence);
    if (whole.status !== 200) return null;
    const answer: unknown = JSON.parse(new TextDecoder().decode(whole.body));
    if (!isRecord(answer)) return null;
    const tokens = upstream.kind === "gemini" ? answer.totalTokens : answer.input_tokens;
    return isCount(tokens) ? tokens : null;
  } catch {
    return null;
  } finally {
    silence.stop();
  }
}
