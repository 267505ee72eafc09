/**
 * One call of the LLM judge through its host relay (issue 14: the judge's
 * model calls go through the relay like an agent's, so its model id, usage
 * and request fingerprint are recorded as evidence): Chat Completions for
 * an `openai` upstream, Messages for an `anthropic` one, with the plan's
 * sampling parameters.
 *
 * @module
 */
import type { JudgeParameters } from "../../analysis/schema/records.ts";
import type { UpstreamKind } from "../relay/api/upstream_kind.ts";
import { contentText } from "../../analysis/schema/provider_script.ts";
import type { JudgePrompt } from "./judge_prompt.ts";

/** Where and how the judge is asked. */
export interface JudgeEndpoint {
  /** The judge relay's unix socket. */
  socketPath: string;
  /** The upstream's kind: which API is spoken. */
  kind: UpstreamKind;
  /** The plan's judge model, which the relay is pinned to. */
  model: string;
  parameters: JudgeParameters;
}

/** The reply's text, or why there is none (the relay's record says whose fault). */
export type JudgeReply = { ok: true; text: string } | { ok: false; problem: string };

/**
 * The Messages API requires `max_tokens`; without the plan's
 * `max_output_tokens` the judge's reply (a few scores) is held to this.
 */
const MESSAGES_DEFAULT_MAX_TOKENS = 1024;

/**
 * Asks the judge once.
 *
 * Rule: `POST /v1/chat/completions` with `model`, a system and a user
 * message, and the parameters (`temperature`, `top_p`, `seed`,
 * `max_output_tokens` as `max_completion_tokens`), reading
 * `choices[0].message.content` (OpenAI API reference, "Create chat
 * completion"); or `POST /v1/messages` with `system`, one user message,
 * `max_tokens` and `temperature`, `top_p`, reading the text blocks of
 * `content` (Anthropic API, "Messages"). A status other than 200, a body
 * that is not JSON or has no text is no reply; the call is never repeated
 * here (the caller's recorded attempts are the only retries).
 *
 * @param endpoint the judge relay, the API, the model and its parameters
 * @param prompt the two messages
 * @returns the reply text, or the problem
 */
export async function askJudge(endpoint: JudgeEndpoint, prompt: JudgePrompt): Promise<JudgeReply> {
  const { path, body } = endpoint.kind === "anthropic"
    ? messagesRequest(endpoint, prompt)
    : chatRequest(endpoint, prompt);
  const client = Deno.createHttpClient({ proxy: { transport: "unix", path: endpoint.socketPath } });
  try {
    const response = await fetch(`http://relay${path}`, {
      method: "POST",
      client,
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) {
      return { ok: false, problem: `the judge's call was answered HTTP ${response.status}` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, problem: "the judge's response is not JSON" };
    }
    const reply = endpoint.kind === "anthropic" ? messagesText(json) : chatText(json);
    return reply === null
      ? { ok: false, problem: "the judge's response holds no text" }
      : { ok: true, text: reply };
  } catch (error) {
    return {
      ok: false,
      problem: `the judge's call failed: ${error instanceof Error ? error.message : error}`,
    };
  } finally {
    client.close();
  }
}

function chatRequest(endpoint: JudgeEndpoint, prompt: JudgePrompt) {
  const p = endpoint.parameters;
  return {
    path: "/v1/chat/completions",
    body: {
      model: endpoint.model,
      messages: [{ role: "system", content: prompt.system }, {
        role: "user",
        content: prompt.user,
      }],
      // JSON.stringify leaves out the parameters the plan does not set.
      temperature: p.temperature,
      top_p: p.top_p,
      seed: p.seed,
      max_completion_tokens: p.max_output_tokens,
    },
  };
}

function messagesRequest(endpoint: JudgeEndpoint, prompt: JudgePrompt) {
  const p = endpoint.parameters;
  return {
    path: "/v1/messages",
    body: {
      model: endpoint.model,
      system: prompt.system,
      messages: [{ role: "user", content: prompt.user }],
      max_tokens: p.max_output_tokens ?? MESSAGES_DEFAULT_MAX_TOKENS,
      temperature: p.temperature,
      top_p: p.top_p,
    },
  };
}

function chatText(json: unknown): string | null {
  const choices = (json as { choices?: unknown })?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  const content = (choices[0] as { message?: { content?: unknown } })?.message?.content;
  return typeof content === "string" ? content : null;
}

function messagesText(json: unknown): string | null {
  const content = (json as { content?: unknown })?.content;
  return Array.isArray(content) ? contentText(content) : null;
}
