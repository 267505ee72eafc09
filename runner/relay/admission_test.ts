import assert from "node:assert/strict";
import { type AdmissionRules, admitModelCall, type Admitted, type Refused } from "./admission.ts";
import { TokenBudget } from "./token_budget.ts";
import { anthropicMessages } from "./api/anthropic_messages.ts";
import { openaiChat } from "./api/openai_chat.ts";
import { openaiResponses } from "./api/openai_responses.ts";
import type { ModelApi } from "./api/model_api.ts";

const RULES: AdmissionRules = {
  upstreamKind: "openai",
  maxBodyBytes: 1024 * 1024,
  bodyDeadlineMs: 5000,
  pinnedModel: null,
  maxOutputTokens: null,
  stepCap: null,
  budget: null,
  allowedFeatures: [],
  countPrompt: () => Promise.resolve(null),
};

function request(path: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://relay${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function decide(
  api: ModelApi,
  body: unknown,
  rules: Partial<AdmissionRules> = {},
  state = { admitted: 0 },
): Promise<Refused | Admitted> {
  const path = api.paths[0];
  return await admitModelCall(request(path, body), { api, path, query: "", target: path }, {
    rules: { ...RULES, ...rules },
    state,
  });
}

function refused(decision: Refused | Admitted): Refused {
  assert.equal(decision.kind, "refused");
  return decision as Refused;
}

function admitted(decision: Refused | Admitted): Admitted {
  assert.equal(decision.kind, "admitted", JSON.stringify(decision));
  return decision as Admitted;
}

const forwardedJson = (decision: Admitted) =>
  JSON.parse(new TextDecoder().decode(decision.forwarded));

const CHAT = { model: "m", messages: [{ role: "user", content: "hi" }] };

Deno.test("admitModelCall() forwards an ordinary call's bytes unchanged", async () => {
  const text = JSON.stringify(CHAT);
  const decision = admitted(await decide(openaiChat, text));
  assert.equal(new TextDecoder().decode(decision.forwarded), text);
  assert.deepEqual(
    [decision.streamed, decision.outputCap, decision.ticket, decision.features],
    [false, null, null, []],
  );
  assert.deepEqual(decision.received, { text, bytes: text.length });
});

Deno.test("admitModelCall() refuses another kind's API without reading its body", async () => {
  const decision = refused(
    await decide(anthropicMessages, { model: "m", max_tokens: 5, messages: [] }),
  );
  assert.deepEqual([decision.refusal, decision.status, decision.received.text], [
    "unsupported",
    404,
    "",
  ]);
  assert.equal(
    decision.message,
    'Not served by this relay: the Messages API, and this episode\'s upstream serves the "openai" APIs only',
  );
});

Deno.test("admitModelCall() refuses a body that is too large, not JSON, or of the wrong shape", async () => {
  const large = refused(await decide(openaiChat, "x".repeat(2000), { maxBodyBytes: 1000 }));
  assert.deepEqual([large.refusal, large.status], ["bad_request", 413]);
  const notJson = refused(await decide(openaiChat, "[1, 2]"));
  assert.deepEqual([notJson.refusal, notJson.status, notJson.fingerprint], [
    "unsupported",
    400,
    null,
  ]);
  const stream = refused(await decide(openaiChat, { ...CHAT, stream: "true" }));
  assert.deepEqual([stream.refusal, stream.status], ["bad_request", 400]);
  const choices = refused(await decide(openaiChat, { ...CHAT, n: 2 }));
  assert.equal(
    choices.message,
    'Field "n" must be 1 when given, not 2: the relay forwards one choice per call',
  );
  const other = refused(await decide(openaiChat, CHAT, { pinnedModel: "pinned" }));
  assert.deepEqual([other.refusal, other.status], ["model_not_allowed", 403]);
  assert.match(other.fingerprint ?? "", /^[0-9a-f]{64}$/);
});

Deno.test("admitModelCall() refuses a provider feature the plan does not allow, and records one it does", async () => {
  const search = { model: "m", input: "x", store: false, tools: [{ type: "web_search" }] };
  const denied = refused(await decide(openaiResponses, search));
  assert.deepEqual([denied.refusal, denied.status], ["provider_feature", 403]);
  assert.match(denied.message, /^Provider feature not allowed: "web_search" at tools\[0\]\.type/);
  const allowed = admitted(
    await decide(openaiResponses, search, { allowedFeatures: ["web_search"] }),
  );
  assert.deepEqual(allowed.features, ["web_search"]);
});

Deno.test("admitModelCall() forwards a Responses call without store as store false", async () => {
  const decision = admitted(await decide(openaiResponses, { model: "m", input: "x" }));
  assert.deepEqual(forwardedJson(decision), { model: "m", input: "x", store: false });
});

Deno.test("admitModelCall() asks a Chat stream for its usage", async () => {
  const decision = admitted(await decide(openaiChat, { ...CHAT, stream: true }));
  assert.equal(decision.streamed, true);
  assert.deepEqual(forwardedJson(decision).stream_options, { include_usage: true });
});

Deno.test("admitModelCall() counts forwarded calls against the step cap", async () => {
  const state = { admitted: 0 };
  admitted(await decide(openaiChat, CHAT, { stepCap: 1 }, state));
  assert.equal(state.admitted, 1);
  const over = refused(await decide(openaiChat, CHAT, { stepCap: 1 }, state));
  assert.deepEqual([over.refusal, over.message], [
    "step_cap",
    "Step cap reached: 1 model calls of 1 allowed",
  ]);
});

Deno.test("admitModelCall() applies the output policy, then lowers the cap to what the token cap leaves", async () => {
  // {"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":600} is 74 bytes
  // after the policy; model "m" has no known tokenizer and Chat no count endpoint: the bound is
  // a token a byte, 74 + 48 (room for a cap field) = 122, and 1000 - 122 = 878 is more than 600.
  const budget = new TokenBudget(1000);
  const kept = admitted(
    await decide(openaiChat, CHAT, { maxOutputTokens: 600, budget }),
  );
  assert.deepEqual(
    [
      forwardedJson(kept).max_tokens,
      kept.outputCap,
      kept.promptBound,
      kept.promptBoundSource,
      kept.ticket?.lowered,
    ],
    [600, 600, 122, "bytes", false],
  );
  budget.settle(kept.ticket!, 700);
  // 300 left: 300 - 122 = 178 for the next call's output.
  const lowered = admitted(await decide(openaiChat, CHAT, { maxOutputTokens: 600, budget }));
  assert.deepEqual([forwardedJson(lowered).max_tokens, lowered.ticket?.lowered], [178, true]);
  budget.settle(lowered.ticket!, 179);
  // 121 left, under the 122 of the bound: refused.
  const none = refused(await decide(openaiChat, CHAT, { maxOutputTokens: 600, budget }));
  assert.equal(none.refusal, "token_cap");
});
