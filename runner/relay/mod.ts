/**
 * The host relay (seed 000 §03–04, issue 3 "One episode" 2–3): the only way
 * an agent in a `--network none` sandbox reaches a model, and the only place
 * the upstream key and the evidence of each call live.
 *
 * - {@linkcode startRelay}: the relay on a host unix socket, metering Chat
 *   Completions, Completions, Responses ({@linkcode UpstreamKind} `openai`)
 *   or Messages (`anthropic`) calls, whole and streamed (one module per API
 *   in `api/`, listed in {@linkcode MODEL_APIS}), with token and step caps,
 *   the plan's output cap on every forwarded call, per-call evidence
 *   records and bodies ({@linkcode CallBodies}), and key redaction.
 * - {@linkcode forwardInNamespace}: a listener on 127.0.0.1:<port> inside
 *   the container's network namespace, opened by the runner itself
 *   (`setns(2)` through FFI), piping to the relay socket; the runner's
 *   default when {@linkcode forwardInNamespaceAvailable}.
 * - {@linkcode startForwarder}: the same as a separate process started with
 *   `nsenter -n` (no FFI needed; one Deno launch per episode).
 * - {@linkcode evidenceGate}: seed 000's gate over the call records, its
 *   five evidence kinds (model id, usage, output policy, context limit,
 *   fingerprint): `evidence_missing`, zero calls = scored failure,
 *   `provider_fault`.
 * - {@linkcode relayStopReason}: `completed`, `step_cap`, `token_cap` or
 *   `rate_limited` from the call records (seed 003).
 * - {@linkcode startScriptedProvider}: the deterministic model server for
 *   tests and the demo, speaking the same four APIs, whole and streamed,
 *   scripted with {@linkcode ProviderScript} (rules on the request's turn
 *   index, last message kind and text, see {@linkcode readConversation}).
 *
 * An episode, in order: start the relay on a fresh socket; start the
 * candidate container; open the forwarder in its pid's network
 * namespace; let the agent run; close the forwarder, then the relay; read
 * `records()`, `stopReason()` and `evidenceGate(records)`.
 *
 * @module
 */
export { evidenceGate } from "./evidence_gate.ts";
export type { EvidenceGateOptions, EvidenceGateResult, EvidenceProblem } from "./evidence_gate.ts";
export { MODEL_CALL_PATHS, startRelay } from "./relay.ts";
export type { Relay, RelayOptions, RelayTotals } from "./relay.ts";
export type { BodyExcerpt, CallBodies, CallBodyLimits } from "./call_bodies.ts";
export { MODEL_APIS } from "./api/model_apis.ts";
export type { ModelApi } from "./api/model_api.ts";
export { UPSTREAM_KINDS } from "./api/upstream_kind.ts";
export type { UpstreamKind } from "./api/upstream_kind.ts";
export {
  RelayCallRecord,
  RelayFault,
  RelayRefusal,
  RelayUsage,
  RelayUsageDetail,
} from "../../analysis/schema/relay_call_record.ts";
export { relayStopReason } from "./relay_stop_reason.ts";
export { boundPrompt } from "./prompt_token_bound.ts";
export {
  canonicalRequest,
  combineFingerprints,
  requestFingerprint,
} from "./request_fingerprint.ts";
export { forwardInNamespace, forwardInNamespaceAvailable } from "./forward_in_namespace.ts";
export type { ForwardInNamespaceOptions, NamespaceForwarder } from "./forward_in_namespace.ts";
export { startForwarder } from "./start_forwarder.ts";
export type { Forwarder, ForwarderOptions } from "./start_forwarder.ts";
export { startScriptedProvider } from "./scripted_provider.ts";
export type {
  ProviderRequest,
  ScriptedProvider,
  ScriptedProviderOptions,
} from "./scripted_provider.ts";
export { readConversation } from "./provider_conversation.ts";
export type { Conversation, MessageKind, ProviderApi } from "./provider_conversation.ts";
export { pickReply } from "./pick_provider_reply.ts";
export {
  contentText,
  derivedUsage,
  messageText,
  parseProviderScript,
  ProviderLastKind,
  ProviderReply,
  ProviderRule,
  ProviderScript,
  ProviderToolCall,
  ProviderUsage,
} from "../../analysis/schema/provider_script.ts";
export type {
  ProviderReplyInput,
  ProviderScriptInput,
} from "../../analysis/schema/provider_script.ts";
