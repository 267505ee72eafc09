import assert from "node:assert/strict";
import { derivedUsage, messageText, ProviderScript } from "./provider_script.ts";

Deno.test("derivedUsage() counts one token per started 4 UTF-8 bytes", () => {
  const usage = derivedUsage(
    [
      { role: "system", content: "abcd" }, // 4 bytes
      { role: "user", content: [{ type: "text", text: "é" }, { type: "image_url" }] }, // 2 bytes
      { role: "assistant", content: null }, // 0 bytes
    ],
    { content: "hello", tool_calls: [{ name: "run", arguments: '{"a":1}' }] },
  );
  // Prompt: 4 + 2 = 6 bytes -> ceil(6/4) = 2. Completion: "hello" 5 + "run" 3 + '{"a":1}' 7 = 15 -> 4.
  assert.deepEqual(usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
});

Deno.test("derivedUsage() gives at least one token each", () => {
  assert.deepEqual(derivedUsage("not an array", { content: "", tool_calls: [] }), {
    prompt_tokens: 1,
    completion_tokens: 1,
    total_tokens: 2,
  });
});

Deno.test("messageText() reads string contents and text parts only", () => {
  assert.equal(messageText({ content: "plain" }), "plain");
  assert.equal(messageText({ content: [{ text: "a" }, { text: 3 }, { text: "b" }] }), "ab");
  assert.equal(messageText(null), "");
  assert.equal(messageText({ content: 42 }), "");
});

Deno.test("ProviderScript applies defaults and keeps null as 'leave the field out'", () => {
  const script = ProviderScript.parse({
    rules: [{ contains: "x", reply: { usage: null, model: null } }],
  });
  assert.equal(script.model, "scripted-model-1");
  assert.equal(script.rules[0].reply.usage, null);
  assert.equal(script.rules[0].reply.model, null);
  assert.equal(script.rules[0].reply.status, 200);
  assert.equal(script.default.usage, undefined);
  assert.deepEqual(script.calls, []);
});

Deno.test("ProviderScript refuses a rule with both or neither matcher", () => {
  for (const rule of [{ reply: {} }, { contains: "a", equals: "a", reply: {} }]) {
    const parsed = ProviderScript.safeParse({ rules: [rule] });
    assert.equal(parsed.success, false);
    assert.match(parsed.error!.issues[0].message, /exactly one of "contains" and "equals"/);
  }
});
