/**
 * Token counting through the relay: the providers' own count endpoints
 * (Gemini's `models.countTokens`, Anthropic's `messages.countTokens`,
 * `POST /v1/messages/count_tokens`), which agents call to fit their
 * context and which bill nothing. A counting request is not a model call:
 * it is forwarded under the same rules as the model list (counted in
 * `other_requests`, never metered against the caps), but its body is read
 * under the relay's limits and checked for the provider features a model
 * call would be, since a count may make the provider read what it names
 * (a stored file, a cached content).
 *
 * @module
 */
import { readBody } from "./_read_body.ts";
import { isRecord, type ModelApi } from "./api/model_api.ts";
import { errorBody } from "./api/upstream_kind.ts";
import { forwardOther, type Upstream } from "./forward_call.ts";
import { deniedUses, providerFeaturesOf, refusalMessage } from "./provider_features.ts";

/** The count endpoints, by the model API whose requests they count. */
const COUNT_PATHS: readonly { api: string; path: RegExp }[] = [
  { api: "Messages", path: /^\/v1\/messages\/count_tokens$/ },
  {
    api: "Gemini",
    path: /^\/(?:v1beta|v1)\/models\/[A-Za-z0-9_][A-Za-z0-9._-]*:countTokens$/,
  },
];

/**
 * The name of the model API whose requests a count endpoint counts.
 *
 * @param path a request path in canonical form
 * @returns `Messages` or `Gemini`, or null when `path` is no count endpoint
 * @example
 * ```ts
 * import { countedApi } from "./count_tokens.ts";
 * if (countedApi("/v1beta/models/gemini-2.5-flash:countTokens") !== "Gemini") throw new Error();
 * if (countedApi("/v1/messages") !== null) throw new Error();
 * ```
 */
export function countedApi(path: string): string | null {
  return COUNT_PATHS.find((count) => count.path.test(path))?.api ?? null;
}

/**
 * The request a count body asks about: Gemini's `generateContentRequest`
 * when given (Gemini API reference, `models.countTokens`), else the body.
 */
function countedRequest(body: Record<string, unknown>): Record<string, unknown> {
  return isRecord(body.generateContentRequest) ? body.generateContentRequest : body;
}

/** What {@linkcode forwardCount} needs of the relay. */
export interface CountContext {
  upstream: Upstream;
  /** The API counted (its kind must be the upstream's). */
  api: ModelApi;
  maxBodyBytes: number;
  bodyDeadlineMs: number;
  allowedFeatures: readonly string[];
}

/**
 * Forwards one counting request and answers the agent.
 *
 * Rules: a body over the limit gets 413, one not received in time 408, one
 * that is not a JSON object 400; one naming a provider feature the plan does
 * not allow (the rules of `provider_features.ts` for the counted API,
 * applied to the counted request) 403; otherwise the body goes upstream as
 * it is, with the upstream's headers and key (`upstreamHeaders`), and the
 * answer comes back with the key redacted; an upstream that cannot be
 * reached or stays silent gets 502. Errors are in the API's form.
 *
 * @param request the agent's request
 * @param target the path (and any forwarded query) to forward
 * @param context the upstream, the counted API and the relay's limits
 * @returns the agent's response
 */
export async function forwardCount(
  request: Request,
  target: string,
  context: CountContext,
): Promise<Response> {
  const { api, upstream } = context;
  const fail = (status: number, message: string, code: string) =>
    Response.json(
      errorBody(api.kind, { message, type: "invalid_request_error", code }, status),
      { status },
    );
  const read = await readBody(request, {
    maxBytes: context.maxBodyBytes,
    deadlineMs: context.bodyDeadlineMs,
  });
  if (read.kind === "too_large") {
    return fail(413, `Request body too large: over ${context.maxBodyBytes} bytes`, "bad_request");
  }
  if (read.kind === "timed_out") {
    return fail(
      408,
      `Request body not received within ${context.bodyDeadlineMs} ms`,
      "bad_request",
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(read.bytes));
  } catch {
    body = undefined;
  }
  if (!isRecord(body)) return fail(400, "Request body must be a JSON object", "unsupported");
  const denied = deniedUses(
    providerFeaturesOf(api, countedRequest(body), request.headers),
    context.allowedFeatures,
  );
  if (denied.length > 0) return fail(403, refusalMessage(denied), "provider_feature");
  return await forwardOther(upstream, {
    pathAndSearch: target,
    method: "POST",
    incoming: request.headers,
    body: read.bytes,
  });
}
