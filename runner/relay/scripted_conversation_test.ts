/**
 * Multi-turn, tool-using conversations against the scripted provider (issue
 * 8: "script a multi-turn, tool-using conversation deterministically at any
 * `--parallel`"), in each API that has tool calls, and the rule conditions
 * that make it possible.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import type { ProviderScriptInput } from "../../analysis/schema/provider_script.ts";
import { post, TEST_KEY, withProvider } from "./_scripted_provider_for_test.ts";

const BEARER = { authorization: `Bearer ${TEST_KEY}` };
const ANTHROPIC = { "x-api-key": TEST_KEY, "anthropic-version": "2023-06-01" };
const SHELL = '{"command":["cat","TASK.md"]}';

/** Turn 0: run a shell command; turn 1: answer from what the tool printed. */
const TOOL_THEN_FINISH: ProviderScriptInput = {
  rules: [
    { turn: 0, reply: { tool_calls: [{ name: "shell", arguments: SHELL }] } },
    { turn: 1, last: "tool_result", contains: "alpha", reply: { content: "final alpha" } },
    { turn: 1, last: "tool_result", matches: "\\bbeta\\b", reply: { content: "final beta" } },
    { turn: 1, last: "tool_result", reply: { content: "final other" } },
  ],
  default: { content: "unexpected" },
};

type Api = "chat" | "responses" | "messages";

/**
 * One conversation: the task, the scripted tool call, the tool's output
 * ("task says <task>"), the final answer. Returns what the model said.
 */
async function converse(
  baseUrl: string,
  api: Api,
  task: string,
  between: () => Promise<void>,
): Promise<{ tool: string; arguments: string; answer: string }> {
  const user = `Solve ${task}`;
  const output = `task says ${task}`;
  if (api === "chat") {
    const first = JSON.parse(
      (await post(
        baseUrl,
        "chat/completions",
        { messages: [{ role: "user", content: user }] },
        BEARER,
      ))
        .text,
    );
    const message = first.choices[0].message;
    const call = message.tool_calls[0];
    await between();
    const second = JSON.parse(
      (await post(baseUrl, "chat/completions", {
        messages: [
          { role: "user", content: user },
          message,
          { role: "tool", tool_call_id: call.id, content: output },
        ],
      }, BEARER)).text,
    );
    return {
      tool: call.function.name,
      arguments: call.function.arguments,
      answer: second.choices[0].message.content,
    };
  }
  if (api === "responses") {
    const input: unknown[] = [{ role: "user", content: user }];
    const first = JSON.parse((await post(baseUrl, "responses", { input }, BEARER)).text);
    const call = first.output.find((item: { type: string }) => item.type === "function_call");
    await between();
    input.push(...first.output, { type: "function_call_output", call_id: call.call_id, output });
    const second = JSON.parse((await post(baseUrl, "responses", { input }, BEARER)).text);
    return { tool: call.name, arguments: call.arguments, answer: second.output[0].content[0].text };
  }
  const messages: unknown[] = [{ role: "user", content: user }];
  const first = JSON.parse(
    (await post(baseUrl, "messages", { max_tokens: 64, messages }, ANTHROPIC)).text,
  );
  const use = first.content.find((block: { type: string }) => block.type === "tool_use");
  await between();
  messages.push({ role: "assistant", content: first.content }, {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: use.id, content: output }],
  });
  const second = JSON.parse(
    (await post(baseUrl, "messages", { max_tokens: 64, messages }, ANTHROPIC)).text,
  );
  return { tool: use.name, arguments: JSON.stringify(use.input), answer: second.content[0].text };
}

const CONVERSATIONS: [Api, string][] = (["chat", "responses", "messages"] as const).flatMap((api) =>
  ["alpha", "beta", "gamma", "alpha", "beta", "gamma"].map((task): [Api, string] => [api, task])
);

/** What every conversation must say, whatever the interleaving. */
const EXPECTED = CONVERSATIONS.map(([, task]) => ({
  tool: "shell",
  arguments: SHELL,
  answer: task === "gamma" ? "final other" : `final ${task}`,
}));

Deno.test("startScriptedProvider() answers tool-then-finish conversations alike sequentially and interleaved", async () => {
  const sequential: unknown[] = [];
  await withProvider(TOOL_THEN_FINISH, async (provider) => {
    for (const [api, task] of CONVERSATIONS) {
      sequential.push(await converse(provider.baseUrl, api, task, () => Promise.resolve()));
    }
  });
  assert.deepEqual(sequential, EXPECTED);

  // Every conversation sends its turn 0, then all wait until every turn 0 is answered, then
  // all send their turn 1: 36 calls whose global numbers say nothing about their turn.
  let answered = 0;
  const { promise: allFirst, resolve } = Promise.withResolvers<void>();
  await withProvider(TOOL_THEN_FINISH, async (provider) => {
    const interleaved = await Promise.all(
      CONVERSATIONS.map(([api, task]) =>
        converse(provider.baseUrl, api, task, () => {
          answered += 1;
          if (answered === CONVERSATIONS.length) resolve();
          return allFirst;
        })
      ),
    );
    assert.deepEqual(interleaved, EXPECTED);
    const log = provider.requests();
    assert.equal(log.length, 36);
    // The first 18 calls are every conversation's turn 0, the last 18 its turn 1.
    assert.deepEqual(log.map((r) => r.turn), [...Array(18).fill(0), ...Array(18).fill(1)]);
    assert.deepEqual(
      log.slice(0, 18).map((r) => r.matched),
      Array(18).fill("rule 0"),
    );
  });
});

Deno.test("startScriptedProvider() drives a Codex-style Responses stream: a shell call, then a final answer", async () => {
  await withProvider({
    rules: [
      { turn: 0, reply: { tool_calls: [{ name: "shell", arguments: '{"command":["ls"]}' }] } },
      { turn: 1, last: "tool_result", reply: { content: "Done." } },
    ],
  }, async (provider) => {
    const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: provider.baseUrl, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "list files" }];
    const first = await sdk.responses.stream({ model: "any", input, store: false }).finalResponse();
    const call = first.output[0];
    assert.equal(call.type, "function_call");
    if (call.type !== "function_call") return;
    assert.deepEqual([call.name, call.arguments], ["shell", '{"command":["ls"]}']);
    input.push(call, { type: "function_call_output", call_id: call.call_id, output: "a.txt\n" });
    const second = await sdk.responses.stream({ model: "any", input, store: false })
      .finalResponse();
    assert.equal(second.output_text, "Done.");
    assert.deepEqual(provider.requests().map((r) => [r.turn, r.matched]), [
      [0, "rule 0"],
      [1, "rule 1"],
    ]);
  });
});

Deno.test("startScriptedProvider() matches turn, last-message kind and text, all given conditions at once", async () => {
  await withProvider({
    rules: [
      { turn: 2, reply: { content: "turn 2" } },
      { last: "tool_result", equals: "exit 1", reply: { content: "tool failed" } },
      { last: "tool_result", matches: "^exit \\d+$", reply: { content: "tool exited" } },
      { last: "user", turn: 1, reply: { content: "user again" } },
      { contains: "task-7", reply: { content: "task 7" } },
    ],
    default: { content: "none" },
  }, async (provider) => {
    const ask = async (messages: unknown[]) =>
      JSON.parse((await post(provider.baseUrl, "chat/completions", { messages }, BEARER)).text)
        .choices[0].message.content;
    const user = { role: "user", content: "task-7" };
    const assistant = { role: "assistant", content: "ok" };
    const tool = (content: string) => ({ role: "tool", tool_call_id: "c", content });
    assert.equal(await ask([user, assistant, user, assistant, user]), "turn 2");
    assert.equal(await ask([user, assistant, tool("exit 1")]), "tool failed");
    assert.equal(await ask([user, assistant, tool("exit 2")]), "tool exited");
    assert.equal(await ask([user, assistant, user]), "user again");
    // A rule without "last" reads the last user message, as before issue 8, even after a tool
    // result: the suite scripts' task rules keep matching on every turn.
    assert.equal(await ask([user, assistant, tool("exit 2 and more")]), "task 7");
    assert.equal(await ask([{ role: "user", content: "other" }]), "none");
    assert.deepEqual(provider.requests().map((r) => r.matched), [
      "rule 0",
      "rule 1",
      "rule 2",
      "rule 3",
      "rule 4",
      "default",
    ]);
  });
});
