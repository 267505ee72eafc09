/**
 * Admission of one model call (issue 21, "The relay, in parts"): everything
 * the relay decides before a call may reach the upstream, in order: the
 * API's kind, the body (size, deadline, JSON), the request's shape (one
 * choice, a boolean `stream`, a meterable request, the pinned model), the
 * provider features the plan allows, the step cap, the plan's output policy
 * and the token cap's reservation, which may lower the output cap. The
 * result is either a refusal, worded, or the exact bytes to forward.
 *
 * @module
 */
import type { RelayRefusal } from "../../analysis/schema/relay_call_record.ts";
import { requestFingerprint } from "./request_fingerprint.ts";
import { readBody } from "./_read_body.ts";
import type { Ticket, TokenBudget } from "./token_budget.ts";
import { boundPrompt, type PromptBoundSource } from "./prompt_token_bound.ts";
import { countOpenAiTokens, openAiEncodingOf } from "./openai_tokenizer.ts";
import { countRequestOf } from "./provider_prompt_count.ts";
import { type AnswerForm, isCount, isRecord, type ModelApi } from "./api/model_api.ts";
import type { UpstreamKind } from "./api/upstream_kind.ts";
import {
  deniedUses,
  providerFeaturesOf,
  refusalMessage,
  requestChanges,
} from "./provider_features.ts";

/**
 * Bytes added to a body's length before its prompt bound is taken: room for
 * the output cap field the token cap may set (`,"max_completion_tokens":`
 * and a 16-digit number). The bound is taken of the request as admitted
 * (the agent's, with the output policy and provider defaults applied); the
 * stream form the relay then forwards it in adds only `stream` and
 * `stream_options` (`streamedForWhole`, `forward_call.ts`), which carry no
 * prompt text.
 */
const CAP_FIELD_BYTES = 48;

/** What admission needs of the relay, fixed for the episode. */
export interface AdmissionRules {
  /** The upstream's kind: a model call of another kind's API is refused `unsupported`. */
  upstreamKind: UpstreamKind;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Time allowed to receive a body once its headers arrived, in ms. */
  bodyDeadlineMs: number;
  /** The plan's model; null: any. */
  pinnedModel: string | null;
  /** The plan's output policy; null: none. */
  maxOutputTokens: number | null;
  /** Forwarded calls allowed; null: no cap. */
  stepCap: number | null;
  /** The token cap's ledger; null: no cap. */
  budget: TokenBudget | null;
  /** Provider features the plan allows, by name. */
  allowedFeatures: readonly string[];
  /**
   * Asks the upstream's count endpoint to count a prompt
   * (`askPromptCount`, `provider_prompt_count.ts`), for the token cap's
   * bound; resolves null when it gave no count.
   */
  countPrompt(
    count: { path: string; body: Record<string, unknown> },
    headers: Headers,
  ): Promise<number | null>;
}

/** The request as received, for the call's body log. */
export interface ReceivedBody {
  /** Its text ("" when unread). */
  text: string;
  /** Its length in bytes (bytes read when refused before the end). */
  bytes: number;
}

/** A call the relay answers itself. */
export interface Refused {
  kind: "refused";
  refusal: RelayRefusal;
  status: number;
  message: string;
  fingerprint: string | null;
  received: ReceivedBody;
}

/** A call to forward. */
export interface Admitted {
  kind: "admitted";
  /** The agent's request as received, parsed. */
  body: Record<string, unknown>;
  /** The bytes to send upstream. */
  forwarded: Uint8Array<ArrayBuffer>;
  /** `forwarded` parsed: the request as sent (`body` itself when unchanged). */
  sent: Record<string, unknown>;
  fingerprint: string;
  /** How the agent asked to be answered. */
  form: AnswerForm;
  /** True unless `form` is `whole`. */
  streamed: boolean;
  /**
   * The path and query to forward: the route's target, and for a streamed
   * call the stream form's (`ModelApi.streamedCall`).
   */
  target: string;
  /** The output cap the forwarded request carries; null when it carries none. */
  outputCap: number | null;
  /** The token cap's reservation; null without a cap. */
  ticket: Ticket | null;
  /** The prompt bound reserved; null without a token cap. */
  promptBound: number | null;
  /** Where the prompt bound came from; null without a token cap. */
  promptBoundSource: PromptBoundSource | null;
  /** Provider features used, all allowed by the plan (sorted names). */
  features: string[];
  received: ReceivedBody;
}

/** Counts that admission updates: forwarded calls so far, for the step cap. */
export interface AdmissionState {
  admitted: number;
}

/** The model call as routed: its API, path, query as received and target to forward. */
export interface RoutedCall {
  api: ModelApi;
  path: string;
  /** The query as received ("" when none). */
  query: string;
  /** The path and the query the API forwards. */
  target: string;
}

/**
 * Decides one model call (rules in the steps of `startRelay`, `relay.ts`).
 *
 * @param request the agent's request (its body is read here)
 * @param call the call's API, path, query and target
 * @param context the episode's `rules` and its mutable `state`
 * @returns the refusal or the call to forward
 */
export async function admitModelCall(
  request: Request,
  call: RoutedCall,
  context: { rules: AdmissionRules; state: AdmissionState },
): Promise<Refused | Admitted> {
  const { api } = call;
  const { rules, state } = context;
  const refused = (
    refusal: RelayRefusal,
    status: number,
    message: string,
    received: ReceivedBody,
    fingerprint: string | null = null,
  ): Refused => ({ kind: "refused", refusal, status, message, fingerprint, received });
  if (api.kind !== rules.upstreamKind) {
    await request.body?.cancel().catch(() => {});
    const bytes = Number(request.headers.get("content-length")) || 0;
    return refused(
      "unsupported",
      404,
      `Not served by this relay: the ${api.name} API, and this episode's upstream serves ` +
        `the "${rules.upstreamKind}" APIs only`,
      { text: "", bytes },
    );
  }
  const read = await readBody(request, {
    maxBytes: rules.maxBodyBytes,
    deadlineMs: rules.bodyDeadlineMs,
  });
  if (read.kind === "too_large") {
    return refused(
      "bad_request",
      413,
      `Request body too large: over the relay limit of ${rules.maxBodyBytes} bytes ` +
        `(refused after reading ${read.bytesRead})`,
      { text: "", bytes: read.bytesRead },
    );
  }
  if (read.kind === "timed_out") {
    return refused(
      "bad_request",
      408,
      `Request body not received within ${rules.bodyDeadlineMs} ms (${read.bytesRead} bytes read)`,
      { text: "", bytes: read.bytesRead },
    );
  }
  const text = new TextDecoder().decode(read.bytes);
  const received = { text, bytes: read.bytes.length };
  const body = parseObject(text);
  if (body === null) {
    return refused(
      "unsupported",
      400,
      "Request body must be a JSON object: the relay forwards nothing it cannot meter",
      received,
    );
  }
  const fingerprint = requestFingerprint(body);
  const problem = requestProblem(body, rules.pinnedModel, call);
  if (problem !== null) {
    return refused(problem.refusal, problem.status, problem.message, received, fingerprint);
  }
  let sent = requestChanges(api, body, { allowed: rules.allowedFeatures }) ?? body;
  const uses = providerFeaturesOf(api, sent, request.headers);
  const denied = deniedUses(uses, rules.allowedFeatures);
  if (denied.length > 0) {
    return refused("provider_feature", 403, refusalMessage(denied), received, fingerprint);
  }
  const stepRefusal = () =>
    refused(
      "step_cap",
      403,
      `Step cap reached: ${state.admitted} model calls of ${rules.stepCap} allowed`,
      received,
      fingerprint,
    );
  if (rules.stepCap !== null && state.admitted >= rules.stepCap) return stepRefusal();
  if (rules.maxOutputTokens !== null) {
    sent = withOutputCap(api, sent, rules.maxOutputTokens) ?? sent;
  }
  let ticket: Ticket | null = null;
  let promptBound: number | null = null;
  let promptBoundSource: PromptBoundSource | null = null;
  if (rules.budget !== null) {
    const forwarded = sent === body ? text : JSON.stringify(sent);
    const bytes = sent === body ? read.bytes.length : new TextEncoder().encode(forwarded).length;
    const count = countRequestOf(api, call.path, sent);
    const encoding = api.kind === "openai" ? openAiEncodingOf(sent.model) : null;
    ({ bound: promptBound, source: promptBoundSource } = await boundPrompt(
      sent,
      { text: forwarded, bytes: bytes + CAP_FIELD_BYTES },
      api.promptAllowance(sent),
      {
        count: count === null ? null : () => rules.countPrompt(count, request.headers),
        tokenize: encoding === null ? null : (forwarded) => countOpenAiTokens(encoding, forwarded),
      },
    ));
    const admission = await rules.budget.admit({ promptBound, outputCap: outputCapOf(api, sent) });
    if (admission.kind === "refused") {
      return refused("token_cap", 403, admission.message, received, fingerprint);
    }
    ticket = admission.ticket;
    if (rules.stepCap !== null && state.admitted >= rules.stepCap) {
      rules.budget.cancel(ticket);
      return stepRefusal();
    }
    if (ticket.lowered) sent = withOutputCap(api, sent, ticket.outputCap) ?? sent;
  }
  state.admitted += 1;
  const form = api.answerForm(call.path, call.query, body);
  let target = call.target;
  if (form !== "whole") ({ target, body: sent } = api.streamedCall(target, sent));
  return {
    kind: "admitted",
    body,
    forwarded: sent === body ? read.bytes : jsonBytes(sent),
    sent,
    fingerprint,
    form,
    streamed: form !== "whole",
    target,
    outputCap: outputCapOf(api, sent),
    ticket,
    promptBound,
    promptBoundSource,
    features: [...new Set(uses.map((use) => use.feature))].sort(),
    received,
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function jsonBytes(body: Record<string, unknown>): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(body));
}

/** Why {@linkcode requestProblem} refuses a model call. */
interface RequestProblem {
  refusal: RelayRefusal;
  status: number;
  message: string;
}

/**
 * A model call the relay must not forward: a `stream` present and not a
 * boolean; an `n` or `best_of` present and not null or 1 (each choice would
 * be another output under the output and token caps); a request the API's
 * module cannot meter; with `pinned`, a `model` that is not exactly it.
 * Null when none.
 */
function requestProblem(
  body: Record<string, unknown>,
  pinned: string | null,
  { api, path }: RoutedCall,
): RequestProblem | null {
  if (Object.hasOwn(body, "stream") && typeof body.stream !== "boolean") {
    return {
      refusal: "bad_request",
      status: 400,
      message: `Field "stream" must be a boolean, not ${JSON.stringify(body.stream)}`,
    };
  }
  for (const field of ["n", "best_of"]) {
    const value = body[field];
    if (value !== undefined && value !== null && value !== 1) {
      return {
        refusal: "bad_request",
        status: 400,
        message: `Field "${field}" must be 1 when given, not ${JSON.stringify(value)}: ` +
          "the relay forwards one choice per call",
      };
    }
  }
  const unmetered = api.requestProblem(body);
  if (unmetered !== null) return { refusal: "bad_request", status: 400, message: unmetered };
  const model = api.requestedModel(path, body);
  if (pinned !== null && model !== pinned) {
    return {
      refusal: "model_not_allowed",
      status: 403,
      message: `Model not allowed: ${
        JSON.stringify(model ?? null)
      }; this episode's model is "${pinned}"`,
    };
  }
  return null;
}

/**
 * The first of the API's output cap fields that is a non-negative integer, or null.
 *
 * @param api the call's API
 * @param body a request of it
 * @returns the output cap it carries
 */
export function outputCapOf(api: ModelApi, body: Record<string, unknown>): number | null {
  for (const field of api.outputCapFields) {
    const value = fieldOf(body, field);
    if (isCount(value)) return value;
  }
  return null;
}

/**
 * The parent object and member name of a cap field, `a.b` naming member `b`
 * of the object `a` (Gemini's `generationConfig.maxOutputTokens`); the
 * parent is null when the body has no object there.
 */
function fieldPlace(
  body: Record<string, unknown>,
  field: string,
): { parent: Record<string, unknown> | null; name: string } {
  const dot = field.indexOf(".");
  if (dot < 0) return { parent: body, name: field };
  const parent = body[field.slice(0, dot)];
  return { parent: isRecord(parent) ? parent : null, name: field.slice(dot + 1) };
}

function fieldOf(body: Record<string, unknown>, field: string): unknown {
  const { parent, name } = fieldPlace(body, field);
  return parent?.[name];
}

function hasField(body: Record<string, unknown>, field: string): boolean {
  const { parent, name } = fieldPlace(body, field);
  return parent !== null && Object.hasOwn(parent, name);
}

/** A copy of `body` with each of `fields` set to `value` (a missing parent object made). */
function withFields(
  body: Record<string, unknown>,
  fields: readonly string[],
  value: number,
): Record<string, unknown> {
  const out = { ...body };
  for (const field of fields) {
    const dot = field.indexOf(".");
    if (dot < 0) {
      out[field] = value;
      continue;
    }
    const head = field.slice(0, dot);
    out[head] = { ...(isRecord(out[head]) ? out[head] : {}), [field.slice(dot + 1)]: value };
  }
  return out;
}

/**
 * The request with its output cap brought to at most `cap`: each of the
 * API's cap fields the agent set that is not an integer at most `cap` is set
 * to `cap`; with none set, the API's default field is. Null when the request
 * needs no change.
 *
 * @param api the call's API
 * @param body a request of it
 * @param cap the largest output cap to forward
 * @returns the changed request, or null
 */
export function withOutputCap(
  api: ModelApi,
  body: Record<string, unknown>,
  cap: number,
): Record<string, unknown> | null {
  const used = api.outputCapFields.filter((field) => hasField(body, field));
  if (used.length === 0) return withFields(body, [api.defaultOutputCapField], cap);
  const over = used.filter((field) => {
    const value = fieldOf(body, field);
    return !(isCount(value) && value <= cap);
  });
  if (over.length === 0) return null;
  return withFields(body, over, cap);
}
