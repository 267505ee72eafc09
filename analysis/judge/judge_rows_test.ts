import { deepEqual, equal } from "node:assert/strict";
import { judgeFigures, judgeLeftOut, UNCALIBRATED_JUDGE_REASON } from "./judge_rows.ts";
import { Episode } from "../schema/records.ts";

const SHA = "ab".repeat(32);

/** A seed-001 minimal row, with an optional judge record. */
function row(
  task_id: string,
  judge?: { calibrated: boolean; total: number | null; passed: boolean | null; calls?: number },
  agent_id = "a",
): Episode {
  const fault = judge !== undefined && judge.total === null;
  return Episode.parse({
    run_id: "r1",
    agent_id,
    task_id,
    seed: 1,
    status: fault ? "invalid" : "scored",
    resolved: fault ? null : judge?.passed ?? true,
    invalid_reason: fault ? "judge_fault" : null,
    prompt_tokens: 100,
    completion_tokens: 20,
    tool_calls: 3,
    wall_ms: 1000,
    price_table_id: "p1",
    ...(judge === undefined ? {} : {
      judge: {
        rubric_id: `${task_id}-rubric`,
        rubric_sha256: SHA,
        model: "judge-model",
        calibrated: judge.calibrated,
        max_attempts: 2,
        attempts: [],
        scores: null,
        total: judge.total,
        pass_threshold: 60,
        passed: judge.passed,
        prompt_tokens: 500,
        completion_tokens: 40,
        model_calls: judge.calls ?? 1,
        evidence: null,
      },
    }),
  });
}

Deno.test("judgeLeftOut() leaves out the rows of an uncalibrated judge, by task", () => {
  const rows = [
    row("plain"),
    row("essay", { calibrated: false, total: 80, passed: true }),
    row("review", { calibrated: true, total: 40, passed: false }),
    row("summary", { calibrated: false, total: null, passed: null }),
    row("essay", { calibrated: false, total: 50, passed: false }, "b"),
    row("plain", undefined, "b"),
  ];
  const { counted, leftOut } = judgeLeftOut(rows);
  deepEqual([...counted].map((r) => [r.task_id, r.agent_id]), [
    ["plain", "a"],
    ["review", "a"],
    ["plain", "b"],
  ]);
  deepEqual(leftOut, [
    { task_id: "essay", rows: 2, reason: UNCALIBRATED_JUDGE_REASON },
    { task_id: "summary", rows: 1, reason: UNCALIBRATED_JUDGE_REASON },
  ]);
  equal(UNCALIBRATED_JUDGE_REASON, "judged by an uncalibrated LLM judge (issue 14, seed 000 §06)");
  // Nothing judged: everything counts.
  deepEqual(judgeLeftOut([row("plain")]).leftOut, []);
});

Deno.test("judgeFigures() sums the judge's rows, faults, totals and spend", () => {
  const rows = [
    row("plain"),
    row("essay", { calibrated: true, total: 80, passed: true, calls: 2 }),
    row("essay", { calibrated: true, total: null, passed: null, calls: 2 }, "b"),
    row("review", { calibrated: false, total: 45, passed: false }),
    row("essay", { calibrated: true, total: 70, passed: true }, "c"),
  ];
  // Hand sums: 4 judged rows, 3 calibrated, 1 fault (1/4); totals 80, 45, 70 -> mean 65;
  // calls 2 + 2 + 1 + 1 = 6; prompt 4 x 500; completion 4 x 40.
  deepEqual(judgeFigures(rows), {
    rows: 4,
    calibrated_rows: 3,
    judge_faults: 1,
    judge_invalid_rate: 0.25,
    mean_total: 65,
    judge_model_calls: 6,
    judge_prompt_tokens: 2000,
    judge_completion_tokens: 160,
    by_task: [
      { task_id: "essay", rows: 3, judge_faults: 1, passed: 2, failed: 0 },
      { task_id: "review", rows: 1, judge_faults: 0, passed: 0, failed: 1 },
    ],
  });
});

Deno.test("judgeFigures() has null rates with no judged rows or no totals", () => {
  deepEqual(judgeFigures([row("plain")]), {
    rows: 0,
    calibrated_rows: 0,
    judge_faults: 0,
    judge_invalid_rate: null,
    mean_total: null,
    judge_model_calls: 0,
    judge_prompt_tokens: 0,
    judge_completion_tokens: 0,
    by_task: [],
  });
  const onlyFaults = judgeFigures([row("essay", { calibrated: true, total: null, passed: null })]);
  equal(onlyFaults.mean_total, null);
  equal(onlyFaults.judge_invalid_rate, 1);
});
