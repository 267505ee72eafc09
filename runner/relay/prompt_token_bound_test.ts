import assert from "node:assert/strict";
import {
  MEDIA_PART_TOKENS,
  messagesToolAllowance,
  PROMPT_BYTES_PER_TOKEN,
  promptTokenBound,
  TOOL_SYSTEM_PROMPT_TOKENS,
  TYPED_TOOL_TOKENS,
} from "./prompt_token_bound.ts";

Deno.test("promptTokenBound() takes 3 bytes a token, rounded up", () => {
  assert.equal(PROMPT_BYTES_PER_TOKEN, 3);
  assert.equal(promptTokenBound({}, 0, 0), 0);
  assert.equal(promptTokenBound({}, 1, 0), 1);
  assert.equal(promptTokenBound({}, 3, 0), 1);
  assert.equal(promptTokenBound({}, 4, 0), 2);
  // A 400 kB prompt: 133,334 tokens, refused under any cap below that.
  assert.equal(promptTokenBound({}, 400_000, 0), 133_334);
});

Deno.test("promptTokenBound() adds an allowance for every image or file part, wherever it is", () => {
  const body = {
    messages: [
      {
        role: "user",
        content: [{ type: "text", text: "see" }, { type: "image_url", image_url: {} }],
      },
      { role: "tool", content: [{ type: "image", source: { type: "base64", data: "" } }] },
    ],
    input: [{ role: "user", content: [{ type: "input_file", file_data: "" }] }],
  };
  assert.equal(promptTokenBound(body, 30, 0), 10 + 3 * MEDIA_PART_TOKENS);
});

Deno.test("messagesToolAllowance() counts Anthropic's tool-use prompt and its own tools", () => {
  assert.equal(messagesToolAllowance({}), 0);
  assert.equal(messagesToolAllowance({ tools: [] }), 0);
  // Claude Code's tools carry no type (custom tools): the tool-use system prompt only.
  assert.equal(
    messagesToolAllowance({ tools: [{ name: "Bash", input_schema: {} }, { name: "Read" }] }),
    TOOL_SYSTEM_PROMPT_TOKENS,
  );
  assert.equal(
    messagesToolAllowance({
      tools: [{ type: "custom", name: "x" }, { type: "bash_20250124", name: "bash" }],
    }),
    TOOL_SYSTEM_PROMPT_TOKENS + TYPED_TOOL_TOKENS,
  );
});
