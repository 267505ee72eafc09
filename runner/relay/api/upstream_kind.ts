/**
 * The kind of an upstream (issue 8: "the upstream key goes where each API
 * expects it"): which vendor's APIs it serves, where its key goes, which of
 * the agent's headers it needs and how its errors look.
 *
 * @module
 */

/**
 * `openai`: Chat Completions, Completions, Responses; `anthropic`: Messages;
 * `gemini`: Google's Gemini API (`generateContent`, `streamGenerateContent`).
 */
export type UpstreamKind = "openai" | "anthropic" | "gemini";

/** Every upstream kind, in the order the CLI lists them. */
export const UPSTREAM_KINDS: readonly UpstreamKind[] = ["openai", "anthropic", "gemini"];

/**
 * The agent's request headers each kind passes upstream; every other header
 * (the agent's own `Authorization` or `x-api-key` included) is dropped.
 * Anthropic's API reads its version and beta features from headers.
 */
const FORWARDED: Record<UpstreamKind, readonly string[]> = {
  openai: ["content-type", "accept"],
  anthropic: ["content-type", "accept", "anthropic-version", "anthropic-beta"],
  gemini: ["content-type", "accept"],
};

/**
 * The headers of a request to an upstream of `kind`.
 *
 * Rule: the agent's `content-type` and `accept` are kept, and for
 * `anthropic` its `anthropic-version` and `anthropic-beta` (the Messages API
 * requires the version header; the relay adds none of its own); a body
 * without `content-type` gets `application/json`; then the key:
 * `Authorization: Bearer <key>` for `openai` (OpenAI API reference,
 * "Authentication"), `x-api-key: <key>` for `anthropic` (Anthropic API,
 * "Authentication"), `x-goog-api-key: <key>` for `gemini` (Gemini API
 * reference, "API keys"; never a `key=` query, which would put it in URLs
 * that are logged).
 *
 * @param kind the upstream's kind
 * @param options the upstream key, the agent's headers and whether a body is sent
 * @returns the headers to send upstream
 * @example
 * ```ts
 * import { upstreamHeaders } from "./upstream_kind.ts";
 * const sent = upstreamHeaders("anthropic", {
 *   key: "k",
 *   incoming: new Headers({ "anthropic-version": "2023-06-01", authorization: "Bearer agent" }),
 *   withBody: true,
 * });
 * if (sent.get("x-api-key") !== "k" || sent.has("authorization")) throw new Error("key misplaced");
 * ```
 */
export function upstreamHeaders(
  kind: UpstreamKind,
  options: { key: string; incoming: Headers; withBody: boolean },
): Headers {
  const headers = new Headers();
  for (const name of FORWARDED[kind]) {
    const value = options.incoming.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (options.withBody && !headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  if (kind === "openai") headers.set("authorization", `Bearer ${options.key}`);
  else if (kind === "anthropic") headers.set("x-api-key", options.key);
  else headers.set("x-goog-api-key", options.key);
  return headers;
}

/**
 * A JSON error body the relay answers itself, in the form the clients of
 * `kind` read: OpenAI's `{"error": {"message", "type", "param", "code"}}`;
 * Anthropic's `{"type": "error", "error": {"type", "message"}}` with the
 * code in `error.details.error_code` (where `@anthropic-ai/sdk` reads
 * `APIError.errorCode`); Google's `{"error": {"code", "message", "status",
 * "details"}}` (Google AIP-193, "Errors": `code` the HTTP status, `status`
 * its canonical name, the relay's code as the `reason` of an `ErrorInfo`
 * detail in the domain `ledgerbench`).
 *
 * @param kind the kind of API the agent called
 * @param error message, type and code
 * @param status the HTTP status the body is sent with (Google's body repeats it)
 * @returns the body, ready for `Response.json`
 * @example
 * ```ts
 * import { errorBody } from "./upstream_kind.ts";
 * const body = errorBody("anthropic", { message: "m", type: "budget_exhausted", code: "step_cap" }, 403);
 * if (JSON.stringify(body) !== '{"type":"error","error":{"type":"budget_exhausted","message":"m","details":{"error_code":"step_cap"}}}') {
 *   throw new Error("not Anthropic's error shape");
 * }
 * ```
 */
export function errorBody(
  kind: UpstreamKind,
  error: { message: string; type: string; code: string | null },
  status: number,
): unknown {
  if (kind === "openai") {
    return { error: { message: error.message, type: error.type, param: null, code: error.code } };
  }
  if (kind === "gemini") {
    return {
      error: {
        code: status,
        message: error.message,
        status: GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT"),
        details: [{
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: error.code ?? error.type,
          domain: "ledgerbench",
        }],
      },
    };
  }
  return {
    type: "error",
    error: { type: error.type, message: error.message, details: { error_code: error.code } },
  };
}

/** Google's canonical status names by HTTP status (google.rpc.Code, as AIP-193 maps them). */
const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};
