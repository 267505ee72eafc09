import assert from "node:assert/strict";
import {
  boundPrompt,
  COUNT_MARGIN_TOKENS,
  geminiMediaAllowance,
  MEDIA_PART_TOKENS,
  messagesToolAllowance,
  TOOL_SYSTEM_PROMPT_TOKENS,
  TYPED_TOOL_TOKENS,
} from "./prompt_token_bound.ts";
import { countOpenAiTokens } from "./openai_tokenizer.ts";

const NONE = { count: null, tokenize: null };

/** Text a byte-level tokenizer may bill at one token per UTF-8 byte: rare scripts (Old Italic, Cyrillic extended). */
const DENSE = "\u{10300}\u{10301}\u{10302}ꙮ".repeat(2500);

Deno.test("boundPrompt() bounds by bytes, one token each, when there is no count and no tokenizer", async () => {
  assert.deepEqual(await boundPrompt({}, { text: "", bytes: 0 }, 0, NONE), {
    bound: 0,
    source: "bytes",
  });
  // A 400 kB prompt: 400,000 tokens, refused under any cap below that.
  assert.equal((await boundPrompt({}, { text: "", bytes: 400_000 }, 0, NONE)).bound, 400_000);
  // The dense text a byte-level tokenizer bills at one token per byte stays within it.
  const body = { messages: [{ role: "user", content: DENSE }] };
  const text = JSON.stringify(body);
  const bytes = new TextEncoder().encode(text).length;
  const dense = new TextEncoder().encode(DENSE).length;
  assert.ok((await boundPrompt(body, { text, bytes }, 0, NONE)).bound >= dense);
});

Deno.test("boundPrompt() adds an allowance for every image or file part, wherever it is", async () => {
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
  const bound = await boundPrompt(body, { text: "", bytes: 30 }, 0, NONE);
  assert.equal(bound.bound, 30 + 3 * MEDIA_PART_TOKENS);
});

Deno.test("boundPrompt() takes the provider's count first, with its margin, and falls back when none came", async () => {
  const count = (tokens: number | null) => () => Promise.resolve(tokens);
  const ways = { tokenize: () => Promise.resolve(5) };
  assert.deepEqual(
    await boundPrompt({}, { text: "x", bytes: 90_000 }, 600, { ...ways, count: count(20_000) }),
    { bound: 20_000 + COUNT_MARGIN_TOKENS + 400, source: "count" },
  );
  assert.deepEqual(
    await boundPrompt({}, { text: "x", bytes: 90_000 }, 600, { ...ways, count: count(null) }),
    { bound: 5 + COUNT_MARGIN_TOKENS + 600, source: "tokenizer" },
  );
});

Deno.test("boundPrompt() with OpenAI's tokenizer holds the dense text's own tokens", async () => {
  const body = { model: "gpt-4o", messages: [{ role: "user", content: DENSE }] };
  const text = JSON.stringify(body);
  const bound = await boundPrompt(body, { text, bytes: text.length }, 0, {
    count: null,
    tokenize: (forwarded) => countOpenAiTokens("o200k_base", forwarded),
  });
  assert.equal(bound.source, "tokenizer");
  // the whole dense run is past MAX_TOKENIZED_RUN: bounded by its bytes
  assert.ok(bound.bound >= new TextEncoder().encode(DENSE).length, `${bound.bound}`);
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

Deno.test("geminiMediaAllowance() counts inline and file data parts, however they are spelled", () => {
  assert.equal(
    geminiMediaAllowance({
      contents: [{
        parts: [
          { text: "see" },
          { inlineData: { mimeType: "image/png", data: "" } },
          { inline_data: { mime_type: "image/png", data: "" } },
          { fileData: { fileUri: "gs://b/o" } },
        ],
      }],
    }),
    3 * MEDIA_PART_TOKENS,
  );
});
