import assert from "node:assert/strict";
import {
  contentText,
  derivedUsage,
  messageText,
  parseProviderScript,
  ProviderScript,
} from "./provider_script.ts";

Deno.test("derivedUsage() counts one token per started 4 UTF-8 bytes", () => {
  const usage = derivedUsage(
    "abcd" + "é", // 4 + 2 bytes
    { content: "hello", tool_calls: [{ name: "run", arguments: '{"a":1}' }] },
  );
  // Prompt: 4 + 2 = 6 bytes -> ceil(6/4) = 2. Completion: "hello" 5 + "run" 3 + '{"a":1}' 7 = 15 -> 4.
  assert.deepEqual(usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });
});

Deno.test("derivedUsage() gives at least one token each", () => {
  assert.deepEqual(derivedUsage("", { content: "", tool_calls: [] }), {
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

Deno.test("contentText() reads strings and the text of parts or blocks", () => {
  assert.equal(contentText("plain"), "plain");
  assert.equal(
    contentText([{ type: "input_text", text: "a" }, { type: "image" }, { text: "b" }]),
    "ab",
  );
  assert.equal(contentText(undefined), "");
});

Deno.test("ProviderScript refuses a rule with two text matchers or no condition", () => {
  for (
    const [rule, message] of [
      [
        { contains: "a", equals: "a", reply: {} },
        /at most one of "contains", "equals" and "matches"/,
      ],
      [
        { equals: "a", matches: "a", reply: {} },
        /at most one of "contains", "equals" and "matches"/,
      ],
      [{ reply: {} }, /at least one of "turn", "last", "contains", "equals" and "matches"/],
    ] as const
  ) {
    const parsed = ProviderScript.safeParse({ rules: [rule] });
    assert.equal(parsed.success, false);
    assert.match(parsed.error!.issues[0].message, message);
  }
});

Deno.test("ProviderScript accepts turn, last and matches alone or together", () => {
  const script = ProviderScript.parse({
    rules: [
      { turn: 0, reply: {} },
      { last: "tool_result", reply: {} },
      { matches: "^ok\\b", reply: {} },
      { turn: 2, last: "user", contains: "x", reply: {} },
    ],
  });
  assert.deepEqual(
    script.rules.map(({ turn, last, contains, matches }) => ({ turn, last, contains, matches })),
    [
      { turn: 0, last: undefined, contains: undefined, matches: undefined },
      { turn: undefined, last: "tool_result", contains: undefined, matches: undefined },
      { turn: undefined, last: undefined, contains: undefined, matches: "^ok\\b" },
      { turn: 2, last: "user", contains: "x", matches: undefined },
    ],
  );
});

Deno.test("parseProviderScript() words the first problem on one line, naming file, rule and field", () => {
  const cases: [unknown, string][] = [
    [
      { rules: [{ turn: 0, reply: {} }, { turn: -1, reply: {} }] },
      'Invalid provider script "s.json": "rules.1.turn" Too small: expected number to be >=0',
    ],
    [
      { rules: [{ last: "assistant", reply: {} }] },
      'Invalid provider script "s.json": "rules.0.last" must be one of "user", "tool_result"',
    ],
    [
      { rules: [{ matches: "(", reply: {} }] },
      'Invalid provider script "s.json": "rules.0.matches" must be a valid regular expression',
    ],
    [
      { default: { tool_calls: [{ name: "shell", arguments: "[1]" }] } },
      'Invalid provider script "s.json": "default.tool_calls.0.arguments" must be the JSON text of an object',
    ],
    [
      { default: { usage: { prompt_tokens: 2, completion_tokens: 1, cached_tokens: 3 } } },
      'Invalid provider script "s.json": "default.usage" must have "cached_tokens" + ' +
      '"cache_creation_tokens" at most "prompt_tokens"',
    ],
    [
      { rules: [{ turn: 1, reply: {}, when: 2 }] },
      'Invalid provider script "s.json": "rules.0.when" unknown key; the schema has no such field',
    ],
  ];
  for (const [script, message] of cases) {
    assert.throws(() => parseProviderScript(script, "s.json"), (error: Error) => {
      assert.equal(error.message, message);
      return true;
    });
  }
  assert.throws(
    () => parseProviderScript({ default: { status: 99 } }),
    /^Error: Invalid provider script: "default.status" /,
  );
});
