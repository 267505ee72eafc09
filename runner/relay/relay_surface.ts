/**
 * The relay's surface as an explicit allow-list (issue 7, "default deny"):
 * which requests an agent may make, decided from the raw request target
 * before anything is read or forwarded.
 *
 * @module
 */

import type { ModelApi } from "./api/model_api.ts";
import { MODEL_APIS, modelApiFor } from "./api/model_apis.ts";
import { countedApi } from "./count_tokens.ts";

/**
 * Endpoints whose POSTs are model calls: recorded, capped, metered and
 * fingerprinted: the paths of the metered APIs (`MODEL_APIS` in
 * `api/model_apis.ts`, the single source; adding an API adds its paths
 * here). Which of them a relay forwards depends on its upstream's kind.
 */
export const MODEL_CALL_PATHS: readonly string[] = MODEL_APIS.flatMap((api) => api.paths);

/** Where {@linkcode routeRequest} sends a request. */
export type Route =
  | { kind: "health" }
  /** `GET /relay/budget`: the budget left, answered locally (`budget_left.ts`). */
  | { kind: "budget" }
  /**
   * A POST to a path of `api`, whichever upstream kind the relay has;
   * `query` is the query as received ("" when none), `target` what is
   * forwarded: the path, with the query if the API forwards it.
   */
  | { kind: "model_call"; path: string; query: string; target: string; api: ModelApi }
  /**
   * A POST to a provider's token-counting endpoint for `api`'s requests
   * (`count_tokens.ts`): forwarded with its body, not metered.
   */
  | { kind: "count"; path: string; target: string; api: ModelApi }
  /** `GET /v1/models` or `GET /v1/models/<id>`: forwarded without a body, not metered. */
  | { kind: "models"; path: string }
  /** Answered locally with `status`, never forwarded. */
  | { kind: "denied"; status: 400 | 404 | 405; message: string };

/** One path segment in canonical form: no `%`, no `.`/`..`, nothing outside this set. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._:-]*$/;

/**
 * Routes one request by its method and raw request target (as received,
 * before any URL normalization).
 *
 * Rule: the target must be in canonical form, i.e. a path of `/`-separated
 * segments each matching `[A-Za-z0-9_][A-Za-z0-9._:-]*` (so no `%`
 * encoding, no empty segment from `//` or a trailing slash, no `.` or `..`
 * segment, no `?` query, no `#`, no absolute-form URL), except that a model
 * call's path may carry a query its API reads (`ModelApi.forwardedQuery`:
 * Messages' `?beta=true`, which Claude Code sends; Gemini's `?alt=sse`);
 * anything else is denied 400. Then: `GET /relay/health`, `GET
 * /relay/budget`; `POST` to a
 * model call's path (`ModelApi.matches`, the paths of
 * {@linkcode MODEL_CALL_PATHS}); `POST` to a token-counting endpoint
 * (`countedApi`: Gemini's `:countTokens`, Anthropic's
 * `/v1/messages/count_tokens`, with the queries of the API counted);
 * `GET /v1/models` and `GET /v1/models/<id>`.
 * One of those paths with another method is denied 405; every other path
 * 404. Denied requests are never forwarded.
 *
 * @param method the request method
 * @param target the raw request target, e.g. `/v1/chat/completions`
 * @returns the route
 * @example
 * ```ts
 * import { routeRequest } from "./relay_surface.ts";
 * if (routeRequest("POST", "/v1//chat/completions").kind !== "denied") throw new Error("not canonical");
 * if (routeRequest("POST", "/v1/chat/completions").kind !== "model_call") throw new Error("a model call");
 * ```
 */
export function routeRequest(method: string, target: string): Route {
  const notCanonical = {
    kind: "denied" as const,
    status: 400 as const,
    message: `Request path not in canonical form: "${target.slice(0, 200)}"`,
  };
  const allowed = (want: string) =>
    method === want ? null : {
      kind: "denied" as const,
      status: 405 as const,
      message: `Method not allowed by the relay: "${method} ${target}" (allowed: ${want})`,
    };
  const mark = target.indexOf("?");
  const path = mark >= 0 ? target.slice(0, mark) : target;
  const query = mark >= 0 ? target.slice(mark + 1) : "";
  if (mark >= 0) {
    const counted = countingApi(path);
    const api = query === "" ? null : modelApiFor(path) ?? counted;
    const forwarded = api?.forwardedQuery(path, query) ?? null;
    if (api === null || forwarded === null || !canonical(path)) return notCanonical;
    const sent = forwarded === "" ? path : `${path}?${forwarded}`;
    if (counted !== null) return allowed("POST") ?? { kind: "count", path, target: sent, api };
    return allowed("POST") ?? { kind: "model_call", path, query, target: sent, api };
  }
  if (!canonical(target)) return notCanonical;
  const segments = target.slice(1).split("/");
  if (target === "/relay/health") return allowed("GET") ?? { kind: "health" };
  if (target === "/relay/budget") return allowed("GET") ?? { kind: "budget" };
  const api = modelApiFor(target);
  if (api !== null) {
    return allowed("POST") ?? { kind: "model_call", path, query: "", target, api };
  }
  const counted = countingApi(target);
  if (counted !== null) return allowed("POST") ?? { kind: "count", path, target, api: counted };
  if (target === "/v1/models" || (segments.length === 3 && target.startsWith("/v1/models/"))) {
    return allowed("GET") ?? { kind: "models", path: target };
  }
  return {
    kind: "denied",
    status: 404,
    message: `Not exposed by the relay: "${method} ${target}"`,
  };
}

/** The API whose requests a count endpoint counts (`countedApi`), or null. */
function countingApi(path: string): ModelApi | null {
  const name = countedApi(path);
  return MODEL_APIS.find((api) => api.name === name) ?? null;
}

/** True for a path of canonical segments (the rule of {@linkcode routeRequest}). */
function canonical(path: string): boolean {
  return path.startsWith("/") && path.slice(1).split("/").every((segment) => SEGMENT.test(segment));
}

/**
 * The raw request target of a request received on the relay's unix socket,
 * without its origin. `Deno.serve` keeps the target as sent in
 * `request.url`: after `http+unix://<Host header>` for an origin-form target
 * (`http+unix://relay/v1//x` for `/v1//x`), or whole for an absolute-form one
 * (`http://relay/v1/x`, as proxy-style clients send it). The origin is
 * dropped either way (the relay forwards to its own upstream only); the rest
 * is returned exactly as sent.
 *
 * @param url `request.url`
 * @returns the target's path and anything after it, e.g. `/v1/models?x=1`
 */
export function rawTarget(url: string): string {
  const origin = /^(?:http\+unix|https?):\/\/[^/?#]*/i.exec(url);
  return origin === null ? url : url.slice(origin[0].length);
}
