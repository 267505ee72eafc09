import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { replaySprt } from "./replay_sprt.ts";
import { Episode } from "../schema/records.ts";
import { canonicalJson } from "../canonical_json.ts";

const LN_1_5 = 0.4054651081081644; // Python math.log(1.5)

/** One ledger row in the seed-001 minimal form; `resolved` null makes it invalid. */
function row(agent: string, task: string, resolved: boolean | null, attempt = 1): Episode {
  return Episode.parse({
    run_id: "r1",
    agent_id: agent,
    task_id: task,
    seed: 1,
    attempt,
    status: resolved === null ? "invalid" : "scored",
    invalid_reason: resolved === null ? "provider_fault" : null,
    resolved,
    prompt_tokens: 10,
    completion_tokens: 5,
    tool_calls: 1,
    wall_ms: 100,
    price_table_id: "p",
  });
}

const ORDER = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"];

Deno.test("replaySprt() walks the planned order, skips invalid attempts and adopts at +6 net", () => {
  // File order is scrambled; the plan's order puts t2's invalid attempt 1 before its rerun.
  const rows = [
    row("a", "t7", true),
    row("a", "t3", true),
    row("b", "t1", false), // another agent: ignored
    row("a", "t2", true, 2),
    row("a", "t1", true),
    row("a", "t2", null, 1), // rate limited: counted as invalid, rerun as attempt 2
    row("a", "t5", true),
    row("a", "t4", true),
    row("a", "t6", true),
    row("a", "t8", false),
  ];
  const r = replaySprt(rows, { agentId: "a", order: ORDER });
  equal(r.order, "planned");
  equal(r.verdict, "adopt");
  ok(r.decided);
  equal(r.n, 6);
  equal(r.passes, 6);
  equal(r.fails, 0);
  // Seed 002: 6 net passes → LLR = 6 · ln 1.5 = 2.4327906486 ≥ ln 9 = 2.1972.
  ok(Math.abs(r.llr - 6 * LN_1_5) < 1e-12);
  equal(r.attempts, 7);
  equal(r.invalid_count, 1);
  ok(Math.abs((r.invalid_rate as number) - 1 / 7) < 1e-15);
  deepEqual(r.steps.map((s) => [s.n, s.task_id, s.outcome, s.verdict]), [
    [1, "t1", "pass", "continue"],
    [1, "t2", "invalid", "continue"],
    [2, "t2", "pass", "continue"],
    [3, "t3", "pass", "continue"],
    [4, "t4", "pass", "continue"],
    [5, "t5", "pass", "continue"],
    [6, "t6", "pass", "adopt"],
  ]);
  equal(r.steps[1].episode_id, "r1/a/t2/1");
  ok(Math.abs(r.steps[5].llr - 5 * LN_1_5) < 1e-12);
  // Rows after the decision are listed, not dropped silently.
  deepEqual(r.after_decision, [
    { task_id: "t7", episode_id: "r1/a/t7/1", attempt: 1, outcome: "pass" },
    { task_id: "t8", episode_id: "r1/a/t8/1", attempt: 1, outcome: "fail" },
  ]);
  deepEqual(r.skipped_tasks, []);
  deepEqual(r.notes, [
    '2 rows after the decision at n = 6 listed under "after_decision" and not used',
  ]);
});

Deno.test("replaySprt() drops at −6 net and uses file order without a plan", () => {
  // Pass, then 7 fails: net −6 after the 7th fail is reached at n = 8 (1 pass, 7 fails).
  const rows = [row("a", "x", true), ...[1, 2, 3, 4, 5, 6, 7].map((i) => row("a", `f${i}`, false))];
  const r = replaySprt(rows, { agentId: "a" });
  equal(r.order, "file");
  equal(r.verdict, "drop");
  equal(r.n, 8);
  deepEqual([r.passes, r.fails], [1, 7]);
  equal(r.steps[6].verdict, "continue"); // net −5 continues
  equal(r.invalid_rate, 0);
  deepEqual(r.notes, []);
});

Deno.test("replaySprt() keeps the verdict continue when the ledger ends first", () => {
  const rows = [row("a", "t1", true), row("a", "t2", false), row("a", "t3", null)];
  const r = replaySprt(rows, { agentId: "a", order: ORDER });
  equal(r.verdict, "continue");
  equal(r.decided, false);
  equal(r.n, 2);
  equal(r.attempts, 3);
  equal(r.invalid_count, 1);
  deepEqual(r.notes, [
    "The ledger ends after 2 valid results (1 invalid attempt) without a decision: the verdict " +
    'stays "continue" (n_cap 60)',
  ]);
});

Deno.test("replaySprt() reaches the cap fallback (seed 002: cap-drop at the defaults)", () => {
  // Alternating results keep |net| ≤ 1: at n = 60, 30/60 = 50% < 60% gives cap-drop.
  const order = Array.from({ length: 62 }, (_, i) => `t${i}`);
  const rows = order.map((task, i) => row("a", task, i % 2 === 0));
  const r = replaySprt(rows, { agentId: "a", order });
  equal(r.verdict, "cap-drop");
  equal(r.n, 60);
  equal(r.after_decision.length, 2);
});

Deno.test("replaySprt() lists unplanned rows, skipped tasks and repeated valid results", () => {
  const rows = [
    row("a", "t1", true),
    row("a", "t3", true),
    row("a", "zz", true), // not in the plan
    row("a", "t4", false),
    row("a", "t4", true, 2), // a second valid result for t4
  ];
  const r = replaySprt(rows, { agentId: "a", order: ORDER });
  deepEqual(r.unplanned, [{ task_id: "zz", episode_id: "r1/a/zz/1", attempt: 1, outcome: "pass" }]);
  deepEqual(r.skipped_tasks, ["t2"]);
  deepEqual(r.repeated_tasks, ["t4"]);
  equal(r.n, 4);
  deepEqual(r.notes, [
    "The ledger ends after 4 valid results (0 invalid attempts) without a decision: the verdict " +
    'stays "continue" (n_cap 60)',
    '1 row names a task absent from the planned order: listed under "unplanned" and not used',
    "1 planned task before the last walked row without a valid result (listed under " +
    '"skipped_tasks"): the pre-registered order was not followed',
    'Task "t4" has 2 valid results: each counted as a separate result, while a pre-registered ' +
    "pool gives one valid result per task",
  ]);
});

Deno.test("replaySprt() reports an agent without rows and is JSON-stable", () => {
  const r = replaySprt([row("b", "t1", true)], { agentId: "a", params: { n_cap: 10 } });
  equal(r.verdict, "continue");
  equal(r.invalid_rate, null);
  deepEqual(r.notes, ['No rows for agent "a"']);
  equal(r.params.n_cap, 10);
  const text = canonicalJson(r);
  equal(canonicalJson(JSON.parse(text)), text);
});

Deno.test("replaySprt() refuses a task listed twice in the order", () => {
  throws(
    () => replaySprt([], { agentId: "a", order: ["t1", "t1"] }),
    /^RangeError: Cannot replay the SPRT: task "t1" appears twice in the order$/,
  );
});
