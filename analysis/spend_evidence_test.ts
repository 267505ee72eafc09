import { deepEqual } from "node:assert/strict";
import { Episode } from "./schema/records.ts";
import { spendEvidenceFlags } from "./spend_evidence.ts";

const ROW = Episode.parse({
  run_id: "r",
  agent_id: "a",
  task_id: "t",
  seed: 1,
  resolved: false,
  prompt_tokens: 2100,
  completion_tokens: 10,
  tool_calls: 1,
  wall_ms: 10,
  price_table_id: "p",
  notes: "",
  model_calls: 1,
});

const evidence = (extra: Record<string, unknown>) => ({
  server_model_id: "m",
  usage_source: "server" as const,
  request_fingerprint: null,
  ...extra,
});

Deno.test("spendEvidenceFlags() flags unknown spend, provider features and the prompt bound's error", () => {
  deepEqual(spendEvidenceFlags(ROW), []);
  const row = {
    ...ROW,
    evidence: evidence({
      spend_unknown_calls: 2,
      provider_features: ["web_search"],
      prompt_bound_excess: 120,
    }),
  };
  deepEqual(spendEvidenceFlags(row), [
    {
      code: "spend_unknown",
      field: "evidence.spend_unknown_calls",
      message: "2 call(s) whose usage never arrived: the row's tokens are a lower bound",
    },
    {
      code: "provider_features",
      field: "evidence.provider_features",
      message: 'calls used provider features the plan allowed ("web_search"), whose work is ' +
        "outside the token count",
    },
    {
      code: "prompt_bound_exceeded",
      field: "evidence.prompt_bound_excess",
      message: "servers reported 120 prompt tokens beyond the relay's bounds of them",
    },
  ]);
  // A bound that held (excess 0) is no flag.
  deepEqual(spendEvidenceFlags({ ...ROW, evidence: evidence({ prompt_bound_excess: 0 }) }), []);
});
