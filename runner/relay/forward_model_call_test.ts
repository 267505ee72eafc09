import assert from "node:assert/strict";
import { admitModelCall, type Admitted } from "./admission.ts";
import { admittedRecord, type ForwardContext, forwardModelCall } from "./forward_model_call.ts";
import { CallLog } from "./call_log.ts";
import { openaiChat } from "./api/openai_chat.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";
import type { Upstream } from "./forward_call.ts";

const KEY = "sk-forward-test";
const CHAT = { model: "m", messages: [{ role: "user", content: "hi" }] };

async function admitted(body: unknown): Promise<Admitted> {
  const request = new Request("http://relay/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify(body),
  });
  const path = "/v1/chat/completions";
  const decided = await admitModelCall(
    request,
    { api: openaiChat, path, query: "", target: path },
    {
      rules: {
        upstreamKind: "openai",
        maxBodyBytes: 1 << 20,
        bodyDeadlineMs: 5000,
        pinnedModel: null,
        maxOutputTokens: null,
        stepCap: null,
        budget: null,
        allowedFeatures: [],
        countPrompt: () => Promise.resolve(null),
      },
      state: { admitted: 0 },
    },
  );
  assert.equal(decided.kind, "admitted");
  return decided as Admitted;
}

/** Forwards CHAT to `base` and returns the agent's status, body and the finished record. */
async function forward(base: string, closing = new AbortController().signal) {
  const upstream: Upstream = { base, kind: "openai", key: KEY, timeoutMs: 2000, closing };
  const log = new CallLog(KEY);
  let finished: RelayCallRecord | null = null;
  const context: ForwardContext = {
    upstream,
    log,
    answer: (status, error) => Response.json({ error }, { status }),
    onFinished: (record) => finished = record,
  };
  const call = {
    index: 1,
    endpoint: "/v1/chat/completions",
    api: openaiChat,
    headers: new Headers({ "content-type": "application/json" }),
    admitted: await admitted(CHAT),
  };
  log.bodies.open(1, call.endpoint, "", 0);
  const { response, over } = await forwardModelCall(call, context);
  const text = await response.text();
  await over;
  return { status: response.status, text, record: finished! as RelayCallRecord, log };
}

Deno.test("admittedRecord() starts a forwarded call's record at 502 with what admission decided", async () => {
  const record = admittedRecord({
    index: 3,
    endpoint: "/v1/chat/completions",
    api: openaiChat,
    headers: new Headers(),
    admitted: await admitted({ ...CHAT, max_tokens: 7 }),
  });
  assert.deepEqual(
    [record.index, record.forwarded, record.status, record.output_cap, record.prompt_bound],
    [3, true, 502, 7, undefined],
  );
});

Deno.test("forwardModelCall() passes back an upstream that answers whole, with its evidence and the key redacted", async () => {
  const seen: unknown[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    seen.push(await request.json());
    return Response.json({
      model: "m-9",
      choices: [{ message: { role: "assistant", content: `echo ${KEY}` } }],
      usage: { prompt_tokens: 4, completion_tokens: 2 },
    });
  });
  try {
    const { status, text, record, log } = await forward(`http://127.0.0.1:${server.addr.port}/v1`);
    assert.equal(status, 200);
    assert.equal(JSON.parse(text).choices[0].message.content, "echo [redacted]");
    // Asked for whole, forwarded in stream form (the upstream answered whole anyway).
    assert.deepEqual(seen, [{ ...CHAT, stream: true, stream_options: { include_usage: true } }]);
    assert.deepEqual([record.server_model_id, record.usage, record.fault], [
      "m-9",
      { prompt_tokens: 4, completion_tokens: 2 },
      null,
    ]);
    assert.equal(log.callBodies()[0].response.text, text);
  } finally {
    await server.shutdown();
  }
});

Deno.test("forwardModelCall() words an unreachable upstream as a provider fault with no spend", async () => {
  // Port 9 (discard) on loopback: nothing listens.
  const { status, text, record } = await forward("http://127.0.0.1:9/v1");
  assert.equal(status, 502);
  assert.equal(JSON.parse(text).error.code, "provider_fault");
  assert.deepEqual([record.fault, record.spend_unknown], ["provider_fault", undefined]);
  assert.match(record.detail, /^Upstream unreachable: /);
});

Deno.test("forwardModelCall() records a call cut off by the relay's close as aborted, spend unknown", async () => {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async () => {
    await new Promise((done) => setTimeout(done, 500));
    return Response.json({});
  });
  const closing = new AbortController();
  setTimeout(() => closing.abort(), 50);
  try {
    const { status, record } = await forward(
      `http://127.0.0.1:${server.addr.port}/v1`,
      closing.signal,
    );
    assert.equal(status, 503);
    assert.deepEqual([record.fault, record.spend_unknown], ["aborted", true]);
  } finally {
    await server.shutdown();
  }
});
