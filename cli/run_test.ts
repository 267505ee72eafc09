import assert from "node:assert/strict";
import { upstreamKindOf } from "./run.ts";

Deno.test("upstreamKindOf() reads a known kind before + and defaults to openai", () => {
  assert.deepEqual(upstreamKindOf("anthropic+https://api.anthropic.com/v1"), {
    kind: "anthropic",
    target: "https://api.anthropic.com/v1",
  });
  assert.deepEqual(upstreamKindOf("openai+http://127.0.0.1:4000/v1"), {
    kind: "openai",
    target: "http://127.0.0.1:4000/v1",
  });
  assert.deepEqual(upstreamKindOf("https://api.example.com/v1"), {
    kind: "openai",
    target: "https://api.example.com/v1",
  });
  // an unknown prefix is part of the target (a file may have + in its name)
  assert.deepEqual(upstreamKindOf("a+b.json"), { kind: "openai", target: "a+b.json" });
});
