import assert from "node:assert/strict";
import { accountStream } from "./stream_accounting.ts";
import { SilenceTimer } from "./forward_call.ts";
import { callRecord } from "./_call_record_for_test.ts";
import { openaiChat } from "./api/openai_chat.ts";
import type { RelayCallRecord } from "../../analysis/schema/relay_call_record.ts";

const CHUNKS = [
  { model: "m-3", choices: [{ index: 0, delta: { content: "he" } }] },
  { model: "m-3", choices: [{ index: 0, delta: { content: "llo" }, finish_reason: "stop" }] },
  { model: "m-3", choices: [], usage: { prompt_tokens: 7, completion_tokens: 2 } },
];

/** An upstream event stream of `CHUNKS` (and `[DONE]`), failing after `failAfter` events. */
function upstream(failAfter: number | null = null): Response {
  const events = [
    ...CHUNKS.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
    "data: [DONE]\n\n",
  ];
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (failAfter !== null && sent === failAfter) {
        return controller.error(new Error("connection reset"));
      }
      if (sent === events.length) return controller.close();
      controller.enqueue(new TextEncoder().encode(events[sent++]));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

async function account(response: Response, closing = new AbortController().signal) {
  const record = callRecord(1, { usage: null, server_model_id: null, status: 502 });
  let finished: RelayCallRecord | null = null;
  const sent: string[] = [];
  const silence = new SilenceTimer(5000);
  const out = accountStream(response, {
    record,
    form: "sse",
    started: performance.now(),
    reader: openaiChat.streamReader({ stream: true }),
    api: openaiChat,
    key: "sk-key",
    silence,
    closing,
    onSent: (text) => sent.push(text),
    onFinished: (done) => finished = done,
  });
  const text = await out.response.text();
  await out.finished;
  silence.stop();
  return { record: finished! as RelayCallRecord, text, sent };
}

Deno.test("accountStream() passes the events back and records the stream's evidence at its end", async () => {
  const { record, sent } = await account(upstream());
  assert.deepEqual(
    [record.status, record.server_model_id, record.usage, record.fault, record.spend_unknown],
    [200, "m-3", { prompt_tokens: 7, completion_tokens: 2 }, null, undefined],
  );
  // The usage chunk the agent did not ask for is withheld; [DONE] is passed on.
  assert.equal(sent.length, 3);
  assert.equal(sent.at(-1), "data: [DONE]\n\n");
  assert.ok(record.first_byte_ms !== null && record.first_byte_ms! >= 0);
});

Deno.test("accountStream() makes a stream that fails before its usage a provider fault of unknown spend", async () => {
  const { record, text } = await account(upstream(1));
  assert.deepEqual([record.fault, record.usage, record.spend_unknown], [
    "provider_fault",
    null,
    true,
  ]);
  assert.match(record.detail, /^Upstream stream failed after 1 event: connection reset/);
  // The agent's last event is an error in the API's form.
  assert.match(text.trim().split("\n\n").at(-1)!, /"code":"provider_fault"/);
});

Deno.test("accountStream() records a stream cut off by the relay's close as aborted", async () => {
  const closing = new AbortController();
  closing.abort();
  const { record } = await account(upstream(2), closing.signal);
  assert.deepEqual([record.fault, record.spend_unknown], ["aborted", true]);
});
