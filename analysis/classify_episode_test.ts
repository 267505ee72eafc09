import { deepEqual } from "node:assert/strict";
import {
  episodeSteps,
  episodeTokens,
  isCensored,
  isCompleted,
  isInvalid,
  isScored,
  overCap,
  WALL_CAP_KILL_MS,
} from "./classify_episode.ts";
import { StopReason } from "./schema/records.ts";

Deno.test("isCensored() marks every scored non-completed stop reason and no invalid row", () => {
  // Seed 003: graded = stop_reason == "completed"; everything else scored is censored.
  for (const stop_reason of StopReason.options) {
    const scored = { status: "scored" as const, stop_reason };
    const invalid = { status: "invalid" as const, stop_reason };
    deepEqual(isCensored(scored), stop_reason !== "completed", stop_reason);
    deepEqual(isCompleted(scored), stop_reason === "completed", stop_reason);
    deepEqual(isScored(scored), true);
    deepEqual(isInvalid(scored), false);
    // Invalid rows are neither censored nor completed, whatever their stop reason.
    deepEqual(isCensored(invalid), false, stop_reason);
    deepEqual(isCompleted(invalid), false, stop_reason);
    deepEqual(isScored(invalid), false);
    deepEqual(isInvalid(invalid), true);
  }
});

Deno.test("episodeSteps() counts model calls and falls back to tool calls", () => {
  deepEqual(episodeSteps({ model_calls: 7, tool_calls: 12 }), 7);
  // Seed-001 minimal rows record no model_calls.
  deepEqual(episodeSteps({ model_calls: null, tool_calls: 12 }), 12);
  // Zero model calls is a recorded zero, not a missing value (seed 000: zero-call candidate).
  deepEqual(episodeSteps({ model_calls: 0, tool_calls: 12 }), 0);
  // Seed-001 sample row a/t1: 1800 + 900 tokens.
  deepEqual(episodeTokens({ prompt_tokens: 1800, completion_tokens: 900 }), 2700);
});

Deno.test("overCap() allows the prompt bound's recorded error and a wall-cap kill's latency", () => {
  const row = {
    prompt_tokens: 1500,
    completion_tokens: 600,
    model_calls: 2,
    tool_calls: 2,
    wall_ms: 8053,
  };
  const caps = { token_cap: 2000, step_cap: null, wall_ms_cap: 8000 };
  // 2100 tokens, 100 over: within the cap when the server reported 100 prompt tokens beyond
  // the relay's bounds (issue 21), over it with 99.
  const evidence = (excess: number) => ({
    server_model_id: "m",
    usage_source: "server" as const,
    request_fingerprint: null,
    prompt_bound_excess: excess,
  });
  deepEqual(overCap({ ...row, evidence: evidence(100), stop_reason: "wall_cap" }, caps), []);
  deepEqual(overCap({ ...row, evidence: evidence(99), stop_reason: "wall_cap" }, caps), [
    { cap: "token_cap", limit: 2000, actual: 2100 },
  ]);
  // 8053 ms under a cap of 8000: a kill at the cap may take WALL_CAP_KILL_MS to be reported;
  // an episode that ended on its own has no such latency.
  deepEqual(overCap({ ...row, evidence: evidence(100), stop_reason: "completed" }, caps), [
    { cap: "wall_ms_cap", limit: 8000, actual: 8053 },
  ]);
  deepEqual(
    overCap({ ...row, wall_ms: 8000 + WALL_CAP_KILL_MS + 1, stop_reason: "wall_cap" }, {
      ...caps,
      token_cap: null,
    }),
    [{ cap: "wall_ms_cap", limit: 8000, actual: 38_001 }],
  );
});

Deno.test("overCap() is strict: spend equal to the cap is within it", () => {
  const row = {
    prompt_tokens: 600,
    completion_tokens: 400,
    model_calls: 20,
    tool_calls: 50,
    wall_ms: 300_000,
  };
  // 600 + 400 = 1000 tokens, 20 steps, 300000 ms: all exactly at the caps.
  deepEqual(overCap(row, { token_cap: 1000, step_cap: 20, wall_ms_cap: 300_000 }), []);
  // One unit below each cap: every cap exceeded, in the order token, step, wall.
  deepEqual(overCap(row, { token_cap: 999, step_cap: 19, wall_ms_cap: 299_999 }), [
    { cap: "token_cap", limit: 999, actual: 1000 },
    { cap: "step_cap", limit: 19, actual: 20 },
    { cap: "wall_ms_cap", limit: 299_999, actual: 300_000 },
  ]);
  // Null caps are never exceeded.
  deepEqual(overCap(row, { token_cap: null, step_cap: null, wall_ms_cap: null }), []);
  // Without model_calls the step cap reads tool_calls (50 > 20).
  deepEqual(
    overCap({ ...row, model_calls: null }, { token_cap: null, step_cap: 20, wall_ms_cap: null }),
    [
      { cap: "step_cap", limit: 20, actual: 50 },
    ],
  );
});
