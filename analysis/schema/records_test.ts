import assert from "node:assert/strict";
import { canonicalJson, canonicalJsonLine } from "../canonical_json.ts";
import { Episode, Evidence, ModelLimits, NO_MODEL_LIMITS, Plan } from "./records.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const HEX = "ab".repeat(32);

async function lines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(`${ROOT}/${path}`)).split("\n").filter((line) => line !== "");
}

Deno.test("Episode loads committed rows unchanged, their evidence included", async () => {
  // The demo ledger is written by the runner in canonical JSON with every field, so parsing and
  // re-serializing must give each line back byte for byte (the hash chain depends on it).
  const demo = await lines("ledgers/demo/ledger.jsonl");
  assert.ok(demo.length > 0);
  for (const line of demo) assert.equal(canonicalJsonLine(Episode.parse(JSON.parse(line))), line);
  // Every committed row with evidence keeps exactly its evidence object.
  let withEvidence = 0;
  for (
    const path of [
      "ledgers/demo/ledger.jsonl",
      "ledgers/examples/sample_ledger.jsonl",
      "ledgers/examples/synthetic_ledger.jsonl",
    ]
  ) {
    for (const line of await lines(path)) {
      const raw = JSON.parse(line);
      const row = Episode.parse(raw);
      if (raw.evidence === undefined) {
        assert.equal(row.evidence, null);
        continue;
      }
      withEvidence++;
      assert.deepEqual(row.evidence, raw.evidence, `${path}: ${row.episode_id}`);
    }
  }
  assert.ok(withEvidence > 0);
});

Deno.test("Evidence takes the model-limit fields as optional positive caps and counts", () => {
  const base = { server_model_id: "m", usage_source: "server", request_fingerprint: HEX };
  // Absent: stays absent (not recorded), not defaulted.
  assert.deepEqual(Evidence.parse(base), base);
  const limited = {
    ...base,
    max_output_tokens: 256,
    context_limit_tokens: null,
    max_call_tokens: 0,
  };
  assert.deepEqual(Evidence.parse(limited), limited);
  for (
    const bad of [{ max_output_tokens: 0 }, { context_limit_tokens: 0 }, { max_call_tokens: -1 }]
  ) {
    const result = Evidence.safeParse({ ...base, ...bad });
    assert.equal(result.success, false, JSON.stringify(bad));
    assert.deepEqual(result.error!.issues[0].path, Object.keys(bad));
  }
});

Deno.test("Plan loads with or without model_limits and stays in its canonical form", async () => {
  // loadPlan requires canonicalJson(parsed) to equal the file: a materialized default would break
  // every plan frozen before model_limits existed.
  const synthetic = await Deno.readTextFile(`${ROOT}/ledgers/examples/synthetic_plan.json`);
  assert.equal(Object.hasOwn(Plan.parse(JSON.parse(synthetic)), "model_limits"), false);
  // The demo plan declares limits (cli/demo.ts: 512 output tokens, 8192 context tokens).
  const demo = await Deno.readTextFile(`${ROOT}/ledgers/demo/plan.json`);
  const plan = Plan.parse(JSON.parse(demo));
  assert.deepEqual(plan.model_limits, { max_output_tokens: 512, context_limit_tokens: 8192 });
  assert.equal(canonicalJson(plan), demo);
  const minimal = Plan.parse({ plan_id: "p", tasks: [{ task_id: "t" }] });
  assert.equal(minimal.model_limits, undefined);
  // Absent means both null: the same as NO_MODEL_LIMITS.
  assert.deepEqual(minimal.model_limits ?? NO_MODEL_LIMITS, {
    max_output_tokens: null,
    context_limit_tokens: null,
  });
});

Deno.test("ModelLimits defaults each limit to null and refuses non-positive or unknown limits", () => {
  assert.deepEqual(ModelLimits.parse({}), NO_MODEL_LIMITS);
  assert.deepEqual(ModelLimits.parse({ max_output_tokens: 512 }), {
    max_output_tokens: 512,
    context_limit_tokens: null,
  });
  const plan = Plan.parse({
    plan_id: "p",
    tasks: [{ task_id: "t" }],
    model_limits: { context_limit_tokens: 8192 },
  });
  assert.deepEqual(plan.model_limits, { max_output_tokens: null, context_limit_tokens: 8192 });
  for (
    const [bad, path] of [
      [{ max_output_tokens: 0 }, ["model_limits", "max_output_tokens"]],
      [{ context_limit_tokens: 1.5 }, ["model_limits", "context_limit_tokens"]],
      [{ max_tokens: 5 }, ["model_limits"]],
    ] as const
  ) {
    const result = Plan.safeParse({ plan_id: "p", tasks: [{ task_id: "t" }], model_limits: bad });
    assert.equal(result.success, false, JSON.stringify(bad));
    assert.deepEqual(result.error!.issues[0].path, path);
  }
});

Deno.test("Episode keeps episode_log_digest when given, never adds it, and refuses a malformed one", () => {
  const minimal = {
    run_id: "r1",
    agent_id: "a",
    task_id: "t1",
    seed: 7,
    resolved: false,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
  };
  // Absent: stays absent, so a row written before the field re-serialises byte for byte.
  assert.equal("episode_log_digest" in Episode.parse(minimal), false);
  const logged = Episode.parse({ ...minimal, episode_log_digest: `sha256:${HEX}` });
  assert.equal(logged.episode_log_digest, `sha256:${HEX}`);
  for (const bad of [HEX, `sha256:${HEX.toUpperCase()}`, null]) {
    const result = Episode.safeParse({ ...minimal, episode_log_digest: bad });
    assert.equal(result.success, false, String(bad));
    assert.deepEqual(result.error!.issues[0].path, ["episode_log_digest"]);
  }
});
