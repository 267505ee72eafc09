import assert from "node:assert/strict";
import { CallBodyLog } from "./call_bodies.ts";

Deno.test("CallBodyLog keeps each body's head, its whole length, and redacts before cutting", () => {
  const log = new CallBodyLog("sk-secret", { maxBodyBytes: 10 });
  // the key straddles the 10-byte cut: redacted first, so no prefix of it is kept
  log.open(2, "/v1/responses", "abcdesk-secretxyz", 17);
  log.open(1, "/v1/messages", "{}", 2);
  log.append(2, "data: 1\n\n");
  log.append(2, "data: 2\n\n");
  assert.deepEqual(log.list(), [
    {
      index: 1,
      endpoint: "/v1/messages",
      request: { text: "{}", bytes: 2, truncated: false },
      response: { text: "", bytes: 0, truncated: false },
    },
    {
      index: 2,
      endpoint: "/v1/responses",
      request: { text: "abcde[reda", bytes: 17, truncated: true },
      // 9 + 9 bytes passed back; the first 10 kept
      response: { text: "data: 1\n\nd", bytes: 18, truncated: true },
    },
  ]);
});

Deno.test("CallBodyLog cuts at whole UTF-8 characters", () => {
  const log = new CallBodyLog("k", { maxBodyBytes: 5 });
  // "é" is 2 bytes: "aé" 3 bytes, "aéé" 5, "aééé" 7
  log.open(1, "/v1/messages", "aééé", 7);
  assert.deepEqual(log.list()[0].request, { text: "aéé", bytes: 7, truncated: true });
  const odd = new CallBodyLog("k", { maxBodyBytes: 4 });
  odd.open(1, "/v1/messages", "aééé", 7);
  // 4 bytes cannot hold the second "é" whole: 3 bytes kept
  assert.equal(odd.list()[0].request.text, "aé");
});

Deno.test("CallBodyLog bounds the bytes kept per episode and the calls logged", () => {
  const log = new CallBodyLog("k", { maxBodyBytes: 8, maxTotalBytes: 12, maxCalls: 3 });
  for (let i = 1; i <= 5; i++) log.open(i, "/v1/chat/completions", "12345678", 8);
  const kept = log.list();
  assert.deepEqual(kept.map((call) => call.index), [1, 2, 3]);
  assert.deepEqual(kept.map((call) => call.request.text), ["12345678", "1234", ""]);
  assert.deepEqual(kept.map((call) => call.request.bytes), [8, 8, 8]);
  log.append(1, "more");
  assert.deepEqual(log.list()[0].response, { text: "", bytes: 4, truncated: true });
});

Deno.test("CallBodyLog marks a body not read whole as truncated", () => {
  const log = new CallBodyLog("k");
  log.open(1, "/v1/responses", "", 1_048_576);
  assert.deepEqual(log.list()[0].request, { text: "", bytes: 1_048_576, truncated: true });
});
