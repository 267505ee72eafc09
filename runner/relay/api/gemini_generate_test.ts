import assert from "node:assert/strict";
import { geminiGenerate } from "./gemini_generate.ts";
import type { SseEvent } from "../_sse_splitter.ts";
import { eventsOf, renderings, REPLIES } from "./_scripted_renderings_for_test.ts";

const PATH = "/v1beta/models/gemini-2.5-flash:generateContent";
const STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent";
const event = (data: unknown): SseEvent => ({ raw: "", data: JSON.stringify(data) });

Deno.test("geminiGenerate.wholeEvidence() adds tool-use prompt and thinking tokens, not the cached again", () => {
  const evidence = geminiGenerate.wholeEvidence({
    candidates: [{
      content: {
        role: "model",
        parts: [
          { text: "Let me look.", thought: true },
          { functionCall: { name: "run_shell_command", args: { command: "ls" } } },
          { executableCode: { language: "PYTHON", code: "print(1)" } },
          { functionCall: { name: "read_file", args: { path: "a" } } },
        ],
      },
      finishReason: "STOP",
    }],
    usageMetadata: {
      promptTokenCount: 1200,
      cachedContentTokenCount: 1000,
      candidatesTokenCount: 30,
      thoughtsTokenCount: 200,
      toolUsePromptTokenCount: 50,
      totalTokenCount: 1480,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 1200 }],
    },
    modelVersion: "gemini-2.5-pro",
  });
  assert.deepEqual(evidence, {
    model: "gemini-2.5-pro",
    // 1200 (its 1000 cached included) + 50 tool-use prompt; 30 + 200 thinking: 1480 in all
    usage: { prompt_tokens: 1250, completion_tokens: 230 },
    usageDetail: {
      promptTokenCount: 1200,
      candidatesTokenCount: 30,
      cachedContentTokenCount: 1000,
      thoughtsTokenCount: 200,
      toolUsePromptTokenCount: 50,
      totalTokenCount: 1480,
    },
    toolCalls: 2,
  });
  assert.equal(geminiGenerate.wholeEvidence({ usageMetadata: { totalTokenCount: 9 } }).usage, null);
});

Deno.test("geminiGenerate.streamReader() takes the usage once a chunk finished, and counts calls across chunks", () => {
  const reader = geminiGenerate.streamReader({});
  reader.add(event({
    candidates: [{ content: { role: "model", parts: [{ text: "a" }] } }],
    usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
    modelVersion: "gemini-2.5-flash",
  }));
  assert.equal(reader.evidence().usage, null);
  assert.equal(reader.wholeAtEnd?.(), false);
  assert.deepEqual(reader.notes(false), ["Upstream stream ended without a finishReason"]);
  reader.add(event({
    candidates: [{
      content: { role: "model", parts: [{ functionCall: { name: "x", args: {} } }] },
    }],
  }));
  const verdict = reader.add(event({
    candidates: [{
      content: { role: "model", parts: [{ functionCall: { name: "y", args: {} } }] },
      finishReason: "STOP",
    }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
    modelVersion: "gemini-2.5-flash-002",
  }));
  // no last event of its own: the stream ends with the body
  assert.deepEqual(verdict, { pass: true, end: false });
  assert.equal(reader.wholeAtEnd?.(), true);
  assert.deepEqual(reader.evidence(), {
    model: "gemini-2.5-flash",
    usage: { prompt_tokens: 10, completion_tokens: 4 },
    usageDetail: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
    toolCalls: 2,
  });
  assert.deepEqual(reader.notes(true), [
    'Chunks disagree on the model: first "gemini-2.5-flash", later "gemini-2.5-flash-002"',
  ]);
  const failed = geminiGenerate.streamReader({});
  failed.add(
    event({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }),
  );
  assert.equal(failed.upstreamError(), "The model is overloaded.");
});

// Reassembly: whole and streamed renderings of one scripted reply (scripted_reply_parts.ts).
for (const [name, reply] of Object.entries(REPLIES)) {
  Deno.test(`geminiGenerate.wholeFromEvents() rebuilds the scripted response: ${name}`, () => {
    const { whole, events } = renderings(PATH, reply);
    assert.deepEqual(geminiGenerate.wholeFromEvents(events, PATH), whole);
  });
}

Deno.test("geminiGenerate.wholeFromEvents() joins text parts of a kind and keeps the last candidate fields", () => {
  const events = eventsOf(
    [
      {
        candidates: [{
          content: { role: "model", parts: [{ text: "th", thought: true }] },
          index: 0,
        }],
        responseId: "r1",
        modelVersion: "m",
      },
      {
        candidates: [{
          content: { role: "model", parts: [{ text: "ink", thought: true }, { text: "An" }] },
          index: 0,
        }],
      },
      {
        candidates: [{
          content: { role: "model", parts: [{ text: "swer", thoughtSignature: "c2ln" }] },
          index: 0,
          finishReason: "MAX_TOKENS",
        }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
      },
    ].map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(""),
  );
  assert.deepEqual(geminiGenerate.wholeFromEvents(events, PATH), {
    candidates: [{
      content: {
        role: "model",
        parts: [{ text: "think", thought: true }, { text: "An" }, {
          text: "swer",
          thoughtSignature: "c2ln",
        }],
      },
      index: 0,
      finishReason: "MAX_TOKENS",
    }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
    modelVersion: "m",
    responseId: "r1",
  });
  assert.equal(geminiGenerate.wholeFromEvents([], PATH), null);
  assert.equal(
    geminiGenerate.wholeFromEvents(eventsOf('data: {"error":{"message":"x"}}\r\n\r\n'), PATH),
    null,
  );
});

Deno.test("geminiGenerate routes by path and query, and asks every call as a server-sent stream", () => {
  assert.deepEqual(
    [
      geminiGenerate.forwardedQuery(STREAM, "alt=sse"),
      geminiGenerate.forwardedQuery(STREAM, "key=sandbox&alt=sse"),
      geminiGenerate.forwardedQuery(PATH, "key=sandbox"),
      geminiGenerate.forwardedQuery(PATH, "alt=sse"),
      geminiGenerate.forwardedQuery(STREAM, "alt=json"),
      geminiGenerate.forwardedQuery(STREAM, "key=a&key=b"),
    ],
    ["", "", "", null, null, null],
  );
  assert.deepEqual(
    [
      geminiGenerate.answerForm(PATH, "", {}),
      geminiGenerate.answerForm(STREAM, "alt=sse", {}),
      geminiGenerate.answerForm(STREAM, "", {}),
      // a body's "stream" means nothing to Gemini
      geminiGenerate.answerForm(PATH, "", { stream: true }),
    ],
    ["whole", "sse", "json_array", "whole"],
  );
  assert.equal(geminiGenerate.requestedModel(PATH, { model: "other" }), "gemini-2.5-flash");
  const body = { contents: [] };
  assert.deepEqual(geminiGenerate.streamedCall(PATH, body), {
    target: `${STREAM}?alt=sse`,
    body,
  });
  assert.equal(geminiGenerate.streamedCall(STREAM, body).body, body);
});

Deno.test("geminiGenerate.requestProblem() refuses snake_case cap fields and more than one candidate", () => {
  assert.deepEqual(
    [
      { generation_config: { max_output_tokens: 9 } },
      { generationConfig: { max_output_tokens: 9 } },
      { cached_content: "cachedContents/x" },
      { generationConfig: { candidateCount: 2 } },
      { generationConfig: "x" },
      { generationConfig: { candidateCount: 1, maxOutputTokens: 9 } },
      { generationConfig: null },
    ].map((body) => geminiGenerate.requestProblem(body)?.split(":")[0] ?? null),
    [
      'Field "generation_config" is refused in snake_case',
      'Field "generationConfig.max_output_tokens" is refused in snake_case',
      'Field "cached_content" is refused in snake_case',
      'Field "generationConfig.candidateCount" must be 1 when given, not 2',
      'Field "generationConfig" must be an object, not "x"',
      null,
      null,
    ],
  );
});

Deno.test("geminiGenerate words a failed stream's last event as the SDK reads an error", () => {
  const text = geminiGenerate.streamErrorEvent({
    message: "cut",
    type: "upstream_error",
    code: "aborted",
  });
  assert.deepEqual(JSON.parse(text.slice("data: ".length)), {
    error: {
      code: 500,
      message: "cut",
      status: "INTERNAL",
      details: [{
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "aborted",
        domain: "ledgerbench",
      }],
    },
  });
});
