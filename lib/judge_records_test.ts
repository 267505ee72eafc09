import assert from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { judgeFigures } from "../analysis/judge/judge_rows.ts";
import { judgeRecords } from "./ledger_records.ts";

const FIXTURE = new URL("../tests/fixtures/judge/judged_ledger.jsonl", import.meta.url).pathname;

Deno.test("judgeRecords() flattens the judged rows of the fixture, and agrees with judgeFigures", async () => {
  const { rows } = await loadLedger(FIXTURE);
  const records = judgeRecords(rows);
  // lines 4, 5, 6 (agent-a: essay-1, essay-2 twice) and 10, 11 (agent-b)
  assert.deepEqual(records.map((r) => r.row), [4, 5, 6, 10, 11]);
  assert.deepEqual(records.map((r) => [r.task_id, r.attempt, r.outcome, r.total]), [
    ["essay-1", 1, "pass", 85],
    ["essay-2", 1, "invalid", null],
    ["essay-2", 2, "pass", 60],
    ["essay-1", 1, "fail", 45],
    ["essay-2", 1, "pass", 65],
  ]);
  assert.deepEqual(records[1].judge_attempts, 2);
  assert.ok(records.every((r) => !r.calibrated && r.judge_model === "judge-model-1"));
  // the same rows, counted by judgeFigures
  const figures = judgeFigures(rows);
  assert.equal(records.length, figures.rows);
  assert.equal(records.filter((r) => r.invalid_reason === "judge_fault").length, 1);
  assert.equal(
    records.reduce((sum, r) => sum + r.judge_model_calls, 0),
    figures.judge_model_calls,
  );
});
