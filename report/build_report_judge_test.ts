import { deepEqual, equal, ok } from "node:assert/strict";
import { UNCALIBRATED_JUDGE_REASON } from "../analysis/judge/judge_rows.ts";
import { Plan } from "../analysis/schema/records.ts";
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
      rows: [...inputs.ledger.rows].map((row) =>
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

Deno.test("buildReport(): an agent whose judge-fault rate is above 10% gets no capability claim", async () => {
  const report = buildReport(calibrated(await fixture()), { calibrationTrials: 200 });
  const s = report.summary;
  // agent-a: essay-1 scored, essay-2 a judge_fault, then its retry scored: 1 of 3 judged rows
  // (33.3%, above 10%); agent-b: 0 of 2 (under 2%). Left out of the score, the fault does not
  // lower agent-a's rate (4 of 5 = 80%); counted as a failure it would be 4 of 6 (66.7%).
  deepEqual(s.judge!.judge_faults, [
    {
      agent_id: "agent-a",
      judged: 3,
      judge_faults: 1,
      judge_fault_rate: 1 / 3,
      claim: "budget_adequacy_only",
      scored: 5,
      resolved: 4,
      resolved_rate_faults_as_failures: 4 / 6,
    },
    {
      agent_id: "agent-b",
      judged: 2,
      judge_faults: 0,
      judge_fault_rate: 0,
      claim: "headline",
      scored: 5,
      resolved: 2,
      resolved_rate_faults_as_failures: 2 / 5,
    },
  ]);
  deepEqual(
    s.standings.map((st) => [st.agent_id, st.judge_fault_claim, st.claim, st.withheld]),
    [
      ["agent-a", "budget_adequacy_only", "budget_adequacy_only", "judge_faults"],
      ["agent-b", "headline", "headline", null],
    ],
  );
  const text = (id: string) => s.claims.find((c) => c.id === id)!;
  equal(text("agent:agent-a").stated, false);
  equal(
    text("agent:agent-a").text,
    '"agent-a": resolved rate not stated: 1 of its 3 judged rows is a judge fault (33.3%, above ' +
      "10%): a judge fault is left out of every score, so no capability claim is stated",
  );
  equal(
    text("agent:agent-a").rule,
    'judge faults, seed-003 policy "budget_adequacy_only"',
  );
  equal(text("agent:agent-b").stated, true);
  equal(
    text("judge-faults:agent-a").text,
    '"agent-a": 1 of its 3 judged rows is a judge fault (33.3%; headline under 2%, both scores ' +
      "labelled up to 10%, above that budget adequacy only), so no capability claim is stated " +
      "for it; with them counted as failures its resolved rate is 66.7% (4 of 6, a lower bound)",
  );
  equal(
    text("judge-faults:agent-b").text,
    '"agent-b": 0 of its 2 judged rows are judge faults (0.0%; headline under 2%, both scores ' +
      "labelled up to 10%, above that budget adequacy only), so its judged tasks count as usual",
  );
  // The pair's ranking is withheld for the same cause.
  equal(text("pairs-withheld:judge_faults").stated, false);
  ok(
    report.markdown.includes("| agent-a | 3 | 1 | 33.3% | budget adequacy only | 66.7% (4 of 6) |"),
  );
});

Deno.test("buildReport(): a judge-fault rate from 2% to 10% states the rate beside the lower bound", async () => {
  const inputs = calibrated(await fixture());
  // agent-b with 47 more judged rows that pass, agent-a's judge fault moved to it: 1 of 50 (2%).
  const rows = [...inputs.ledger.rows];
  const fault = rows.find((r) => r.invalid_reason === "judge_fault")!;
  const passing = rows.find((r) => r.agent_id === "agent-b" && r.task_id === "essay-2")!;
  const extra = Array.from({ length: 47 }, (_, i) => ({
    ...passing,
    episode_id: `extra-${i}`,
    task_id: "essay-2",
  }));
  const moved = [
    ...rows.filter((r) => r !== fault),
    { ...fault, agent_id: "agent-b", episode_id: "moved-fault" },
    ...extra,
  ];
  const report = buildReport({
    ...inputs,
    plan: null,
    ledger: { ...inputs.ledger, rows: moved, row_lines: moved.map((_, i) => i + 1) },
  }, { calibrationTrials: 200 });
  const s = report.summary;
  const b = s.judge!.judge_faults.find((f) => f.agent_id === "agent-b")!;
  // 50 judged rows: essay-1, essay-2, 47 copies and the fault; 1/50 = 2%, the labelled band
  // (both bounds inclusive).
  deepEqual([b.judged, b.judge_faults, b.claim], [50, 1, "both_labelled"]);
  // 2 + 47 resolved of 5 + 47 scored; with the fault as a failure, 49 of 53.
  deepEqual([b.resolved, b.scored, b.resolved_rate_faults_as_failures], [49, 52, 49 / 53]);
  const claim = s.claims.find((c) => c.id === "agent:agent-b")!;
  equal(claim.stated, true);
  ok(
    claim.text.endsWith(
      "so both are stated, labelled; its judge-fault rate 2.0% (1 of 50 judged rows) needs " +
        "labels too: with them counted as failures its resolved rate is 92.5% (49 of 53, a " +
        "lower bound)",
    ),
    claim.text,
  );
  equal(claim.rule, 'seed-003 policy "both_labelled"');
});

Deno.test("buildReport(): a plan's judge without judged rows is shown; without either, nothing", async () => {
  const inputs = await fixture();
  const rows = [...inputs.ledger.rows];
  const kept = rows.flatMap((row, i) => row.judge === undefined ? [i] : []);
  const report = buildReport({
    ...inputs,
    ledger: {
      ...inputs.ledger,
      rows: kept.map((i) => rows[i]),
      row_lines: kept.map((i) => inputs.ledger.row_lines.at(i)!),
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
