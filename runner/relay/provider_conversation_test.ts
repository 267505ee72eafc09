import assert from "node:assert/strict";
import { readConversation } from "./provider_conversation.ts";

Deno.test("readConversation() reads a chat tool round: turn 1, the last tool results, the user's text", () => {
  const conversation = readConversation("chat", {
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function" }] },
      { role: "tool", tool_call_id: "c", content: "r1" },
      { role: "tool", tool_call_id: "d", content: "r2" },
    ],
  });
  assert.deepEqual(conversation, {
    turn: 1,
    last: "tool_result",
    userText: "go",
    toolResultText: "r1\nr2",
    promptText: "sysgor1r2",
  });
});

Deno.test("readConversation() counts runs of assistant messages followed by another message", () => {
  const turn = (roles: string[]) =>
    readConversation("chat", { messages: roles.map((role) => ({ role, content: role })) }).turn;
  assert.equal(turn([]), 0);
  assert.equal(turn(["user"]), 0);
  // A trailing assistant message (a prefill) is the turn being answered.
  assert.equal(turn(["user", "assistant"]), 0);
  assert.equal(turn(["user", "assistant", "user"]), 1);
  // Two assistant messages in a row are one turn.
  assert.equal(turn(["user", "assistant", "assistant", "tool", "assistant", "tool"]), 2);
});

Deno.test("readConversation() reads Responses input items: calls are the assistant's, *_call_output tool results", () => {
  const conversation = readConversation("responses", {
    instructions: "be brief. ",
    input: [
      { type: "message", role: "developer", content: "dev. " },
      { role: "user", content: [{ type: "input_text", text: "list files" }] },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] },
      { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "a.txt" },
      { type: "item_reference", id: "x" },
      { type: "custom_tool_call", call_id: "c2", name: "apply_patch", input: "*** Begin" },
      {
        type: "custom_tool_call_output",
        call_id: "c2",
        output: [{ type: "input_text", text: "done" }],
      },
    ],
  });
  assert.deepEqual(conversation, {
    turn: 2,
    last: "tool_result",
    userText: "list files",
    toolResultText: "done",
    promptText: "be brief. dev. list filesoka.txtdone",
  });
  assert.deepEqual(readConversation("responses", { input: "hi" }), {
    turn: 0,
    last: "user",
    userText: "hi",
    toolResultText: "",
    promptText: "hi",
  });
});

Deno.test("readConversation() reads Messages tool_result blocks in a user message as a tool result", () => {
  const conversation = readConversation("messages", {
    system: [{ type: "text", text: "sys" }],
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [{ type: "text", text: "ok" }, {
          type: "tool_use",
          id: "t",
          name: "shell",
          input: {},
        }],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t", content: "a" },
          { type: "tool_result", tool_use_id: "u", content: [{ type: "text", text: "b" }] },
        ],
      },
    ],
  });
  assert.deepEqual(conversation, {
    turn: 1,
    last: "tool_result",
    userText: "go",
    toolResultText: "a\nb",
    promptText: "sysgooka\nb",
  });
});

Deno.test("readConversation() reads a completions prompt as one user message, anything else as empty", () => {
  assert.deepEqual(readConversation("completions", { prompt: ["ab", "c"] }), {
    turn: 0,
    last: "user",
    userText: "abc",
    toolResultText: "",
    promptText: "abc",
  });
  assert.deepEqual(readConversation("messages", null), {
    turn: 0,
    last: null,
    userText: "",
    toolResultText: "",
    promptText: "",
  });
});
