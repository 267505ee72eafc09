import { deepEqual, equal, ok } from "node:assert/strict";
import { UNCALIBRATED_JUDGE_REASON } from "../analysis/judge/judge_rows.ts";
import { Plan } from "../analysis/schema.ts";
import { buildReport } from "./build_report.ts";
import { loadReportInputs } from "./load_report_inputs.ts";
import type { ReportInputs } from "./report_model.ts";

const FIXTURE = new URL("../tests/fixtures/judge/", import.meta.url).pathname;
const SAMPLE = new URL("../ledgers/examples/sample_ledger.jsonl", import.meta.url).pathname;

/** The judged fixture (tests/fixtures/judge/), its plan's judge not calibrated. */
async function fixture(): Promise<ReportInputs> {
  return await loadReportInputs({
    ledger: `${FIXTURE}judged_ledger.jsonl`,
    plan: `${FIXTURE}judged_plan.json`,
  });
}

/** The fixture as if its judge had passed calibration: the plan's state and every row's record. */
function calibrated(inputs: ReportInputs): ReportInputs {
  const plan = inputs.plan!;
  return {
    ...inputs,
    ledger: {
      ...inputs.ledger,
      rows: inputs.ledger.rows.map((row) =>
        row.judge === undefined ? row : { ...row, judge: { ...row.judge, calibrated: true } }
      ),
    },
    plan: {
      ...plan,
      value: Plan.parse({
        ...plan.value,
        judge: {
          ...plan.value.judge,
          calibration: {
            state: "passed",
            summary_sha256: "1".repeat(64),
            calibrated_at: "2026-12-01T00:00:00.000Z",
            human_agreement: 0.85,
            swap_consistency: 0.95,
          },
        },
      }),
    },
  };
}

Deno.test("buildReport(): an uncalibrated judge's tasks are left out, and no formal claim rests on them", async () => {
  const report = buildReport(await fixture(), { calibrationTrials: 200 });
  const s = report.summary;
  // agent-a 2 of 3 counted rows resolved, agent-b 1 of 3 (the judged rows are not among them)
  deepEqual(s.agents.map((a) => [a.agent_id, a.episodes, a.resolved]), [
    ["agent-a", 3, 2],
    ["agent-b", 3, 1],
  ]);
  deepEqual(s.invalid.overall.reasons.judge_fault, 0);
  equal(s.denominator!.tasks, 3);
  deepEqual(s.coverage!.map((c) => [c.agent_id, c.planned, c.missing]), [
    ["agent-a", 3, 0],
    ["agent-b", 3, 0],
  ]);
  const judge = s.judge!;
  deepEqual(judge.plan!.calibration, { state: "not_run" });
  equal(judge.plan!.model, "judge-model-1");
  deepEqual(judge.left_out, [
    { task_id: "essay-1", rows: 2, reason: UNCALIBRATED_JUDGE_REASON },
    { task_id: "essay-2", rows: 3, reason: UNCALIBRATED_JUDGE_REASON },
  ]);
  // 1 judge_fault of 5 judged rows; totals 85, 60, 45 and 65
  deepEqual(
    [judge.figures.rows, judge.figures.judge_invalid_rate, judge.figures.mean_total],
    [5, 0.2, 63.75],
  );
  const claim = s.claims.find((c) => c.id === "judge")!;
  equal(claim.stated, false);
  equal(claim.topic, "judge");
  equal(
    claim.text,
    'No formal claim rests on the judged tasks: the LLM judge "judge-model-1" is unavailable ' +
      'because it has not been calibrated (calibration not run); 2 judged tasks ("essay-1" and ' +
      '"essay-2", 5 rows) are recorded but left out of every score, rate and denominator',
  );
  const md = report.markdown;
  ok(md.includes("## LLM judge\n"), md);
  ok(md.includes("calibration `not_run`"));
  ok(md.includes("- Judge-invalid rate: 20.0% (1 judge\\_fault row of 5).\n"));
  ok(md.includes("| essay-2 | 3 | 1 | 2 | 0 | left out |\n"));
  ok(md.includes(`- essay-1: 2 rows, ${UNCALIBRATED_JUDGE_REASON}.\n`));
  ok(md.includes("Not in the denominator: 2 judged tasks left out of formal scores"));
  // the withheld claim is in the summary's withheld list too
  const summary = md.slice(md.indexOf("## Summary"), md.indexOf("## Inputs"));
  ok(summary.includes("No formal claim rests on the judged tasks"), summary);
});

Deno.test("buildReport(): a calibrated judge's tasks count, with the measured agreement and swap consistency", async () => {
  const report = buildReport(calibrated(await fixture()), { calibrationTrials: 200 });
  const s = report.summary;
  // every row counts now: agent-a 4 of 5 scored resolved (essay-2's retry passed), one invalid
  deepEqual(s.agents.map((a) => [a.agent_id, a.episodes, a.invalid, a.resolved]), [
    ["agent-a", 6, 1, 4],
    ["agent-b", 5, 0, 2],
  ]);
  equal(s.invalid.overall.reasons.judge_fault, 1);
  equal(s.denominator!.tasks, 5);
  deepEqual(s.judge!.left_out, []);
  equal(s.judge!.figures.calibrated_rows, 5);
  const claim = s.claims.find((c) => c.id === "judge")!;
  equal(claim.stated, true);
  equal(
    claim.text,
    'The LLM judge "judge-model-1" passed its calibration: agreement with human labels 85% ' +
      "(gate: at least 80%), swap consistency 95% (gate: at least 90%); its 2 judged tasks count " +
      "in formal scores",
  );
  ok(report.markdown.includes("(agreement with human labels 85.0%, swap consistency 95.0%)"));
  ok(!report.markdown.includes("Not in the denominator"));
});

Deno.test("buildReport(): a plan's judge without judged rows is shown; without either, nothing", async () => {
  const inputs = await fixture();
  const kept = inputs.ledger.rows.flatMap((row, i) => row.judge === undefined ? [i] : []);
  const report = buildReport({
    ...inputs,
    ledger: {
      ...inputs.ledger,
      rows: kept.map((i) => inputs.ledger.rows[i]),
      row_lines: kept.map((i) => inputs.ledger.row_lines[i]),
    },
  }, { calibrationTrials: 200 });
  equal(report.summary.judge!.figures.rows, 0);
  const claim = report.summary.claims.find((c) => c.id === "judge")!;
  equal(claim.stated, false);
  ok(claim.text.endsWith("(calibration not run); the ledger has no judged row"), claim.text);
  const plain = buildReport(await loadReportInputs({ ledger: SAMPLE }));
  equal("judge" in plain.summary, false);
  ok(!plain.markdown.includes("LLM judge"));
  ok(!plain.summary.claims.some((c) => c.topic === "judge"));
});
