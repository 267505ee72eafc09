import assert from "node:assert/strict";
import { post, sseEvents, TEST_KEY, withProvider } from "./_scripted_provider_for_test.ts";

const BEARER = { authorization: `Bearer ${TEST_KEY}` };

Deno.test("completionsWire answers /v1/completions whole and streamed, tool calls left out", async () => {
  await withProvider({
    model: "m-1",
    default: { content: "a b", tool_calls: [{ name: "shell", arguments: '{"cmd":"ls"}' }] },
  }, async (provider) => {
    const whole = await post(provider.baseUrl, "completions", { prompt: "0123456789" }, BEARER);
    // Prompt 10 bytes -> 3 tokens; "a b" is 3 bytes -> 1 (the tool call is not sent, not counted).
    const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
    assert.deepEqual(JSON.parse(whole.text), {
      id: "cmpl-scripted-1",
      object: "text_completion",
      created: 0,
      model: "m-1",
      choices: [{ text: "a b", index: 0, logprobs: null, finish_reason: "stop" }],
      usage,
    });
    const streamed = await post(provider.baseUrl, "completions", {
      prompt: "0123456789",
      stream: true,
      stream_options: { include_usage: true },
    }, BEARER);
    const head = { id: "cmpl-scripted-2", object: "text_completion", created: 0, model: "m-1" };
    const chunk = (text: string, finish: string | null) => ({
      event: null,
      data: {
        ...head,
        choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
        usage: null,
      },
    });
    assert.deepEqual(sseEvents(streamed.text), [
      chunk("a ", null),
      chunk("b", null),
      chunk("", "stop"),
      { event: null, data: { ...head, choices: [], usage } },
      { event: null, data: "[DONE]" },
    ]);
    assert.deepEqual(provider.requests().map((r) => [r.call, r.api]), [
      [1, "completions"],
      [2, "completions"],
    ]);
  });
});
