import { deepEqual, equal, rejects } from "node:assert/strict";
import { UNCALIBRATED_JUDGE_REASON } from "../analysis/judge/judge_rows.ts";
import { Plan } from "../analysis/schema/records.ts";
import { chooseTaskList, configRef, loadLedger } from "./_load.ts";
import { taskListOption } from "./_standing.ts";
import { UsageError } from "./_command.ts";
import { assessLoaded } from "./_standing.ts";
import { row, writeJsonl } from "../tests/_cli_run.ts";

/** A judge record of an uncalibrated judge that gave `total` (null: no usable judgment). */
function judge(total: number | null, calibrated = false): Record<string, unknown> {
  return {
    rubric_id: "essay-rubric",
    rubric_sha256: "0".repeat(64),
    model: "judge-model-1",
    calibrated,
    max_attempts: 1,
    attempts: [{ reply: "{}", reply_chars: 2, problem: total === null ? "not JSON" : null }],
    scores: total === null ? null : [{ name: "correctness", score: 4 }],
    total,
    pass_threshold: 60,
    passed: total === null ? null : total >= 60,
    prompt_tokens: 500,
    completion_tokens: 10,
    model_calls: 1,
    evidence: null,
  };
}

/** Agents a and b on t1, t2 and the judged "essay" (a judge_fault for b). */
const ROWS = [
  row({ agent_id: "a", task_id: "t1", resolved: true }),
  row({ agent_id: "a", task_id: "t2", resolved: false }),
  row({ agent_id: "a", task_id: "essay", resolved: true, judge: judge(85) }),
  row({ agent_id: "b", task_id: "t1", resolved: true }),
  row({ agent_id: "b", task_id: "t2", resolved: true }),
  row({
    agent_id: "b",
    task_id: "essay",
    status: "invalid",
    resolved: null,
    invalid_reason: "judge_fault",
    judge: judge(null),
  }),
];

const PLAN = Plan.parse({
  plan_id: "p",
  tasks: [{ task_id: "t1" }, { task_id: "essay" }, { task_id: "t2" }],
  agents: [{ agent_id: "a" }, { agent_id: "b" }],
  price_table_id: "local-0",
  judge: { model: "judge-model-1", max_attempts: 1 },
});

Deno.test("loadLedger() leaves an uncalibrated judge's task out of the counted rows, with its reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const loaded = await loadLedger(await writeJsonl(`${dir}/l.jsonl`, ROWS));
    deepEqual([...loaded.rows].map((r) => `${r.agent_id}/${r.task_id}`), [
      "a/t1",
      "a/t2",
      "b/t1",
      "b/t2",
    ]);
    const leftOut = [{ task_id: "essay", rows: 2, reason: UNCALIBRATED_JUDGE_REASON }];
    deepEqual(loaded.left_out, leftOut);
    deepEqual(loaded.ledger.left_out, leftOut);
    // the recorded ledger keeps every row (validation reads it)
    equal(loaded.recorded.rows.length, 6);
    equal(loaded.ledger.rows, 6);
    // the judge's figures are over every row: 2 judged, 1 judge_fault, one total of 85
    const figures = loaded.judge!;
    deepEqual(
      [figures.rows, figures.calibrated_rows, figures.judge_faults, figures.judge_invalid_rate],
      [2, 0, 1, 0.5],
    );
    deepEqual([figures.mean_total, figures.judge_model_calls, figures.judge_prompt_tokens], [
      85,
      2,
      1000,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("assessLoaded(): a left-out planned task is neither planned nor missing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const loaded = await loadLedger(await writeJsonl(`${dir}/l.jsonl`, ROWS));
    const plan = { path: "p.json", sha256: "0".repeat(64), value: PLAN };
    const assessment = assessLoaded(loaded, plan, null);
    deepEqual(assessment.denominator!.task_ids, ["t1", "t2"]);
    deepEqual(assessment.leftOut.map((t) => t.task_id), ["essay"]);
    const [a, b] = assessment.coverage!;
    // a: 1 of 2 planned resolved; b: 2 of 2; no task missing for either
    deepEqual([a.planned, a.rows, a.missing, a.missing_tasks, a.score_planned], [2, 2, 0, [], 0.5]);
    deepEqual([b.planned, b.rows, b.missing, b.unplanned_rows, b.score_planned], [2, 2, 0, 0, 1]);
    deepEqual(assessment.standings.map((s) => [s.agent_id, s.missing_claim, s.withheld]), [
      ["a", "headline", null],
      ["b", "headline", null],
    ]);
    // the scores over scored rows leave essay out: a 1/2, b 2/2
    deepEqual(
      assessment.censoring.agents.map((r) => [r.agent_id, r.scored, r.score_all_tasks]),
      [["a", 2, 0.5], ["b", 2, 1]],
    );
    // the plan validates the recorded rows, essay's included: b's judge_fault is its task without
    // a scored attempt (a finding on missing rows, which the missing claim above decides); the
    // commands list no finding, and count them
    deepEqual(assessment.validation!.findings, []);
    deepEqual(assessment.validation!.finding_counts, {
      invalid_attempt: 1,
      no_scored_attempt: 1,
      row_count: 1,
    });
    deepEqual(assessment.validation!.agents.map((a) => [a.agent_id, a.finding_counts]), [
      ["a", {}],
      ["b", { invalid_attempt: 1, no_scored_attempt: 1 }],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadLedger(): a calibrated judge's rows count; a ledger without judged rows is unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const calibrated = ROWS.map((r) =>
      r.judge === undefined ? r : { ...r, judge: { ...(r.judge as object), calibrated: true } }
    );
    const loaded = await loadLedger(await writeJsonl(`${dir}/c.jsonl`, calibrated));
    equal(loaded.rows.length, 6);
    deepEqual(loaded.left_out, []);
    equal("left_out" in loaded.ledger, false);
    equal(loaded.judge!.calibrated_rows, 2);
    const plain = await loadLedger(await writeJsonl(`${dir}/p.jsonl`, ROWS.slice(0, 2)));
    deepEqual([plain.rows.length, plain.left_out, plain.judge], [2, [], null]);
    deepEqual(Object.keys(plain.ledger), ["path", "sha256", "lines", "rows", "chained"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chooseTaskList(): --tasks, else the list beside the ledger without a plan, --tasks none declines", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ledger = `${dir}/runs.jsonl`;
    const pick = async (given: string | undefined, plan: boolean) => {
      const { list, source } = await chooseTaskList(ledger, given, plan);
      return [source, list?.path ?? null, list?.note ?? null];
    };
    // Nothing beside the ledger: no denominator, as before.
    deepEqual(await pick(undefined, false), ["none", null, null]);
    await Deno.writeTextFile(`${dir}/runs.tasks.json`, '{"tasks": [{"task_id": "a"}]}');
    await Deno.writeTextFile(`${dir}/other.txt`, "a\nb\n");
    deepEqual(await pick(undefined, false), [
      "beside_ledger",
      `${dir}/runs.tasks.json`,
      "found beside the ledger",
    ]);
    // A plan is the denominator: the list beside the ledger is not looked at.
    deepEqual(await pick(undefined, true), ["none", null, null]);
    deepEqual(await pick(`${dir}/other.txt`, false), ["flag", `${dir}/other.txt`, null]);
    deepEqual(await pick("none", false), ["declined", null, null]);
    // The JSON outputs record the note; a list given with --tasks keeps its record's bytes.
    const found = (await chooseTaskList(ledger, undefined, false)).list;
    deepEqual(configRef(found, (t) => ({ tasks: t.tasks.length })), {
      path: `${dir}/runs.tasks.json`,
      sha256: found!.sha256,
      tasks: 1,
      note: "found beside the ledger",
    });
    const given = (await chooseTaskList(ledger, `${dir}/other.txt`, false)).list;
    deepEqual(Object.keys(configRef(given, (t) => ({ tasks: t.tasks.length }))!), [
      "path",
      "sha256",
      "tasks",
    ]);
    // taskListOption refuses a task list beside a plan, but not --tasks none.
    const plan = { path: "p.json", sha256: "0".repeat(64), value: {} as Plan };
    await rejects(() => taskListOption({ tasks: `${dir}/other.txt` }, plan, ledger), UsageError);
    equal(await taskListOption({ tasks: "none" }, plan, ledger), null);
    equal(await taskListOption({}, plan, ledger), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
