import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { canonicalJson } from "./canonical_json.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { Episode, PriceTable } from "./schema/records.ts";
import { summarizeAgents } from "./summarize_agents.ts";

const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;
const TOLERANCE = 1e-12;

function close(actual: number | null, expected: number, what: string): void {
  ok(
    actual !== null && Math.abs(actual - expected) <= TOLERANCE * Math.max(1, Math.abs(expected)),
    `${what}: got ${actual}, expected ${expected}`,
  );
}

function throwsWith(fn: () => unknown, kind: ErrorConstructor, text: string): void {
  throws(fn, (error: unknown) => error instanceof kind && error.message.includes(text));
}

let serial = 0;
function row(fields: Record<string, unknown>): Episode {
  serial++;
  return Episode.parse({
    run_id: "r",
    task_id: `t${serial}`,
    seed: 1,
    prompt_tokens: 100,
    completion_tokens: 50,
    tool_calls: 1,
    wall_ms: 1000,
    price_table_id: "p",
    ...fields,
  });
}

function invalid(fields: Record<string, unknown>): Episode {
  return row({ status: "invalid", resolved: null, invalid_reason: "verifier_fault", ...fields });
}

const SEED_000_WEIGHTS = { A: 8, B: 24, C: 12, D: 20, E: 16, F: 16, G: 4 };

Deno.test("summarizeAgents() pins the seed-001 sample", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const [a, b] = summarizeAgents(rows);
  // Seed 001: a resolves 3/4, b 2/4; no invalid rows in the sample.
  deepEqual(
    [a.agent_id, a.episodes, a.invalid, a.invalid_rate, a.scored, a.resolved, a.resolved_rate],
    ["a", 4, 0, 0, 4, 3, 0.75],
  );
  deepEqual(
    [b.agent_id, b.episodes, b.invalid, b.invalid_rate, b.scored, b.resolved, b.resolved_rate],
    ["b", 4, 0, 0, 4, 2, 0.5],
  );
  // Seed 001 counts failed attempts' tokens: a = 2700 + 7300 + 9500 + 3800 = 23300,
  // TPR 23300 / 3 = 7766.67; b = 1300 + 2400 + 1600 + 2200 = 7500, TPR 7500 / 2 = 3750.
  equal(a.tokens, 23300);
  close(a.tpr, 23300 / 3, "TPR a");
  ok(Math.abs(a.tpr! - 7766.67) < 0.005);
  equal(b.tokens, 7500);
  equal(b.tpr, 3750);
  // Seed 001's SPR is all wall time over greens (its script sums wall_ms over every row):
  // a = (14 + 41 + 56 + 18) s / 3 = 129 / 3 = 43 s; b = (8 + 12 + 9 + 11) s / 2 = 40 / 2 = 20 s.
  equal(a.wall_seconds, 129);
  equal(a.spr, 43);
  equal(b.wall_seconds, 40);
  equal(b.spr, 20);
  equal(a.invalid_tokens, 0);
  equal(a.cost, null);
  equal(a.lane_score, null);
});

Deno.test("summarizeAgents() keeps invalid rows out of every scored column", () => {
  const rows = [
    row({
      agent_id: "x",
      resolved: true,
      prompt_tokens: 300,
      completion_tokens: 100,
      wall_ms: 4000,
    }),
    row({
      agent_id: "x",
      resolved: false,
      prompt_tokens: 500,
      completion_tokens: 100,
      wall_ms: 2000,
    }),
    invalid({ agent_id: "x", prompt_tokens: 7000, completion_tokens: 1000, wall_ms: 9000 }),
  ];
  const [x] = summarizeAgents(rows);
  // Hand computation: 3 episodes, 1 invalid (rate 1/3), 2 scored, 1 resolved (rate 1/2);
  // tokens 400 + 600 = 1000 (TPR 1000); wall 6 s (SPR 6); invalid tokens 8000, 9 s.
  deepEqual(
    [x.episodes, x.invalid, x.scored, x.resolved, x.resolved_rate, x.tokens, x.tpr, x.spr],
    [3, 1, 2, 1, 0.5, 1000, 1000, 6],
  );
  close(x.invalid_rate, 1 / 3, "invalid rate");
  deepEqual([x.invalid_tokens, x.wall_seconds, x.invalid_wall_seconds], [8000, 6, 9]);
});

Deno.test("summarizeAgents() gives no TPR or SPR when nothing resolved, and no rate when nothing scored", () => {
  const rows = [
    row({ agent_id: "failer", resolved: false }),
    row({ agent_id: "failer", resolved: false }),
    invalid({ agent_id: "voided" }),
  ];
  const [failer, voided] = summarizeAgents(rows);
  // Seed 001: "如果绿色数为零，Agent 没有 TPR".
  deepEqual([failer.resolved_rate, failer.tpr, failer.spr, failer.tokens], [0, null, null, 300]);
  // Only invalid rows: nothing scored, so no rate at all (not 0%).
  deepEqual([voided.scored, voided.resolved_rate, voided.tpr, voided.invalid_rate], [
    0,
    null,
    null,
    1,
  ]);
});

Deno.test("summarizeAgents() sorts agents by code unit and has stable JSON", () => {
  const rows = [
    row({ agent_id: "b", resolved: true }),
    row({ agent_id: "a", resolved: true }),
    row({ agent_id: "B", resolved: false }),
  ];
  deepEqual(summarizeAgents(rows).map((s) => s.agent_id), ["B", "a", "b"]);
  equal(canonicalJson(summarizeAgents(rows)), canonicalJson(summarizeAgents([...rows].reverse())));
  // Key order of each record is the documented one.
  deepEqual(Object.keys(summarizeAgents(rows)[0]), [
    "agent_id",
    "episodes",
    "invalid",
    "invalid_rate",
    "scored",
    "resolved",
    "resolved_rate",
    "tokens",
    "invalid_tokens",
    "wall_seconds",
    "invalid_wall_seconds",
    "rows_without_tokens",
    "rows_without_wall",
    "agent_reported_token_rows",
    "tpr",
    "spr",
    "cost",
    "lane_score",
  ]);
  deepEqual(summarizeAgents([]), []);
});

Deno.test("summarizeAgents() prices the seed-001 sample through a frozen table", async () => {
  const { rows } = await loadLedger(SAMPLE);
  const table = PriceTable.parse({
    price_table_id: "local-0",
    currency: "USD",
    default_rate: { prompt_per_million: 3, completion_per_million: 15 },
    agent_rates: { b: { prompt_per_million: 0, completion_per_million: 0 } },
  });
  const [a, b] = summarizeAgents(rows, { priceTable: table });
  // Hand computation for a: prompt 1800 + 4200 + 5100 + 2600 = 13700, completion
  // 900 + 3100 + 4400 + 1200 = 9600; 13700 × 3 / 1e6 + 9600 × 15 / 1e6 = 0.0411 + 0.144 = 0.1851;
  // per resolved 0.1851 / 3 = 0.0617.
  close(a.cost!.cost, 0.1851, "cost a");
  close(a.cost!.cost_per_resolved, 0.0617, "cost per resolved a");
  deepEqual([a.cost!.price_table_id, a.cost!.currency, a.cost!.invalid_cost], [
    "local-0",
    "USD",
    0,
  ]);
  // Agent b has a zero rate: zero money, but seed 001 still ranks it by tokens and seconds.
  deepEqual([b.cost!.cost, b.cost!.cost_per_resolved, b.tpr], [0, 0, 3750]);
});

Deno.test("summarizeAgents() reports invalid rows' cost apart and no cost per resolved at 0", () => {
  const table = PriceTable.parse({
    price_table_id: "p",
    currency: "EUR",
    default_rate: { prompt_per_million: 1e6, completion_per_million: 2e6 },
  });
  const rows = [
    row({ agent_id: "x", resolved: false, prompt_tokens: 2, completion_tokens: 1 }),
    invalid({ agent_id: "x", prompt_tokens: 10, completion_tokens: 5 }),
  ];
  const [x] = summarizeAgents(rows, { priceTable: table });
  // Hand computation at 1 per prompt token, 2 per completion token: 2 + 2 = 4; invalid 10 + 10 = 20.
  deepEqual(x.cost, {
    price_table_id: "p",
    currency: "EUR",
    cost: 4,
    invalid_cost: 20,
    cost_per_resolved: null,
  });
});

Deno.test("summarizeAgents() refuses mixed or foreign price tables and agents without a rate", () => {
  const table = PriceTable.parse({
    price_table_id: "march",
    currency: "USD",
    agent_rates: { a: { prompt_per_million: 1, completion_per_million: 1 } },
  });
  const march = row({ agent_id: "a", resolved: true, price_table_id: "march" });
  const september = row({ agent_id: "a", resolved: true, price_table_id: "september" });
  // Seed 001: "不要把三月的费率表和九月的运行混在一起".
  throwsWith(
    () => summarizeAgents([march, september], { priceTable: table }),
    Error,
    'Cannot price episodes: rows mix price tables "march", "september"',
  );
  throwsWith(
    () => summarizeAgents([september], { priceTable: table }),
    Error,
    `Cannot price episode "${september.episode_id}": its price table "september" is not the frozen table "march"`,
  );
  throwsWith(
    () =>
      summarizeAgents([march, row({ agent_id: "z", resolved: true, price_table_id: "march" })], {
        priceTable: table,
      }),
    Error,
    'Cannot price agent "z": price table "march" has no rate for it and no default rate',
  );
  // Without a price table, mixed ids are no problem: no money is computed.
  equal(summarizeAgents([march, september])[0].cost, null);
});

Deno.test("summarizeAgents() computes seed 000's lane-weighted score", () => {
  // Every seed-000 lane with 2 tasks; the agent passes everything except one B task and
  // both G tasks. Hand computation: 8 + 24 × 0.5 + 12 + 20 + 16 + 16 + 4 × 0 = 84 of 100.
  const rows = Object.keys(SEED_000_WEIGHTS).flatMap((lane) => [
    row({ agent_id: "m", lane, resolved: lane !== "G" }),
    row({ agent_id: "m", lane, resolved: lane !== "G" && lane !== "B" }),
  ]);
  const [m] = summarizeAgents(rows, { laneWeights: SEED_000_WEIGHTS });
  const score = m.lane_score!;
  equal(score.score, 84);
  equal(score.max_score, 100);
  deepEqual([score.missing_lanes, score.unweighted_lanes], [[], []]);
  deepEqual(score.lanes.map((l) => l.lane), ["A", "B", "C", "D", "E", "F", "G"]);
  deepEqual(score.lanes[1], {
    lane: "B",
    weight: 24,
    scored: 2,
    resolved: 1,
    pass_rate: 0.5,
    points: 12,
  });
});

Deno.test("summarizeAgents() makes seed 000's 89-point run null once the verifier fault is invalid", () => {
  // Seed 000: 7 of 8 passed and the one failure weighed 11 points, so the run summed to 89.
  // As a failure it scores 89 (weights: the 7 passed tasks 89, the failed one 11, hand sum).
  const passed = Array.from(
    { length: 7 },
    () => row({ agent_id: "m", lane: "rest", resolved: true }),
  );
  const failed = row({ agent_id: "m", lane: "sensitive", resolved: false });
  const weights = { rest: 89, sensitive: 11 };
  equal(summarizeAgents([...passed, failed], { laneWeights: weights })[0].lane_score!.score, 89);
  // It was the verifier's fault: marked invalid, the lane has no scored rows, and the
  // official score is null ("正式分数是 null"), never 89 nor 100.
  const voided = invalid({ agent_id: "m", lane: "sensitive" });
  const score = summarizeAgents([...passed, voided], { laneWeights: weights })[0].lane_score!;
  equal(score.score, null);
  deepEqual(score.missing_lanes, ["sensitive"]);
  deepEqual(score.lanes[1], {
    lane: "sensitive",
    weight: 11,
    scored: 0,
    resolved: 0,
    pass_rate: null,
    points: null,
  });
});

Deno.test("summarizeAgents() names unweighted lanes and lets weight 0 exclude a lane", () => {
  const rows = [
    row({ agent_id: "m", lane: "A", resolved: true }),
    row({ agent_id: "m", lane: "extra", resolved: true }),
  ];
  const loose = summarizeAgents(rows, { laneWeights: { A: 8 } })[0].lane_score!;
  equal(loose.score, null);
  deepEqual(loose.unweighted_lanes, ["extra"]);
  // Weight 0 says "not scored" on purpose; a weight-0 lane without rows is not missing.
  const explicit = summarizeAgents(rows, { laneWeights: { A: 8, extra: 0, unused: 0 } })[0]
    .lane_score!;
  deepEqual([explicit.score, explicit.max_score, explicit.missing_lanes], [8, 8, []]);
  throwsWith(
    () => summarizeAgents(rows, { laneWeights: { A: -1 } }),
    RangeError,
    'weight of lane "A" must be a non-negative number, got -1',
  );
});

Deno.test("summarizeAgents() refuses a price table whose cost overflows, naming table, agent and episode", () => {
  // Schema-valid (finite, non-negative) rates near Number.MAX_VALUE: 100 prompt tokens × 1e308
  // is Infinity, which must never reach a table ("Infinity USD") or the JSON.
  const huge = PriceTable.parse({
    price_table_id: "huge",
    currency: "USD",
    default_rate: { prompt_per_million: 1e308, completion_per_million: 1e308 },
  });
  const rows = [row({ agent_id: "a", resolved: true, price_table_id: "huge" })];
  throwsWith(
    () => summarizeAgents(rows, { priceTable: huge }),
    RangeError,
    `Cannot price episode "r/a/${rows[0].task_id}/1" for agent "a" under price table "huge": ` +
      "the cost is Infinity, not a finite number",
  );
  // Invalid rows are priced too (invalid_cost), and refused alike.
  const invalidRows = [invalid({ agent_id: "b", price_table_id: "huge" })];
  throwsWith(
    () => summarizeAgents(invalidRows, { priceTable: huge }),
    RangeError,
    `episode "r/b/${invalidRows[0].task_id}/1" for agent "b" under price table "huge"`,
  );
  // Each episode finite, the agent's sum not: 1e300 per million, 1e7 + 0 tokens an episode,
  // running totals 1.7e308 after 17 episodes, 1.8e308 > Number.MAX_VALUE after the 18th.
  const table = PriceTable.parse({
    ...huge,
    default_rate: { prompt_per_million: 1e300, completion_per_million: 0 },
  });
  const many = Array.from(
    { length: 18 },
    () => row({ agent_id: "c", resolved: true, prompt_tokens: 1e7, price_table_id: "huge" }),
  );
  throwsWith(
    () => summarizeAgents(many, { priceTable: table }),
    RangeError,
    `Cannot price the episodes of agent "c" up to episode "r/c/${many[17].task_id}/1" under ` +
      'price table "huge"',
  );
  const [c] = summarizeAgents(many.slice(0, 17), { priceTable: table });
  close(c.cost!.cost, 1.7e302, "17 episodes at 1e301");
  close(c.cost!.cost_per_resolved, 1e301, "cost per resolved");
});

Deno.test("summarizeAgents() keeps TPR and SPR finite for the largest counts the schema allows", () => {
  // Count is a safe integer (zod 4's int()): at most Number.MAX_SAFE_INTEGER = 2^53 − 1.
  const max = Number.MAX_SAFE_INTEGER;
  ok(
    !Episode.safeParse({ ...row({ agent_id: "m", resolved: true }), prompt_tokens: 2 ** 53 })
      .success,
  );
  const rows = [1, 2].map(() =>
    row({
      agent_id: "m",
      resolved: true,
      prompt_tokens: max,
      completion_tokens: max,
      wall_ms: max,
    })
  );
  const [m] = summarizeAgents(rows);
  // tokens = 4 × (2^53 − 1) = 2^55 − 4 = 36028797018963964, exact (the spacing there is 4);
  // TPR = that / 2 resolved = 2^54 − 2 = 18014398509481982.
  equal(m.tokens, 36028797018963964);
  equal(m.tpr, 18014398509481982);
  // SPR = 2 × (2^53 − 1) ms / 1000 / 2 = 9007199254740.991 s (rounded to a double).
  close(m.spr, 9007199254740.991, "SPR");
  ok(canonicalJson(m).includes('"tpr": 18014398509481982'));
});

Deno.test("summarizeAgents(): tokens or time not recorded give no TPR, SPR or cost, never 0 (issue 11)", () => {
  const table = PriceTable.parse({
    price_table_id: "p",
    currency: "USD",
    default_rate: { prompt_per_million: 1, completion_per_million: 1 },
  });
  const rows = [
    row({ agent_id: "a", task_id: "t1", resolved: true }),
    row({
      agent_id: "a",
      task_id: "t2",
      resolved: true,
      prompt_tokens: null,
      completion_tokens: null,
    }),
    row({ agent_id: "a", task_id: "t3", resolved: false, wall_ms: null }),
    row({ agent_id: "b", task_id: "t1", resolved: true }),
  ];
  const [a, b] = summarizeAgents(rows, { priceTable: table });
  deepEqual(
    [a.tokens, a.tpr, a.wall_seconds, a.spr, a.rows_without_tokens, a.rows_without_wall],
    [null, null, null, null, 1, 1],
  );
  deepEqual([a.cost!.cost, a.cost!.cost_per_resolved], [null, null]);
  equal(a.resolved_rate, 2 / 3);
  // b recorded everything: its figures stand.
  deepEqual([b.rows_without_tokens, b.rows_without_wall, b.tpr !== null, b.spr !== null], [
    0,
    0,
    true,
    true,
  ]);
});

Deno.test("summarizeAgents(): nothing scored and nothing recorded is null, never 0 (issue 23)", () => {
  // An all-error SWE-bench import: every row invalid, no tokens or times recorded.
  const rows = Array.from({ length: 552 }, () =>
    invalid({
      agent_id: "m",
      invalid_reason: "harness_error",
      prompt_tokens: null,
      completion_tokens: null,
      wall_ms: null,
    }));
  const [m] = summarizeAgents(rows);
  equal(m.scored, 0);
  equal(m.tokens, null);
  equal(m.wall_seconds, null);
  equal(m.rows_without_tokens, 552);
  // Invalid rows recorded their tokens, but none was scored: still no total of scored tokens.
  const [n] = summarizeAgents([invalid({ agent_id: "n" })]);
  equal(n.tokens, null);
  equal(n.invalid_tokens, 150);
});

Deno.test("summarizeAgents() counts the scored rows whose tokens the agent reported (issue 23)", () => {
  const provenance = {
    evidence_kind: "imported",
    format: "harbor",
    importer_version: "1",
    source: "job/trial/result.json",
    source_sha256: "0".repeat(64),
    position: "trial",
    tokens_reported_by: "agent",
    model: null,
    reported_cost_usd: null,
  };
  const [a] = summarizeAgents([
    row({ agent_id: "a", resolved: true, prompt_tokens: 0, completion_tokens: 0, provenance }),
    row({ agent_id: "a", resolved: false }),
  ]);
  equal(a.tokens, 150);
  equal(a.agent_reported_token_rows, 1);
});
