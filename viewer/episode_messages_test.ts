import assert from "node:assert/strict";
import { episodeMessages } from "./episode_messages.ts";
import { toolConversation } from "./_call_body_for_test.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";

const EMPTY: EpisodeLog = {
  format: "ledgerbench-episode-log/1",
  episode_id: "r/a/t/1",
  stdout_tail: null,
  stderr_tail: null,
  calls: [],
  calls_omitted: 0,
  bodies: [],
  bodies_omitted: 0,
};

const BROWSER = "tests/fixtures/import/inspect/2025-05-12T20-27-36-04-00_browser.json";

Deno.test("episodeMessages() reads an Inspect sample's messages: text, tool calls, tool results", async () => {
  const sample = JSON.parse(await Deno.readTextFile(BROWSER)).samples[0];
  const record = JSON.stringify({ messages: sample.messages, attachments: sample.attachments });
  const messages = episodeMessages({ ...EMPTY, imported: { format: "inspect", record } });
  // python3: the sample's 10 messages are user, then 4 × (assistant with one tool call, tool),
  // then assistant; the first call is web_browser_go {"url": "https://www.aisi.gov.uk/"}
  assert.deepEqual(messages.map((m) => m.role), [
    "user",
    ...Array(4).fill(["assistant", "tool"]).flat(),
    "assistant",
  ]);
  assert.deepEqual(messages[1].parts, [{
    kind: "tool_call",
    name: "web_browser_go",
    id: "call_35FTpd6shR9efioDgeEBZ33s",
    arguments: '{"url":"https://www.aisi.gov.uk/"}',
  }]);
  assert.equal(messages[2].parts[0].kind, "tool_result");
  const result = messages[2].parts[0] as { id: string | null; text: string };
  assert.equal(result.id, "call_35FTpd6shR9efioDgeEBZ33s");
  assert.ok(result.text.startsWith('[132] link "We are now the AI Security Institute"'));
});

Deno.test("episodeMessages() resolves attachments and reads reasoning and tool errors", () => {
  const record = JSON.stringify({
    messages: [
      { role: "system", content: "attachment://abc" },
      {
        role: "assistant",
        content: [{ type: "reasoning", reasoning: "think" }, { type: "text", text: "ok" }, {
          type: "image",
          image: "data:...",
        }],
      },
      {
        role: "tool",
        content: "",
        tool_call_id: "c1",
        error: { type: "timeout", message: "slow" },
      },
    ],
    attachments: { abc: "You are helpful." },
  });
  const messages = episodeMessages({ ...EMPTY, imported: { format: "inspect", record } });
  assert.deepEqual(messages, [
    { role: "system", parts: [{ kind: "text", text: "You are helpful." }] },
    {
      role: "assistant",
      parts: [
        { kind: "text", text: "[reasoning] think" },
        { kind: "text", text: "ok" },
        { kind: "text", text: "[image]" },
      ],
    },
    {
      role: "tool",
      parts: [{ kind: "tool_result", id: "c1", text: "[tool error: timeout: slow]" }],
    },
  ]);
});

Deno.test("episodeMessages() gives a runner log's calls as one conversation, each turn once", () => {
  const bodies = toolConversation({
    user: "list files",
    tool: "sh",
    arguments: "{}",
    result: "a.txt",
    reply: "Done.",
  });
  const messages = episodeMessages({ ...EMPTY, bodies });
  assert.deepEqual(messages.map((m) => [m.role, m.parts.map((p) => p.kind)]), [
    ["user", ["text"]],
    ["assistant", ["tool_call"]],
    ["tool", ["tool_result"]],
    ["assistant", ["text"]],
  ]);
  assert.deepEqual(episodeMessages(EMPTY), []);
});

Deno.test("episodeMessages() reads a Harbor trajectory's steps (ATIF) as messages", async () => {
  const record = await Deno.readTextFile("tests/fixtures/import/harbor_atif/trajectory.json");
  const messages = episodeMessages({ ...EMPTY, imported: { format: "atif", record } });
  // python3: steps 1 user (the instruction), 2 agent (one Write call, one observation result),
  // 3 agent ("Created `/app/hello.txt` containing `Hello, world!`.")
  assert.deepEqual(messages.map((m) => [m.role, m.parts.map((p) => p.kind)]), [
    ["user", ["text"]],
    ["assistant", ["tool_call"]],
    ["tool", ["tool_result"]],
    ["assistant", ["text"]],
  ]);
  assert.deepEqual(messages[1].parts[0], {
    kind: "tool_call",
    name: "Write",
    id: "toolu_01Rmm2GPxpGq9Er31axjfYRv",
    arguments: '{"file_path":"/app/hello.txt","content":"Hello, world!\\n"}',
  });
  const result = messages[2].parts[0] as { id: string | null; text: string };
  assert.equal(result.id, "toolu_01Rmm2GPxpGq9Er31axjfYRv");
  assert.ok(result.text.startsWith("File created successfully at: /app/hello.txt"));
  assert.deepEqual(messages[3].parts, [{
    kind: "text",
    text: "Created `/app/hello.txt` containing `Hello, world!`.",
  }]);
});
