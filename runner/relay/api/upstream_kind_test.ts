import assert from "node:assert/strict";
import { errorBody, upstreamHeaders } from "./upstream_kind.ts";

const AGENT = new Headers({
  "content-type": "application/json",
  accept: "text/event-stream",
  authorization: "Bearer sandbox",
  "x-api-key": "sandbox",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "prompt-caching-2024-07-31",
  "openai-organization": "org-x",
});

Deno.test("upstreamHeaders() puts an OpenAI key in Authorization and drops the agent's keys", () => {
  const sent = upstreamHeaders("openai", { key: "sk-up", incoming: AGENT, withBody: true });
  assert.deepEqual([...sent].sort(), [
    ["accept", "text/event-stream"],
    ["authorization", "Bearer sk-up"],
    ["content-type", "application/json"],
  ]);
});

Deno.test("upstreamHeaders() puts an Anthropic key in x-api-key with the version and beta headers", () => {
  const sent = upstreamHeaders("anthropic", { key: "sk-ant", incoming: AGENT, withBody: true });
  assert.deepEqual([...sent].sort(), [
    ["accept", "text/event-stream"],
    ["anthropic-beta", "prompt-caching-2024-07-31"],
    ["anthropic-version", "2023-06-01"],
    ["content-type", "application/json"],
    ["x-api-key", "sk-ant"],
  ]);
});

Deno.test("upstreamHeaders() sets a JSON content type on a body without one, none on a GET", () => {
  const bare = new Headers();
  assert.equal(
    upstreamHeaders("openai", { key: "k", incoming: bare, withBody: true }).get("content-type"),
    "application/json",
  );
  assert.equal(
    upstreamHeaders("anthropic", { key: "k", incoming: bare, withBody: false }).has("content-type"),
    false,
  );
});

Deno.test("errorBody() uses each vendor's error shape", () => {
  const error = { message: "Step cap reached", type: "budget_exhausted", code: "step_cap" };
  assert.deepEqual(errorBody("openai", error, 403), {
    error: { message: "Step cap reached", type: "budget_exhausted", param: null, code: "step_cap" },
  });
  assert.deepEqual(errorBody("anthropic", error, 403), {
    type: "error",
    error: {
      type: "budget_exhausted",
      message: "Step cap reached",
      details: { error_code: "step_cap" },
    },
  });
  assert.deepEqual(errorBody("gemini", error, 403), {
    error: {
      code: 403,
      message: "Step cap reached",
      status: "PERMISSION_DENIED",
      details: [{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "step_cap",
        domain: "ledgerbench",
      }],
    },
  });
});
