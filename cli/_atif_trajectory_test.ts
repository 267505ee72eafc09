import assert from "node:assert/strict";
import { atifTrajectory } from "./_atif_trajectory.ts";

const AGENT = { name: "a", version: "unknown", model_name: "m" };

Deno.test("atifTrajectory() gives no trajectory for no messages (ATIF needs a step)", () => {
  assert.equal(atifTrajectory([], AGENT), null);
});

Deno.test("atifTrajectory() maps roles, ids and results that name no call of their step", () => {
  const trajectory = atifTrajectory([
    { role: "developer", parts: [{ kind: "text", text: "Be brief." }] },
    { role: "tool", parts: [{ kind: "tool_result", id: "x", text: "orphan" }] },
    { role: "critic", parts: [{ kind: "text", text: "Try again." }] },
    {
      role: "assistant",
      parts: [
        { kind: "text", text: "Running" },
        { kind: "tool_call", id: null, name: "sh", arguments: "ls -l" },
      ],
    },
    { role: "tool", parts: [{ kind: "tool_result", id: "elsewhere", text: "a.txt" }] },
    { role: "tool", parts: [{ kind: "tool_result", id: null, text: "b.txt" }] },
  ], AGENT);
  assert.deepEqual(trajectory, {
    schema_version: "ATIF-v1.7",
    agent: { name: "a", version: "unknown", model_name: "m" },
    steps: [
      { step_id: 1, source: "system", message: "Be brief." },
      // a result with no agent step before it: a system step of its own, no call id
      {
        step_id: 2,
        source: "system",
        message: "",
        observation: { results: [{ content: "orphan" }] },
      },
      { step_id: 3, source: "user", message: "[critic] Try again." },
      {
        step_id: 4,
        source: "agent",
        message: "Running",
        // no id: one made from the step and the part; text arguments kept as {"input": ...}
        tool_calls: [{
          tool_call_id: "call_4_2",
          function_name: "sh",
          arguments: { input: "ls -l" },
        }],
        // results naming none of the step's calls keep no source_call_id (ATIF requires it)
        observation: { results: [{ content: "a.txt" }, { content: "b.txt" }] },
      },
    ],
  });
});
