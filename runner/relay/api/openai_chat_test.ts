import assert from "node:assert/strict";
import { openaiChat } from "./openai_chat.ts";
import type { SseEvent } from "../_sse_splitter.ts";

const event = (data: unknown): SseEvent => ({
  raw: "",
  data: typeof data === "string" ? data : JSON.stringify(data),
});

Deno.test("openaiChat.streamedRequest() asks for usage and keeps the agent's stream_options", () => {
  assert.deepEqual(
    openaiChat.streamedRequest({ stream: true, stream_options: { include_obfuscation: false } }),
    { stream: true, stream_options: { include_obfuscation: false, include_usage: true } },
  );
});

Deno.test("openaiChat.streamReader() withholds the usage chunk from an agent that did not ask", () => {
  const usageChunk = { model: "m", choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } };
  const naive = openaiChat.streamReader({ stream: true });
  assert.deepEqual(naive.add(event({ model: "m", choices: [{ delta: { content: "hi" } }] })), {
    pass: true,
    end: false,
  });
  assert.deepEqual(naive.add(event(usageChunk)), { pass: false, end: false });
  assert.deepEqual(naive.add(event("[DONE]")), { pass: true, end: true });
  assert.deepEqual(naive.evidence().usage, { prompt_tokens: 9, completion_tokens: 4 });
  const asked = openaiChat.streamReader({ stream: true, stream_options: { include_usage: true } });
  assert.equal(asked.add(event(usageChunk)).pass, true);
});

Deno.test("openaiChat.streamReader() counts distinct tool call ids per choice", () => {
  const reader = openaiChat.streamReader({});
  const delta = (id?: string) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...(id ? { id } : {}) }] } }],
  });
  for (const chunk of [delta("call_1"), delta(), delta("call_1"), delta("call_2")]) {
    reader.add(event(chunk));
  }
  assert.equal(reader.evidence().toolCalls, 2);
  assert.deepEqual(reader.notes(false), ["Upstream stream ended without [DONE]"]);
});
