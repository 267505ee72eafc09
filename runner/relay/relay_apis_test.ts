/**
 * The relay on the Responses and Messages APIs (issue 8), against inline
 * fake upstreams: evidence, caps, output cap injection, key placement,
 * refusal of the other vendor's API, per-call bodies.
 */
import assert from "node:assert/strict";
import { evidenceGate } from "./evidence_gate.ts";
import {
  messagesBody,
  messagesStream,
  responsesBody,
  responsesStream,
  RIG_KEY,
  sse,
  withRelayRig,
} from "./_api_fakes_for_test.ts";

const RESPONSES_USAGE = {
  input_tokens: 40,
  input_tokens_details: { cached_tokens: 32 },
  output_tokens: 9,
  output_tokens_details: { reasoning_tokens: 4 },
  total_tokens: 49,
};
const MESSAGES_USAGE = {
  input_tokens: 6,
  output_tokens: 11,
  cache_creation_input_tokens: 50,
  cache_read_input_tokens: 300,
};
const RESPONSE = {
  model: "gpt-x-2026",
  text: "done",
  tools: [{ name: "shell", arguments: '{"cmd":"ls"}' }],
  usage: RESPONSES_USAGE,
};
const MESSAGE = {
  model: "claude-x-2026",
  text: "ok",
  tools: [{ name: "bash", arguments: '{"cmd":"ls"}' }],
  usage: MESSAGES_USAGE,
};

Deno.test("startRelay() meters a whole Responses call with the key as a Bearer token", async () => {
  const request = { model: "m", input: "hi", max_output_tokens: 64 };
  await withRelayRig("openai", () => Response.json(responsesBody(RESPONSE)), {}, async (rig) => {
    const answer = await rig.send("/v1/responses", {
      body: request,
      headers: { authorization: "Bearer sandbox", "x-api-key": "sandbox" },
    });
    assert.equal(answer.status, 200);
    const [seen] = rig.upstream.requests;
    assert.equal(seen.path, "/v1/responses");
    assert.equal(seen.headers.get("authorization"), `Bearer ${RIG_KEY}`);
    assert.equal(seen.headers.has("x-api-key"), false);
    // Responses stores a response unless told not to: the relay says `store: false`; and a call
    // asked for whole is forwarded streamed (issue 21), answered whole here because this upstream
    // answers whole regardless of `stream`.
    assert.deepEqual(seen.body, { ...request, store: false, stream: true });
    const [record] = rig.relay.records();
    assert.deepEqual(
      {
        model: record.server_model_id,
        usage: record.usage,
        detail: record.usage_detail,
        tools: record.tool_calls,
        cap: record.output_cap,
      },
      {
        model: "gpt-x-2026",
        usage: { prompt_tokens: 40, completion_tokens: 9 },
        detail: {
          input_tokens: 40,
          output_tokens: 9,
          cached_tokens: 32,
          reasoning_tokens: 4,
        },
        tools: 1,
        cap: 64,
      },
    );
    // This upstream ignores `stream` and answers whole: passed back as it came, not reassembled.
    assert.equal(record.reassembled, undefined);
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
    const [bodies] = rig.relay.callBodies();
    assert.deepEqual(JSON.parse(bodies.request.text), request);
    assert.equal(bodies.response.text, answer.text);
  });
});

Deno.test("startRelay() passes a Responses stream through unchanged and reads response.completed", async () => {
  const upstreamText = await responsesStream(RESPONSE).text();
  await withRelayRig("openai", () => responsesStream(RESPONSE), {}, async (rig) => {
    const request = { model: "m", input: "hi", stream: true };
    const answer = await rig.send("/v1/responses", { body: request });
    assert.equal(answer.headers.get("content-type"), "text/event-stream");
    assert.equal(answer.text, upstreamText);
    // Responses streams carry usage unasked: the body goes as the agent sent it, but for
    // `store: false` (Responses stores a response unless told not to)
    assert.deepEqual(rig.upstream.requests[0].body, { ...request, store: false });
    const [record] = rig.relay.records();
    assert.deepEqual(record.usage, { prompt_tokens: 40, completion_tokens: 9 });
    assert.equal(record.server_model_id, "gpt-x-2026");
    assert.equal(record.tool_calls, 1);
    assert.equal(record.detail, "");
    assert.equal(typeof record.first_byte_ms, "number");
    assert.equal(rig.relay.callBodies()[0].response.text, upstreamText);
  });
});

Deno.test("startRelay() brings a Responses call's max_output_tokens within the plan's", async () => {
  await withRelayRig(
    "openai",
    () => Response.json(responsesBody(RESPONSE)),
    { maxOutputTokens: 100 },
    async (rig) => {
      for (const cap of [undefined, 500, 50]) {
        await rig.send("/v1/responses", {
          body: {
            model: "m",
            input: "x",
            ...(cap === undefined ? {} : { max_output_tokens: cap }),
          },
        });
      }
      assert.deepEqual(rig.upstream.requests.map((r) => r.body?.max_output_tokens), [100, 100, 50]);
      assert.deepEqual(rig.upstream.requests.map((r) => r.body?.max_tokens), [
        undefined,
        undefined,
        undefined,
      ]);
      assert.deepEqual(rig.relay.records().map((r) => r.output_cap), [100, 100, 50]);
    },
  );
});

Deno.test("startRelay() lowers a Responses call's max_output_tokens to what the token cap leaves and refuses background runs", async () => {
  await withRelayRig(
    "openai",
    () => Response.json(responsesBody(RESPONSE)),
    { tokenCap: 1000 },
    async (rig) => {
      const background = await rig.send("/v1/responses", {
        body: { model: "m", input: "x", max_output_tokens: 10, background: true },
      });
      assert.equal(background.status, 400);
      assert.equal(rig.upstream.requests.length, 0);
      const lowered = await rig.send("/v1/responses", {
        body: { model: "m", input: "x", max_output_tokens: 2000 },
      });
      assert.equal(lowered.status, 200);
      // Forwarded as {"model":"m","input":"x","max_output_tokens":2000,"store":false}, 64 bytes,
      // of a model without a known tokenizer: its prompt bound is a token a byte, 64 + 48 (room
      // for a cap field) = 112, which leaves 1000 - 112 = 888 for the output. (`stream: true`,
      // the whole call forwarded streamed, comes after the bound is taken: it is no prompt token.)
      assert.deepEqual(rig.upstream.requests[0].body, {
        model: "m",
        input: "x",
        max_output_tokens: 888,
        store: false,
        stream: true,
      });
      const [refused, forwarded] = rig.relay.records();
      assert.equal(refused.refusal, "bad_request");
      assert.deepEqual(
        [
          forwarded.output_cap,
          forwarded.prompt_bound,
          forwarded.prompt_bound_source,
          forwarded.cap_lowered,
        ],
        [888, 112, "bytes", true],
      );
      assert.equal(rig.relay.totals().unsupported_requests, 0);
    },
  );
});

Deno.test("startRelay() meters a whole Messages call with x-api-key and the agent's version headers", async () => {
  const request = { model: "m", max_tokens: 256, messages: [{ role: "user", content: "hi" }] };
  await withRelayRig("anthropic", () => Response.json(messagesBody(MESSAGE)), {}, async (rig) => {
    const answer = await rig.send("/v1/messages", {
      body: request,
      headers: {
        "x-api-key": "sandbox",
        authorization: "Bearer sandbox",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "token-efficient-tools-2025-02-19",
      },
    });
    assert.equal(answer.status, 200);
    const [seen] = rig.upstream.requests;
    assert.deepEqual(
      [
        seen.headers.get("x-api-key"),
        seen.headers.get("authorization"),
        seen.headers.get("anthropic-version"),
        seen.headers.get("anthropic-beta"),
      ],
      [RIG_KEY, null, "2023-06-01", "token-efficient-tools-2025-02-19"],
    );
    const [record] = rig.relay.records();
    // 6 + 50 + 300 billed input tokens
    assert.deepEqual(record.usage, { prompt_tokens: 356, completion_tokens: 11 });
    assert.deepEqual(record.usage_detail, MESSAGES_USAGE);
    assert.deepEqual([record.tool_calls, record.output_cap], [1, 256]);
    assert.equal(rig.relay.totals().total_tokens, 367);
  });
});

Deno.test("startRelay() reads a Messages stream's usage from message_start and message_delta", async () => {
  const upstreamText = await messagesStream(MESSAGE).text();
  await withRelayRig("anthropic", () => messagesStream(MESSAGE), {}, async (rig) => {
    const request = { model: "m", max_tokens: 64, stream: true, messages: [] };
    const answer = await rig.send("/v1/messages", { body: request });
    assert.equal(answer.text, upstreamText);
    assert.deepEqual(rig.upstream.requests[0].body, request);
    const [record] = rig.relay.records();
    assert.deepEqual(record.usage, { prompt_tokens: 356, completion_tokens: 11 });
    assert.equal(record.server_model_id, "claude-x-2026");
    assert.equal(record.tool_calls, 1);
    assert.equal(record.detail, "");
    assert.equal(evidenceGate(rig.relay.records()).status, "scored");
  });
});

Deno.test("startRelay() forwards Claude Code's /v1/messages?beta=true with its query", async () => {
  await withRelayRig("anthropic", () => Response.json(messagesBody(MESSAGE)), {}, async (rig) => {
    const answer = await rig.send("/v1/messages?beta=true", {
      body: { model: "m", max_tokens: 10, messages: [] },
    });
    assert.equal(answer.status, 200);
    assert.equal(new URL(rig.upstream.requests[0].url).search, "?beta=true");
    assert.equal(rig.relay.records()[0].endpoint, "/v1/messages");
  });
});

Deno.test("startRelay() sets max_tokens on a Messages call under the plan's output cap", async () => {
  await withRelayRig(
    "anthropic",
    () => Response.json(messagesBody(MESSAGE)),
    { maxOutputTokens: 128 },
    async (rig) => {
      await rig.send("/v1/messages", { body: { model: "m", messages: [] } });
      await rig.send("/v1/messages", { body: { model: "m", max_tokens: 4096, messages: [] } });
      assert.deepEqual(rig.upstream.requests.map((r) => r.body?.max_tokens), [128, 128]);
      assert.deepEqual(rig.relay.records().map((r) => r.output_cap), [128, 128]);
    },
  );
});

Deno.test("startRelay() refuses over the step cap in Anthropic's error shape", async () => {
  await withRelayRig(
    "anthropic",
    () => Response.json(messagesBody(MESSAGE)),
    { stepCap: 1 },
    async (rig) => {
      const body = { model: "m", max_tokens: 10, messages: [] };
      assert.equal((await rig.send("/v1/messages", { body })).status, 200);
      const refused = await rig.send("/v1/messages", { body });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.json(), {
        type: "error",
        error: {
          type: "budget_exhausted",
          message: "Step cap reached: 1 model calls of 1 allowed",
          details: { error_code: "step_cap" },
        },
      });
      assert.equal(rig.upstream.requests.length, 1);
      assert.equal(rig.relay.stopReason(), "step_cap");
      assert.equal(rig.relay.callBodies()[1].response.text, refused.text);
    },
  );
});

Deno.test("startRelay() refuses, records and counts the other vendor's model calls", async () => {
  await withRelayRig("openai", () => Response.json(responsesBody(RESPONSE)), {}, async (rig) => {
    const messages = await rig.send("/v1/messages", {
      body: { model: "m", max_tokens: 5, messages: [] },
    });
    assert.equal(messages.status, 404);
    // answered in the error shape of the API the agent called, Anthropic's
    assert.deepEqual(
      (messages.json() as { type: string; error: { details: unknown } }).error.details,
      { error_code: "unsupported" },
    );
    assert.equal(rig.upstream.requests.length, 0);
    assert.deepEqual(
      rig.relay.records().map((r) => [r.endpoint, r.forwarded, r.refusal]),
      [["/v1/messages", false, "unsupported"]],
    );
    const totals = rig.relay.totals();
    assert.deepEqual(
      [
        totals.model_calls,
        totals.refused_calls,
        totals.denied_requests,
        totals.unsupported_requests,
      ],
      [0, 1, 0, 1],
    );
  });
  await withRelayRig("anthropic", () => Response.json({ data: [] }), {}, async (rig) => {
    for (const path of ["/v1/chat/completions", "/v1/responses"]) {
      const refused = await rig.send(path, { body: { model: "m" } });
      assert.equal(refused.status, 404);
      // answered in the error shape of the API the agent called
      assert.equal((refused.json() as { error: { code: string } }).error.code, "unsupported");
    }
    // the model list is forwarded with the Anthropic key placement
    assert.equal((await rig.send("/v1/models")).status, 200);
    assert.deepEqual(
      rig.upstream.requests.map((r) => [r.method, r.path, r.headers.get("x-api-key")]),
      [["GET", "/v1/models", RIG_KEY]],
    );
    assert.deepEqual(
      [rig.relay.totals().unsupported_requests, rig.relay.totals().other_requests],
      [2, 1],
    );
  });
});

Deno.test("startRelay() ends a Messages stream that fails midway with an Anthropic error event", async () => {
  const start = await messagesStream(MESSAGE).text();
  const firstEvent = start.slice(0, start.indexOf("\n\n") + 2);
  const failing = () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(firstEvent));
          setTimeout(() => controller.error(new Error("connection reset")), 20);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  await withRelayRig("anthropic", failing, {}, async (rig) => {
    const answer = await rig.send("/v1/messages", {
      body: { model: "m", max_tokens: 5, stream: true, messages: [] },
    });
    const last = answer.text.slice(answer.text.lastIndexOf("event: error\n"));
    assert.match(last, /^event: error\ndata: .*\n\n$/);
    const error = JSON.parse(last.slice(last.indexOf("data: ") + 6));
    assert.equal(error.type, "error");
    assert.equal(error.error.details.error_code, "provider_fault");
    const [record] = rig.relay.records();
    assert.equal(record.fault, "provider_fault");
    // message_start alone carries no final usage
    assert.equal(record.usage, null);
  });
});

Deno.test("startRelay() redacts the key in a Responses stream and in the call bodies", async () => {
  const leaky = () =>
    sse([
      ["response.created", { type: "response.created", response: { model: "m", note: RIG_KEY } }],
      ["response.completed", {
        type: "response.completed",
        response: { model: "m", output: [], usage: RESPONSES_USAGE },
      }],
    ]);
  await withRelayRig("openai", leaky, {}, async (rig) => {
    const answer = await rig.send("/v1/responses", {
      body: { model: "m", input: RIG_KEY, stream: true },
    });
    assert.equal(answer.text.includes(RIG_KEY), false);
    assert.match(answer.text, /\[redacted\]/);
    const [bodies] = rig.relay.callBodies();
    assert.equal(bodies.request.text, '{"model":"m","input":"[redacted]","stream":true}');
    assert.equal(bodies.response.text.includes(RIG_KEY), false);
  });
});

// Issue 21: a call asked for whole is forwarded streamed and answered whole from the events.

Deno.test("startRelay() answers a whole Responses call from its stream with response.completed's response", async () => {
  await withRelayRig("openai", () => responsesStream(RESPONSE), {}, async (rig) => {
    const request = { model: "m", input: "hi" };
    const answer = await rig.send("/v1/responses", { body: request });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    assert.deepEqual(answer.json(), responsesBody(RESPONSE));
    assert.deepEqual(rig.upstream.requests[0].body, { ...request, store: false, stream: true });
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.reassembled, record.usage, record.tool_calls, record.fault],
      [true, { prompt_tokens: 40, completion_tokens: 9 }, 1, null],
    );
    assert.equal(rig.relay.callBodies()[0].response.text, answer.text);
  });
});

Deno.test("startRelay() answers a whole Messages call from its stream as the whole message", async () => {
  await withRelayRig("anthropic", () => messagesStream(MESSAGE), {}, async (rig) => {
    const request = { model: "m", max_tokens: 64, messages: [] };
    const answer = await rig.send("/v1/messages", {
      body: request,
      headers: { "anthropic-version": "2023-06-01" },
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.json(), messagesBody(MESSAGE));
    assert.deepEqual(rig.upstream.requests[0].body, { ...request, stream: true });
    const [record] = rig.relay.records();
    assert.deepEqual(record.usage, { prompt_tokens: 356, completion_tokens: 11 });
    assert.deepEqual(record.usage_detail, MESSAGES_USAGE);
    assert.equal(record.reassembled, true);
  });
});

Deno.test("startRelay() answers a whole call whose stream ends before its last event 502, spend unknown", async () => {
  // message_start and a text delta, then the connection ends: no message_delta, no message_stop.
  const cut = () =>
    sse([
      ["message_start", {
        type: "message_start",
        message: { id: "m", type: "message", role: "assistant", model: "claude-x", content: [] },
      }],
      ["content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }],
      ["content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "half" },
      }],
    ]);
  await withRelayRig("anthropic", cut, {}, async (rig) => {
    const answer = await rig.send("/v1/messages", {
      body: { model: "m", max_tokens: 64, messages: [] },
      headers: { "anthropic-version": "2023-06-01" },
    });
    assert.equal(answer.status, 502);
    const [record] = rig.relay.records();
    assert.deepEqual(
      [record.status, record.upstream_status, record.fault, record.spend_unknown, record.usage],
      [502, 200, "provider_fault", true, null],
    );
    assert.equal(
      record.detail,
      "The upstream stream ended after 3 events, before its last event: no whole answer to give; " +
        "Upstream stream ended without message_stop",
    );
    // The Messages error form, which the Anthropic SDK reads as an APIError.
    assert.deepEqual(answer.json(), {
      type: "error",
      error: {
        type: "upstream_error",
        message:
          "The upstream stream ended after 3 events, before its last event: no whole answer to give",
        details: { error_code: "provider_fault" },
      },
    });
    assert.equal(evidenceGate(rig.relay.records()).invalid_reason, "provider_fault");
  });
});

Deno.test("startRelay() answers a whole call whose stream carries an error event 502, a provider fault", async () => {
  const failing = () =>
    sse([
      [null, {
        id: "c",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: "a" } }],
      }],
      [null, { error: { message: "The server had an error", type: "server_error" } }],
      [null, "[DONE]"],
    ]);
  await withRelayRig("openai", failing, {}, async (rig) => {
    const answer = await rig.send("/v1/chat/completions", {
      body: { model: "m", messages: [] },
    });
    assert.equal(answer.status, 502);
    const message = 'Upstream sent an error event: "The server had an error"';
    assert.deepEqual(answer.json(), {
      error: { message, type: "upstream_error", param: null, code: "provider_fault" },
    });
    const [record] = rig.relay.records();
    assert.deepEqual([record.fault, record.detail, record.spend_unknown], [
      "provider_fault",
      message,
      undefined,
    ]);
  });
});

Deno.test("startRelay() passes an error status to a whole call through as before", async () => {
  const overloaded = () =>
    Response.json({ type: "error", error: { type: "overloaded_error", message: "busy" } }, {
      status: 529,
    });
  await withRelayRig("anthropic", overloaded, {}, async (rig) => {
    const answer = await rig.send("/v1/messages", {
      body: { model: "m", max_tokens: 8, messages: [] },
      headers: { "anthropic-version": "2023-06-01" },
    });
    assert.equal(answer.status, 529);
    assert.deepEqual(answer.json(), await overloaded().json());
    const [record] = rig.relay.records();
    assert.deepEqual([record.fault, record.upstream_status, record.reassembled], [
      "provider_fault",
      529,
      undefined,
    ]);
  });
});
