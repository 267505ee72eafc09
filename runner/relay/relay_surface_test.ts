import assert from "node:assert/strict";
import { MODEL_CALL_PATHS, rawTarget, routeRequest } from "./relay_surface.ts";

Deno.test("routeRequest() allows the model calls, the model list and the health probe only", () => {
  assert.deepEqual(MODEL_CALL_PATHS, [
    "/v1/chat/completions",
    "/v1/completions",
    "/v1/responses",
    "/v1/messages",
    "/v1beta/models/{model}:generateContent",
    "/v1beta/models/{model}:streamGenerateContent",
    "/v1/models/{model}:generateContent",
    "/v1/models/{model}:streamGenerateContent",
  ]);
  for (const path of MODEL_CALL_PATHS) {
    const sent = path.replace("{model}", "gemini-2.5-pro");
    const route = routeRequest("POST", sent);
    assert.equal(route.kind === "model_call" && route.api.paths.includes(path), true, path);
  }
  const beta = routeRequest("POST", "/v1/messages?beta=true");
  assert.deepEqual(
    beta.kind === "model_call" ? [beta.path, beta.target, beta.api.name] : beta,
    ["/v1/messages", "/v1/messages?beta=true", "Messages"],
  );
  for (
    const target of [
      "/v1/messages?beta=false",
      "/v1/messages?beta=true&x=1",
      "/v1/responses?beta=true",
      "/v1/messages/?beta=true",
    ]
  ) {
    const route = routeRequest("POST", target);
    assert.equal(route.kind === "denied" && route.status, 400, target);
  }
  assert.equal(routeRequest("GET", "/v1/messages?beta=true").kind, "denied");
  // Gemini: alt=sse is read on a stream and never forwarded; an agent's key= is dropped.
  const gemini = "/v1beta/models/gemini-2.5-pro:streamGenerateContent";
  for (const query of ["alt=sse", "key=sandbox&alt=sse", "key=sandbox", ""]) {
    const route = routeRequest("POST", query === "" ? gemini : `${gemini}?${query}`);
    assert.deepEqual(
      route.kind === "model_call" ? [route.path, route.query, route.target, route.api.name] : route,
      [gemini, query, gemini, "Gemini"],
      query,
    );
  }
  for (
    const target of [
      `${gemini}?alt=json`,
      `${gemini}?alt=sse&alt=sse`,
      `${gemini}?key=a%2Fb`,
      `${gemini}?$fields=x`,
      "/v1beta/models/gemini-2.5-pro:generateContent?alt=sse",
      "/v1beta/models/gemini-2.5-pro:generateContent?",
    ]
  ) {
    const route = routeRequest("POST", target);
    assert.equal(route.kind === "denied" && route.status, 400, target);
  }
  for (
    const path of [
      "/v1beta/models/gemini-2.5-pro:embedContent",
      "/v1beta/cachedContents",
      "/v1beta/files",
      "/upload/v1beta/files",
      "/v1beta/models/gemini-2.5-pro:batchGenerateContent",
    ]
  ) {
    assert.equal(routeRequest("POST", path).kind, "denied", path);
  }
  for (
    const path of ["/v1/responses/resp_1", "/v1/messages/batches"]
  ) {
    assert.equal(routeRequest("POST", path).kind, "denied", path);
  }
  // token counting: forwarded with its body, not a model call
  for (
    const [target, api, sent] of [
      ["/v1/messages/count_tokens", "Messages", "/v1/messages/count_tokens"],
      ["/v1/messages/count_tokens?beta=true", "Messages", "/v1/messages/count_tokens?beta=true"],
      [
        "/v1beta/models/gemini-2.5-pro:countTokens",
        "Gemini",
        "/v1beta/models/gemini-2.5-pro:countTokens",
      ],
      [
        "/v1beta/models/gemini-2.5-pro:countTokens?key=k",
        "Gemini",
        "/v1beta/models/gemini-2.5-pro:countTokens",
      ],
    ]
  ) {
    const route = routeRequest("POST", target);
    assert.deepEqual(
      route.kind === "count" ? [route.api.name, route.target] : route,
      [api, sent],
      target,
    );
  }
  assert.equal(routeRequest("GET", "/v1/messages/count_tokens").kind, "denied");
  assert.equal(
    routeRequest("POST", "/v1beta/models/gemini-2.5-pro:countTokens?alt=sse").kind,
    "denied",
  );
  assert.deepEqual(routeRequest("GET", "/v1/models"), { kind: "models", path: "/v1/models" });
  assert.deepEqual(routeRequest("GET", "/v1/models/gpt-4o-mini"), {
    kind: "models",
    path: "/v1/models/gpt-4o-mini",
  });
  assert.deepEqual(routeRequest("GET", "/relay/health"), { kind: "health" });
});

Deno.test("routeRequest() denies every path and method outside the allow-list", () => {
  const denied = (method: string, target: string) => {
    const route = routeRequest(method, target);
    assert.equal(route.kind, "denied", `${method} ${target}`);
    return route.kind === "denied" ? route.status : 0;
  };
  assert.equal(denied("DELETE", "/v1/files/file-abc"), 404);
  assert.equal(denied("POST", "/v1/files"), 404);
  assert.equal(denied("GET", "/v1/organization/api_keys"), 404);
  assert.equal(denied("POST", "/v1/embeddings"), 404);
  assert.equal(denied("GET", "/v1/models/a/b"), 404);
  assert.equal(denied("GET", "/v1/chat/completions"), 405);
  assert.equal(denied("DELETE", "/v1/models/m"), 405);
  assert.equal(denied("POST", "/v1/models"), 405);
  assert.equal(denied("POST", "/relay/health"), 405);
});

Deno.test("routeRequest() denies every non-canonical variant of a model path with 400", () => {
  for (
    const target of [
      "/v1/chat%2Fcompletions",
      "/v1/%63hat/completions",
      "/v1//chat/completions",
      "//v1/chat/completions",
      "/v1/chat/completions/",
      "/v1/./chat/completions",
      "/v1/models/../chat/completions",
      "/v1/chat/completions?stream=true",
      "/v1/chat/completions?",
      "/v1/chat/completions#x",
      "/v1/chat/completions;x",
      "/v1/models\\x",
      "v1/chat/completions",
      "*",
      "",
    ]
  ) {
    const route = routeRequest("POST", target);
    assert.equal(route.kind === "denied" && route.status, 400, target);
  }
});

Deno.test("rawTarget() drops the origin and keeps the target exactly as sent", () => {
  assert.equal(rawTarget("http+unix://relay/v1//chat/completions"), "/v1//chat/completions");
  assert.equal(rawTarget("http://relay/v1/models/../x?y"), "/v1/models/../x?y");
  assert.equal(rawTarget("http+unix://127.0.0.1:18080/v1/%2e%2e/x"), "/v1/%2e%2e/x");
  assert.equal(rawTarget("*"), "*");
});
