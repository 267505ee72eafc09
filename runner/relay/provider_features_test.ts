import assert from "node:assert/strict";
import { anthropicMessages } from "./api/anthropic_messages.ts";
import { openaiChat } from "./api/openai_chat.ts";
import { openaiResponses } from "./api/openai_responses.ts";
import {
  deniedUses,
  type FeatureUse,
  isProviderFeature,
  PROVIDER_FEATURES,
  providerFeaturesOf,
  refusalMessage,
  requestChanges,
} from "./provider_features.ts";

const ATTACKER = "https://attacker.example/pixel.png?leak=sk-live-1234";
const PNG = "data:image/png;base64,iVBORw0KGgo=";

/** The uses of a request as the relay reads it: after its request change. */
function usesOf(
  api: string,
  body: Record<string, unknown>,
  headers?: HeadersInit,
): FeatureUse[] {
  const forwarded = requestChanges(api, body) ?? body;
  return providerFeaturesOf(api, forwarded, new Headers(headers));
}

// ---------------------------------------------------------------------------
// Issue 21 item 4: every finding is detected

Deno.test("providerFeaturesOf() finds each hosted Responses tool of issue 21", () => {
  const uses = usesOf("Responses", {
    model: "m",
    input: "x",
    tools: [
      { type: "function", name: "sh", parameters: {} },
      { type: "web_search" },
      { type: "web_search_preview" },
      { type: "file_search", vector_store_ids: ["vs_1"] },
      { type: "code_interpreter", container: { type: "auto" } },
      { type: "image_generation" },
      { type: "mcp", server_label: "x", server_url: "https://attacker.example/mcp" },
    ],
  });
  assert.deepEqual(uses, [
    { feature: "web_search", where: 'tools[1].type "web_search"' },
    { feature: "web_search", where: 'tools[2].type "web_search_preview"' },
    { feature: "file_search", where: 'tools[3].type "file_search"' },
    { feature: "code_execution", where: 'tools[4].type "code_interpreter"' },
    { feature: "image_generation", where: 'tools[5].type "image_generation"' },
    { feature: "mcp", where: 'tools[6].server_url "https://attacker.example/mcp"' },
  ]);
});

Deno.test("providerFeaturesOf() finds Chat web_search_options and hosted Chat tools", () => {
  assert.deepEqual(
    usesOf("Chat Completions", {
      model: "m",
      messages: [{ role: "user", content: "x" }],
      web_search_options: {},
      tools: [{ type: "function", function: { name: "f" } }, { type: "web_search_preview" }, {
        type: "retrieval",
      }],
    }),
    [
      { feature: "web_search", where: 'tools[1].type "web_search_preview"' },
      { feature: "unknown_tool", where: 'tools[2].type "retrieval"' },
      { feature: "web_search", where: "web_search_options {}" },
    ],
  );
});

Deno.test("providerFeaturesOf() finds Messages server tools, mcp_servers, container and their betas", () => {
  const uses = usesOf("Messages", {
    model: "m",
    max_tokens: 10,
    messages: [{ role: "user", content: "x" }],
    tools: [
      { name: "Bash", input_schema: { type: "object" } },
      { type: "web_search_20250305", name: "web_search", max_uses: 5 },
      { type: "web_fetch_20250910", name: "web_fetch" },
      { type: "code_execution_20250825", name: "code_execution" },
      { type: "mcp_toolset", mcp_server_name: "evil" },
    ],
    mcp_servers: [{ type: "url", name: "evil", url: "https://attacker.example/sse" }],
    container: "container_011CQ",
  }, {
    "anthropic-beta":
      "mcp-client-2025-04-04, code-execution-2025-08-25,web-fetch-2025-09-10,files-api-2025-04-14,skills-2025-10-02",
  });
  assert.deepEqual(uses, [
    { feature: "web_search", where: 'tools[1].type "web_search_20250305"' },
    { feature: "web_fetch", where: 'tools[2].type "web_fetch_20250910"' },
    { feature: "code_execution", where: 'tools[3].type "code_execution_20250825"' },
    { feature: "mcp", where: 'tools[4].type "mcp_toolset"' },
    { feature: "mcp", where: 'mcp_servers[0].url "https://attacker.example/sse"' },
    { feature: "code_execution", where: 'container "container_011CQ"' },
    { feature: "mcp", where: 'header anthropic-beta "mcp-client-2025-04-04"' },
    { feature: "code_execution", where: 'header anthropic-beta "code-execution-2025-08-25"' },
    { feature: "web_fetch", where: 'header anthropic-beta "web-fetch-2025-09-10"' },
    { feature: "stored_state", where: 'header anthropic-beta "files-api-2025-04-14"' },
    { feature: "skills", where: 'header anthropic-beta "skills-2025-10-02"' },
  ]);
});

Deno.test("providerFeaturesOf() finds Responses stored state: store, previous_response_id, conversation, prompt", () => {
  assert.deepEqual(
    usesOf("Responses", {
      model: "m",
      input: "x",
      store: true,
      previous_response_id: "resp_attacker",
      conversation: { id: "conv_1" },
      prompt: { id: "pmpt_1", version: "2" },
    }),
    [
      { feature: "stored_state", where: "store true" },
      { feature: "stored_state", where: 'previous_response_id "resp_attacker"' },
      { feature: "stored_state", where: 'conversation {"id":"conv_1"}' },
      { feature: "stored_state", where: 'prompt.id "pmpt_1"' },
    ],
  );
  assert.deepEqual(usesOf("Chat Completions", { messages: [], store: true }), [
    { feature: "stored_state", where: "store true" },
  ]);
  // A background run is no feature a plan may allow: the Responses module refuses it before
  // features are read (its usage would come after the call, where the relay cannot meter it).
  assert.deepEqual(usesOf("Responses", { input: "x", store: true, background: true }), [
    { feature: "stored_state", where: "store true" },
  ]);
});

Deno.test("providerFeaturesOf() finds URLs the provider would fetch, the ?leak= one included", () => {
  assert.deepEqual(
    usesOf("Chat Completions", {
      messages: [{
        role: "user",
        content: [
          { type: "text", text: `see ${ATTACKER}` },
          { type: "image_url", image_url: { url: ATTACKER, detail: "low" } },
          { type: "image_url", image_url: { url: PNG } },
        ],
      }],
    }),
    [{ feature: "remote_urls", where: `messages[0].content[1].image_url.url "${ATTACKER}"` }],
  );
  assert.deepEqual(
    usesOf("Responses", {
      input: [{
        role: "user",
        content: [
          { type: "input_text", text: ATTACKER },
          { type: "input_image", image_url: ATTACKER },
          { type: "input_file", file_url: "https://attacker.example/report.pdf" },
          { type: "input_image", image_url: PNG },
          {
            type: "input_file",
            file_data: "data:application/pdf;base64,JVBERi0=",
            filename: "a.pdf",
          },
        ],
      }],
    }),
    [
      { feature: "remote_urls", where: `input[0].content[1].image_url "${ATTACKER}"` },
      {
        feature: "remote_urls",
        where: 'input[0].content[2].file_url "https://attacker.example/report.pdf"',
      },
    ],
  );
  assert.deepEqual(
    usesOf("Messages", {
      messages: [{
        role: "user",
        content: [
          { type: "image", source: { type: "url", url: ATTACKER } },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBO" } },
          { type: "document", source: { type: "url", url: "https://attacker.example/a.pdf" } },
        ],
      }],
    }),
    [
      { feature: "remote_urls", where: `messages[0].content[0].source.url "${ATTACKER}"` },
      {
        feature: "remote_urls",
        where: 'messages[0].content[2].source.url "https://attacker.example/a.pdf"',
      },
    ],
  );
});

Deno.test("providerFeaturesOf() finds URLs and file ids hidden in tool outputs, nested blocks and prompt variables", () => {
  assert.deepEqual(
    usesOf("Responses", {
      store: false,
      input: [
        {
          type: "function_call_output",
          call_id: "c",
          output: [{ type: "input_image", image_url: ATTACKER }],
        },
        {
          type: "computer_call_output",
          call_id: "c2",
          output: { type: "computer_screenshot", file_id: "file-1" },
        },
        { type: "item_reference", id: "msg_other_episode" },
        { id: "rs_stored" },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "additional_tools", role: "developer", tools: [{ type: "web_search" }] },
      ],
      prompt: { id: "p", variables: { b: "text", a: { type: "input_file", file_url: ATTACKER } } },
    }),
    [
      { feature: "stored_state", where: 'prompt.id "p"' },
      { feature: "remote_urls", where: `prompt.variables.a.file_url "${ATTACKER}"` },
      { feature: "remote_urls", where: `input[0].output[0].image_url "${ATTACKER}"` },
      { feature: "stored_state", where: 'input[1].output.file_id "file-1"' },
      { feature: "stored_state", where: 'input[2].id "msg_other_episode"' },
      { feature: "stored_state", where: 'input[3].id "rs_stored"' },
      // a reasoning item without encrypted_content is resolved from storage by id
      { feature: "stored_state", where: 'input[4].id "rs_1"' },
      { feature: "web_search", where: 'input[5].tools[0].type "web_search"' },
    ],
  );
  assert.deepEqual(
    usesOf("Messages", {
      system: [{ type: "text", text: "s" }],
      messages: [{
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "t",
            content: [
              { type: "text", text: "ok" },
              {
                type: "document",
                source: {
                  type: "content",
                  content: [{ type: "image", source: { type: "url", url: ATTACKER } }],
                },
              },
              { type: "image", source: { type: "file", file_id: "file_011" } },
            ],
          },
          { type: "container_upload", file_id: "file_012" },
          {
            type: "tool_addition",
            tool: { type: "tool_definition", definition: { type: "web_fetch_20260318" } },
          },
        ],
      }],
    }),
    [
      {
        feature: "remote_urls",
        where: `messages[0].content[0].content[1].source.content[0].source.url "${ATTACKER}"`,
      },
      {
        feature: "stored_state",
        where: 'messages[0].content[0].content[2].source.file_id "file_011"',
      },
      { feature: "stored_state", where: 'messages[0].content[1].file_id "file_012"' },
      {
        feature: "web_fetch",
        where: 'messages[0].content[2].tool.definition[0].type "web_fetch_20260318"',
      },
    ],
  );
});

Deno.test("providerFeaturesOf() finds Chat file ids, stored audio and compatible servers' search switches", () => {
  assert.deepEqual(
    usesOf("Chat Completions", {
      messages: [
        { role: "user", content: [{ type: "file", file: { file_id: "file-abc" } }] },
        { role: "assistant", audio: { id: "audio_1" } },
        { role: "user", content: [{ type: "video_url", video_url: ATTACKER }] },
      ],
      enable_search: true,
      search_parameters: { mode: "on" },
      plugins: [{ id: "web" }],
    }),
    [
      { feature: "web_search", where: "enable_search true" },
      { feature: "web_search", where: 'search_parameters.mode "on"' },
      { feature: "web_search", where: 'plugins[0].id "web"' },
      { feature: "stored_state", where: 'messages[0].content[0].file.file_id "file-abc"' },
      { feature: "stored_state", where: 'messages[1].audio.id "audio_1"' },
      { feature: "remote_urls", where: `messages[2].content[0].video_url "${ATTACKER}"` },
    ],
  );
});

Deno.test("providerFeaturesOf() treats unknown tool types as unknown_tool and hosted shells as code_execution", () => {
  assert.deepEqual(
    usesOf("Responses", {
      input: "x",
      tools: [
        { type: "shell" },
        { type: "shell", environment: { type: "local" } },
        { type: "shell", environment: { type: "container_auto" } },
        { type: "tool_search", execution: "client" },
        { type: "tool_search" },
        { type: "namespace", name: "crm", tools: [{ type: "function" }, { type: "browser" }] },
        { type: 7 },
        { type: "local_shell" },
        { type: "computer_use_preview" },
        { type: "apply_patch" },
        { name: "typeless" },
      ],
    }),
    [
      { feature: "code_execution", where: 'tools[2].environment.type "container_auto"' },
      { feature: "tool_search", where: 'tools[4].execution "server"' },
      { feature: "unknown_tool", where: 'tools[5].tools[1].type "browser"' },
      { feature: "unknown_tool", where: "tools[6].type 7" },
    ],
  );
  assert.deepEqual(
    usesOf("Messages", {
      tools: [
        { type: "custom", name: "a", input_schema: {} },
        { type: "bash_20250124", name: "bash" },
        { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
        { type: "computer_20250124", name: "computer" },
        { type: "memory_20250818", name: "memory" },
        { type: "bash_20990101", name: "bash" },
        { type: "advisor_20260301", name: "advisor" },
        { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" },
      ],
      container: { id: "c", skills: [{ type: "anthropic", skill_id: "pptx" }] },
    }),
    [
      // an unlisted version of a client tool is denied until this module lists it
      { feature: "unknown_tool", where: 'tools[5].type "bash_20990101"' },
      { feature: "advisor", where: 'tools[6].type "advisor_20260301"' },
      { feature: "tool_search", where: 'tools[7].type "tool_search_tool_regex_20251119"' },
      { feature: "code_execution", where: 'container "c"' },
      { feature: "skills", where: 'container.skills[0].skill_id "pptx"' },
    ],
  );
});

Deno.test("providerFeaturesOf() never throws on odd shapes", () => {
  const odd: unknown[] = [
    null,
    1,
    "x",
    [],
    [null, 1, "s", []],
    { type: null },
    { content: { source: null } },
    { content: [null, { source: "str", content: 5 }] },
  ];
  for (const api of ["Chat Completions", "Responses", "Messages"]) {
    for (const value of odd) {
      for (
        const field of ["tools", "messages", "input", "system", "prompt", "container", "plugins"]
      ) {
        providerFeaturesOf(api, { store: false, [field]: value }, new Headers());
      }
      providerFeaturesOf(api, { messages: [{ content: value }], input: [{ output: value }] });
    }
    providerFeaturesOf(api, null as unknown as Record<string, unknown>);
  }
  // deep nesting is walked without recursion
  let block: Record<string, unknown> = { type: "image", source: { type: "url", url: ATTACKER } };
  for (let i = 0; i < 10_000; i += 1) block = { type: "tool_result", content: [block] };
  const uses = providerFeaturesOf("Messages", { messages: [{ content: [block] }] });
  assert.equal(uses.length, 1);
  assert.equal(uses[0].feature, "remote_urls");
  assert.match(
    uses[0].where,
    /^messages\[0\]\.content\[0\]\.content\[0\].*….*\.source\.url "https:/,
  );
  assert.ok(uses[0].where.length < 400, "a deep path is cut in its middle");
  assert.throws(() => providerFeaturesOf("Embeddings", {}), /no rules for it/);
});

// ---------------------------------------------------------------------------
// Ordinary requests from real agents are clean

/** A Codex CLI turn (codex-rs `ResponsesApiRequest`, as our `agent-codex` sends it). */
const CODEX_REQUEST = {
  model: "gpt-5.5",
  instructions:
    "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI.",
  input: [
    {
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: "<permissions instructions>" }],
    },
    {
      type: "message",
      role: "user",
      content: [{
        type: "input_text",
        text: "<environment_context>\n  <cwd>/workspace</cwd>\n</environment_context>",
      }],
    },
    { type: "message", role: "user", content: [{ type: "input_text", text: "Fix count.sh" }] },
    {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "**Inspecting**" }],
      content: null,
      encrypted_content: "gAAAAABo-encrypted",
    },
    {
      type: "function_call",
      name: "exec_command",
      arguments: '{"cmd":"curl -s https://example.com"}',
      call_id: "call_1",
    },
    { type: "function_call_output", call_id: "call_1", output: "Process exited with code 0" },
    {
      type: "custom_tool_call",
      name: "apply_patch",
      input: "*** Begin Patch\n*** End Patch",
      call_id: "call_2",
    },
    { type: "custom_tool_call_output", call_id: "call_2", output: "Done" },
    {
      type: "message",
      role: "user",
      content: [{ type: "input_image", image_url: PNG }],
    },
    {
      type: "message",
      role: "assistant",
      content: [{
        type: "output_text",
        text: "See https://example.com",
        annotations: [{ type: "url_citation", url: "https://example.com" }],
      }],
    },
  ],
  tools: [
    {
      type: "function",
      name: "exec_command",
      description: "Runs a command in a PTY",
      strict: false,
      parameters: {
        type: "object",
        properties: { cmd: { type: "string" }, workdir: { type: "string" } },
        required: ["cmd"],
        additionalProperties: false,
      },
    },
    { type: "function", name: "write_stdin", strict: false, parameters: { type: "object" } },
    { type: "function", name: "update_plan", strict: false, parameters: { type: "object" } },
    {
      type: "custom",
      name: "apply_patch",
      description: "Use the `apply_patch` tool to edit files.",
      format: { type: "grammar", syntax: "lark", definition: "start: begin_patch" },
    },
    { type: "function", name: "view_image", strict: false, parameters: { type: "object" } },
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "low", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "019a5d2e-0000-7000-8000-000000000000",
  text: { verbosity: "low" },
};

/** A Claude Code turn (its native binary, `POST /v1/messages?beta=true`). */
const CLAUDE_CODE_REQUEST = {
  model: "claude-sonnet-4-5-20250929",
  max_tokens: 32000,
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>\nAs you answer...\n</system-reminder>" },
        { type: "text", text: "Fix count.sh", cache_control: { type: "ephemeral" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Let me look.", signature: "EqQBCkgIBxABGAIi" },
        {
          type: "tool_use",
          id: "toolu_01",
          name: "WebFetch",
          input: { url: "https://attacker.example/x", prompt: "summarize" },
        },
        { type: "tool_use", id: "toolu_02", name: "Bash", input: { command: "ls" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01", content: "Fetched: https://x.example" },
        {
          type: "tool_result",
          tool_use_id: "toolu_02",
          content: [{ type: "text", text: "count.sh\nTASK.md" }],
          is_error: false,
        },
      ],
    },
  ],
  system: [
    {
      type: "text",
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cache_control: { type: "ephemeral" },
    },
    { type: "text", text: "You are an interactive CLI tool..." },
  ],
  tools: [
    {
      name: "Bash",
      description: "Executes a given bash command",
      input_schema: {
        type: "object",
        properties: { command: { type: "string" }, timeout: { type: "number" } },
        required: ["command"],
        additionalProperties: false,
        $schema: "http://json-schema.org/draft-07/schema#",
      },
    },
    {
      name: "WebFetch",
      description: "Fetches content from a specified URL",
      input_schema: {
        type: "object",
        properties: { url: { type: "string", format: "uri" }, prompt: { type: "string" } },
        required: ["url", "prompt"],
      },
    },
  ],
  metadata: { user_id: "user_0a1b_account__session_2c3d" },
  thinking: { type: "enabled", budget_tokens: 31999 },
  stream: true,
};

const CLAUDE_CODE_HEADERS = {
  "anthropic-version": "2023-06-01",
  "anthropic-beta":
    "claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14",
};

/** A qwen-code turn (its OpenAI content generator, Chat Completions streamed). */
const QWEN_CODE_REQUEST = {
  model: "qwen3-coder-plus",
  messages: [
    { role: "system", content: "You are Qwen Code, an interactive CLI agent" },
    { role: "user", content: [{ type: "text", text: "Fix count.sh" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "run_shell_command", arguments: '{"command":"ls"}' },
      }],
    },
    { role: "tool", tool_call_id: "call_1", content: "count.sh\nTASK.md" },
  ],
  tools: [{
    type: "function",
    function: {
      name: "run_shell_command",
      description: "Executes a shell command",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  }],
  stream: true,
  stream_options: { include_usage: true },
  temperature: 0,
  top_p: 1,
  max_tokens: 32768,
};

Deno.test("providerFeaturesOf() finds nothing in a Codex CLI Responses request", () => {
  assert.equal(requestChanges(openaiResponses, CODEX_REQUEST), null, "Codex sends store: false");
  assert.deepEqual(providerFeaturesOf(openaiResponses, CODEX_REQUEST, new Headers()), []);
});

Deno.test("providerFeaturesOf() finds nothing in a Claude Code Messages request", () => {
  assert.deepEqual(
    providerFeaturesOf(anthropicMessages, CLAUDE_CODE_REQUEST, new Headers(CLAUDE_CODE_HEADERS)),
    [],
  );
  // Claude Code's WebSearch tool does ask the provider to search: that is found
  assert.deepEqual(
    providerFeaturesOf(anthropicMessages, {
      ...CLAUDE_CODE_REQUEST,
      tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 8 }],
    }, new Headers(CLAUDE_CODE_HEADERS)).map((use) => use.feature),
    ["web_search"],
  );
});

Deno.test("providerFeaturesOf() finds nothing in a qwen-code Chat request", () => {
  assert.equal(requestChanges(openaiChat, QWEN_CODE_REQUEST), null);
  assert.deepEqual(providerFeaturesOf(openaiChat, QWEN_CODE_REQUEST), []);
});

Deno.test("providerFeaturesOf() finds nothing in what the relay's own tests and attackers send", () => {
  // runner/relay/relay_apis_test.ts, tests/relay_attacks_test.ts (relay_attacker.ts)
  const requests: [string, Record<string, unknown>, HeadersInit][] = [
    ["Responses", { model: "m", input: "x", max_output_tokens: 10 }, {}],
    ["Responses", { model: "m", input: "attack", stream: true }, {}],
    ["Chat Completions", { model: "m", messages: [{ role: "user", content: "attack" }] }, {}],
    ["Chat Completions", { model: "m", messages: [], max_tokens: 1000, n: 4 }, {}],
    ["Chat Completions", { model: "m", prompt: "legacy completion", max_tokens: 5 }, {}],
    ["Messages", { model: "m", max_tokens: 5, messages: [] }, {
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "token-efficient-tools-2025-02-19",
    }],
  ];
  for (const [api, body, headers] of requests) {
    assert.deepEqual(usesOf(api, body, headers), [], `${api} ${JSON.stringify(body)}`);
  }
});

// ---------------------------------------------------------------------------
// The request change, denial and wording

Deno.test("requestChanges() sets store false on a Responses request without store, unless allowed", () => {
  const body = { model: "m", input: "x" };
  assert.deepEqual(requestChanges(openaiResponses, body), { model: "m", input: "x", store: false });
  assert.deepEqual(body, { model: "m", input: "x" }, "the agent's body is not changed");
  assert.deepEqual(requestChanges("Responses", { input: "x", store: null }), {
    input: "x",
    store: false,
  });
  assert.equal(requestChanges("Responses", { input: "x", store: true }), null);
  assert.equal(requestChanges("Responses", body, { allowed: ["stored_state"] }), null);
  assert.equal(requestChanges("Chat Completions", { messages: [] }), null);
  // Without the change, an unset store is found: forgetting it fails safe
  assert.deepEqual(providerFeaturesOf("Responses", body), [
    { feature: "stored_state", where: "store (absent: Responses stores by default)" },
  ]);
});

Deno.test("deniedUses() keeps what the plan does not allow and every unknown tool", () => {
  const uses = usesOf("Responses", {
    input: [{ role: "user", content: [{ type: "input_image", image_url: ATTACKER }] }],
    tools: [{ type: "web_search" }, { type: "future_tool" }],
  });
  assert.deepEqual(deniedUses(uses, []).map((use) => use.feature), [
    "web_search",
    "unknown_tool",
    "remote_urls",
  ]);
  assert.deepEqual(
    deniedUses(uses, ["web_search", "remote_urls", "unknown_tool"]).map((use) => use.feature),
    ["unknown_tool"],
  );
});

Deno.test("refusalMessage() names the use, how to allow it and the other denied features", () => {
  assert.equal(
    refusalMessage([
      { feature: "web_search", where: 'tools[0].type "web_search"' },
      { feature: "web_search", where: 'tools[1].type "web_search_preview"' },
      { feature: "remote_urls", where: `input[0].content[0].image_url "${ATTACKER}"` },
    ]),
    'Provider feature not allowed: "web_search" at tools[0].type "web_search"; ' +
      'allow it with freeze --allow-provider-feature web_search; also denied: "remote_urls"',
  );
  assert.equal(
    refusalMessage([{ feature: "unknown_tool", where: 'tools[3].type "future_tool"' }]),
    'Provider tool not known: tools[3].type "future_tool" is neither a client tool nor a ' +
      "provider feature ledgerbench knows, so no plan can allow it",
  );
  assert.throws(() => refusalMessage([]), /no denied use/);
});

Deno.test("PROVIDER_FEATURES is the closed list a plan may name", () => {
  assert.equal(new Set(PROVIDER_FEATURES).size, PROVIDER_FEATURES.length);
  for (const name of PROVIDER_FEATURES) assert.ok(isProviderFeature(name));
  assert.equal(isProviderFeature("unknown_tool"), false);
  assert.equal(isProviderFeature("computer_use"), false, "computer use runs at the agent");
  // the module's rules are keyed by the API modules' names
  for (const api of [openaiChat, openaiResponses, anthropicMessages]) {
    providerFeaturesOf(api, {});
  }
});

Deno.test("providerFeaturesOf() cuts long values in where", () => {
  const long = `https://attacker.example/?leak=${"k".repeat(500)}`;
  const [use] = usesOf("Responses", {
    input: [{ role: "user", content: [{ type: "input_image", image_url: long }] }],
  });
  assert.ok(use.where.length < 160, use.where);
  assert.ok(use.where.endsWith("…"));
});

// ---------------------------------------------------------------------------
// Gemini

Deno.test("providerFeaturesOf() reads Gemini's hosted tools, cached content and file URIs", () => {
  const uses = usesOf("Gemini", {
    tools: [
      { functionDeclarations: [{ name: "run_shell_command" }] },
      { googleSearch: {} },
      { url_context: {} },
      { codeExecution: {} },
      { googleSearchRetrieval: { dynamicRetrievalConfig: {} } },
      { file_search: { fileSearchStoreNames: ["s"] } },
      { computerUse: { environment: "ENVIRONMENT_BROWSER" } },
      { retrieval: { vertexAiSearch: {} } },
    ],
    cachedContent: "cachedContents/abc",
    systemInstruction: { parts: [{ fileData: { fileUri: ATTACKER } }] },
    contents: [
      { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }] },
      {
        role: "user",
        parts: [{
          functionResponse: {
            name: "x",
            response: {},
            parts: [{
              file_data: {
                file_uri: "https://generativelanguage.googleapis.com/v1beta/files/f1",
              },
            }],
          },
        }],
      },
      { role: "user", parts: [{ text: `see ${ATTACKER}` }] },
    ],
  });
  assert.deepEqual(uses.map((use) => [use.feature, use.where]), [
    ["web_search", "tools[1].googleSearch {}"],
    ["web_fetch", "tools[2].url_context {}"],
    ["code_execution", "tools[3].codeExecution {}"],
    ["web_search", 'tools[4].googleSearchRetrieval {"dynamicRetrievalConfig":{}}'],
    ["file_search", 'tools[5].file_search {"fileSearchStoreNames":["s"]}'],
    ["unknown_tool", 'tools[7].retrieval {"vertexAiSearch":{}}'],
    ["stored_state", 'cachedContent "cachedContents/abc"'],
    ["remote_urls", `systemInstruction.parts[0].fileData.fileUri ${JSON.stringify(ATTACKER)}`],
    [
      "stored_state",
      "contents[1].parts[0].functionResponse.parts[0].file_data.file_uri " +
      '"https://generativelanguage.googleapis.com/v1beta/files/f1"',
    ],
  ]);
  assert.deepEqual(usesOf("Gemini", { contents: [{ parts: [{ text: "hi" }] }] }), []);
});
