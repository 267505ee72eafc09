/**
 * The model APIs the relay meters, the one source of its metered surface
 * (`MODEL_CALL_PATHS` in `relay_surface.ts` is derived from it). Adding an
 * API is one {@linkcode ModelApi} module and one line here.
 *
 * @module
 */
import { anthropicMessages } from "./anthropic_messages.ts";
import { geminiGenerate } from "./gemini_generate.ts";
import type { ModelApi } from "./model_api.ts";
import { openaiChat } from "./openai_chat.ts";
import { openaiResponses } from "./openai_responses.ts";

/** Every metered API; their paths are disjoint. */
export const MODEL_APIS: readonly ModelApi[] = [
  openaiChat,
  openaiResponses,
  anthropicMessages,
  geminiGenerate,
];

/**
 * The API whose model calls go to `path`.
 *
 * @param path a request path in canonical form, e.g. `/v1/messages`
 * @returns the API, or null when `path` is no model call's
 * @example
 * ```ts
 * import { modelApiFor } from "./model_apis.ts";
 * if (modelApiFor("/v1/messages")?.kind !== "anthropic") throw new Error("Messages is Anthropic's");
 * if (modelApiFor("/v1/embeddings") !== null) throw new Error("not metered");
 * ```
 */
export function modelApiFor(path: string): ModelApi | null {
  return MODEL_APIS.find((api) => api.matches(path)) ?? null;
}
