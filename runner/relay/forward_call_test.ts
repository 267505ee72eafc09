import assert from "node:assert/strict";
import { passBack, readWhole, recordWholeAnswer, SilenceTimer } from "./forward_call.ts";
import { callRecord } from "./_call_record_for_test.ts";
import { openaiChat } from "./api/openai_chat.ts";

const delay = (ms: number) => new Promise((done) => setTimeout(done, ms));

Deno.test("SilenceTimer fires only after the upstream was silent for its whole limit", async () => {
  const timer = new SilenceTimer(100);
  // Bytes every 40 ms for 400 ms: never 100 ms of silence.
  for (let i = 0; i < 10; i++) {
    await delay(40);
    timer.heard();
  }
  assert.equal(timer.signal.aborted, false);
  await delay(200);
  assert.equal(timer.signal.aborted, true);
  assert.equal((timer.signal.reason as DOMException).name, "TimeoutError");
});

Deno.test("SilenceTimer.stop() ends the limit", async () => {
  const timer = new SilenceTimer(20);
  timer.stop();
  await delay(60);
  assert.equal(timer.signal.aborted, false);
});

Deno.test("readWhole() hears every chunk of a slow answer", async () => {
  const timer = new SilenceTimer(150);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === 6) return controller.close();
      await delay(60);
      sent += 1;
      controller.enqueue(new TextEncoder().encode(`${sent}`));
    },
  });
  // 6 chunks 60 ms apart: 360 ms in all, longer than the 150 ms limit, never silent for it.
  const whole = await readWhole(new Response(body, { status: 200 }), timer);
  timer.stop();
  assert.equal(new TextDecoder().decode(whole.body), "123456");
  assert.equal(timer.signal.aborted, false);
});

Deno.test("passBack() redacts the key and keeps only the forwarded headers", () => {
  const { response, text } = passBack({
    status: 200,
    headers: new Headers({
      "content-type": "application/json",
      "set-cookie": "a=b",
      "x-ratelimit-limit": "9",
    }),
    body: new TextEncoder().encode('{"echo":"sk-key"}'),
  }, "sk-key");
  assert.equal(text, '{"echo":"[redacted]"}');
  assert.deepEqual([...response.headers.keys()].sort(), ["content-type", "x-ratelimit-limit"]);
});

Deno.test("recordWholeAnswer() records evidence, a rate limit and provider faults", () => {
  const answer = (status: number, body: unknown) => ({
    status,
    headers: new Headers(),
    body: new TextEncoder().encode(JSON.stringify(body)),
  });
  const ok = callRecord(1, { usage: null, server_model_id: null });
  recordWholeAnswer(
    ok,
    answer(200, {
      model: "m-2",
      choices: [{ message: { content: "x" } }],
      usage: { prompt_tokens: 3, completion_tokens: 4 },
    }),
    openaiChat,
  );
  assert.deepEqual([ok.server_model_id, ok.usage, ok.fault], [
    "m-2",
    { prompt_tokens: 3, completion_tokens: 4 },
    null,
  ]);
  const faults = [429, 500, 401].map((status) => {
    const record = callRecord(2);
    recordWholeAnswer(record, answer(status, {}), openaiChat);
    return [record.fault, record.detail];
  });
  assert.deepEqual(faults, [
    ["rate_limited", "Upstream answered 429"],
    ["provider_fault", "Upstream answered 500"],
    ["provider_fault", "Upstream rejected the relay's key: status 401"],
  ]);
});
