import { deepEqual, equal } from "node:assert/strict";
import { AgentCheck, Episode } from "../analysis/schema/records.ts";
import { agentResult, NO_METERED_CALL } from "./check_agents.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { callRecord } from "./relay/_call_record_for_test.ts";

const DIGEST = `sha256:${"a1".repeat(32)}`;
const AGENT = {
  agent_id: "claude",
  image: "ledgerbench/agent-claude:latest",
  image_digest: DIGEST,
  model: null,
  upstream_kind: "anthropic" as const,
};

function row(overrides: Record<string, unknown> = {}) {
  return Episode.parse({
    run_id: "agent-check-1",
    agent_id: "claude",
    task_id: "agent-check",
    seed: null,
    resolved: false,
    prompt_tokens: 0,
    completion_tokens: 0,
    tool_calls: 0,
    model_calls: 0,
    wall_ms: 10,
    price_table_id: "unpriced",
    notes: "zero model calls",
    ...overrides,
  });
}

function log(overrides: Partial<EpisodeLog> = {}): EpisodeLog {
  return {
    format: "ledgerbench-episode-log/1",
    episode_id: "agent-check-1/claude/agent-check/1",
    stdout_tail: "",
    stderr_tail: "",
    calls: [],
    calls_omitted: 0,
    bodies: [],
    bodies_omitted: 0,
    ...overrides,
  };
}

Deno.test("agentResult() reads the first metered call's bound and caps, in index order", () => {
  // Records are kept in the order calls finished: call 2 finished first.
  const result = agentResult(
    AGENT,
    row({ model_calls: 2 }),
    log({
      calls: [
        callRecord(2, { endpoint: "/v1/messages", output_cap: 512, prompt_bound: 40 }),
        callRecord(1, {
          endpoint: "/v1/messages",
          output_cap: 32000,
          prompt_bound: 900,
          cap_lowered: false,
        }),
      ],
    }),
  );
  equal(result.verdict, "ok");
  equal(result.reason, null);
  equal(result.model_calls, 2);
  deepEqual(result.first_call, {
    index: 1,
    endpoint: "/v1/messages",
    prompt_bound: 900,
    output_cap: 32000,
    requested_output_cap: 32000,
    cap_lowered: false,
  });
  deepEqual(result.episode, {
    status: "scored",
    invalid_reason: null,
    stop_reason: "completed",
    notes: "zero model calls",
  });
});

Deno.test("agentResult() takes a cap the relay set as none asked", () => {
  const result = agentResult(
    AGENT,
    row({ model_calls: 1 }),
    log({
      calls: [callRecord(1, { output_cap: 999_999_932, prompt_bound: 68, cap_lowered: true })],
    }),
  );
  equal(result.first_call?.requested_output_cap, null);
  equal(result.first_call?.output_cap, 999_999_932);
});

Deno.test("agentResult() refuses an agent whose every request was refused, listing them", () => {
  const result = agentResult(
    AGENT,
    row(),
    log({
      calls: [
        callRecord(1, {
          endpoint: "/v1/chat/completions",
          forwarded: false,
          refusal: "unsupported",
          status: 404,
          upstream_status: null,
          usage: null,
          detail: "Not served by this relay",
        }),
      ],
      denied_requests: [{ method: "HEAD", target: "/api/hello", status: 404, code: "not_found" }],
    }),
  );
  equal(result.verdict, "refused");
  equal(result.reason, NO_METERED_CALL);
  equal(result.model_calls, 0);
  equal(result.first_call, null);
  deepEqual(result.refused_calls, [{
    index: 1,
    endpoint: "/v1/chat/completions",
    refusal: "unsupported",
    status: 404,
    detail: "Not served by this relay",
  }]);
  deepEqual(result.denied_requests, [
    { method: "HEAD", target: "/api/hello", status: 404, code: "not_found" },
  ]);
  // The entry fits the schema freeze reads it through.
  equal(
    AgentCheck.safeParse({
      schema_version: 1,
      checked_at: "2026-12-01T00:00:00.000Z",
      runner_version: "v",
      token_cap: 1,
      passed: false,
      agents: [result],
    }).success,
    true,
  );
});

Deno.test("agentResult() without a row or a log is refused with no episode", () => {
  const result = agentResult(AGENT, undefined, null);
  equal(result.verdict, "refused");
  equal(result.episode, null);
  deepEqual(result.refused_calls, []);
});
