import assert from "node:assert/strict";
import { MODEL_APIS, modelApiFor } from "./model_apis.ts";

Deno.test("MODEL_APIS have disjoint paths and modelApiFor() finds each path's API", () => {
  const paths = MODEL_APIS.flatMap((api) => api.paths);
  assert.equal(new Set(paths).size, paths.length);
  assert.deepEqual(
    paths.map((path) => [path, modelApiFor(path)?.name, modelApiFor(path)?.kind]),
    [
      ["/v1/chat/completions", "Chat Completions", "openai"],
      ["/v1/completions", "Chat Completions", "openai"],
      ["/v1/responses", "Responses", "openai"],
      ["/v1/messages", "Messages", "anthropic"],
    ],
  );
  assert.equal(modelApiFor("/v1/messages/count_tokens"), null);
});
