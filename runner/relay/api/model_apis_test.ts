import assert from "node:assert/strict";
import { MODEL_APIS, modelApiFor } from "./model_apis.ts";

/** A documented path with its `{model}` filled in, as a client sends it. */
const sent = (path: string) => path.replace("{model}", "gemini-2.5-flash");

Deno.test("MODEL_APIS have disjoint paths and modelApiFor() finds each path's API", () => {
  const paths = MODEL_APIS.flatMap((api) => api.paths);
  assert.equal(new Set(paths).size, paths.length);
  assert.deepEqual(
    paths.map((path) => [path, modelApiFor(sent(path))?.name, modelApiFor(sent(path))?.kind]),
    [
      ["/v1/chat/completions", "Chat Completions", "openai"],
      ["/v1/completions", "Chat Completions", "openai"],
      ["/v1/responses", "Responses", "openai"],
      ["/v1/messages", "Messages", "anthropic"],
      ["/v1beta/models/{model}:generateContent", "Gemini", "gemini"],
      ["/v1beta/models/{model}:streamGenerateContent", "Gemini", "gemini"],
      ["/v1/models/{model}:generateContent", "Gemini", "gemini"],
      ["/v1/models/{model}:streamGenerateContent", "Gemini", "gemini"],
    ],
  );
  for (const path of paths) {
    assert.equal(MODEL_APIS.filter((api) => api.matches(sent(path))).length, 1);
  }
  assert.equal(modelApiFor("/v1/messages/count_tokens"), null);
  assert.equal(modelApiFor("/v1beta/models/gemini-2.5-flash:countTokens"), null);
  assert.equal(modelApiFor("/v1beta/models/gemini-2.5-flash:embedContent"), null);
  assert.equal(modelApiFor("/v1beta/tunedModels/x:generateContent"), null);
});
