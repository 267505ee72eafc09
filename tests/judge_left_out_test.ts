/**
 * Judged tasks of an uncalibrated LLM judge through the real CLI (issue 14;
 * seed 000: the tasks that depend on the judge are not scored for now): on
 * the fixture tests/fixtures/judge/, every command leaves their rows out of
 * its figures and says which tasks were left out and why; summarize adds the
 * judge's own figures. The expected values are counted by hand from the
 * fixture's 11 rows: agents a and b on t1..t3 (a: 2 of 3 resolved, b: 1 of
 * 3) and on the judged essay-1 and essay-2 (5 rows: totals 85, 60, 45, 65
 * and one judge_fault; the judge's calls 1 + 2 + 1 + 1 + 1 = 6, prompt
 * tokens 4 × 600 + 1200, completion tokens 4 × 12 + 20). Calibrated, the
 * same rows give each agent's judge-fault rate (issue 21): agent-a 1 of 3,
 * above 10%, so its numbers are withheld.
 */
import assert from "node:assert/strict";
import { UNCALIBRATED_JUDGE_REASON } from "../analysis/judge/judge_rows.ts";
import { cliInProcess, row, writeJsonl } from "./_cli_run.ts";

const LEDGER = "tests/fixtures/judge/judged_ledger.jsonl";
const PLAN = "tests/fixtures/judge/judged_plan.json";
const LEFT_OUT = [
  { task_id: "essay-1", rows: 2, reason: UNCALIBRATED_JUDGE_REASON },
  { task_id: "essay-2", rows: 3, reason: UNCALIBRATED_JUDGE_REASON },
];

const includes = (text: string, part: string) =>
  assert.ok(text.includes(part), `expected to find ${JSON.stringify(part)} in:\n${text}`);

Deno.test("summarize --json leaves the judged tasks out of the scores and records the judge", async () => {
  const result = await cliInProcess("summarize", LEDGER, "--plan", PLAN, "--json");
  assert.equal(result.code, 0, result.stderr);
  const json = JSON.parse(result.stdout);
  assert.deepEqual(
    json.agents.map((a: Record<string, number>) => [a.agent_id, a.episodes, a.resolved, a.scored]),
    [["agent-a", 3, 2, 3], ["agent-b", 3, 1, 3]],
  );
  assert.deepEqual(json.ledger.left_out, LEFT_OUT);
  assert.equal(json.ledger.rows, 11);
  // the denominator is the plan's 5 tasks less the 2 left out; nothing is missing
  assert.equal(json.denominator.tasks, 3);
  assert.deepEqual(
    json.coverage.map((c: Record<string, number>) => [c.planned, c.missing, c.unplanned_rows]),
    [[3, 0, 0], [3, 0, 0]],
  );
  assert.deepEqual(json.judge, {
    rows: 5,
    calibrated_rows: 0,
    judge_faults: 1,
    judge_invalid_rate: 0.2,
    mean_total: 63.75, // (85 + 60 + 45 + 65) / 4
    judge_model_calls: 6,
    judge_prompt_tokens: 3600,
    judge_completion_tokens: 68,
    by_task: [
      { task_id: "essay-1", rows: 2, judge_faults: 0, passed: 1, failed: 1 },
      { task_id: "essay-2", rows: 3, judge_faults: 1, passed: 2, failed: 0 },
    ],
  });
  // the agents' tokens are theirs alone: a's t1..t3 rows, 1100+1200+1300 prompt, 210+220+230
  assert.equal(json.agents[0].tokens, 4260);
});

Deno.test("summarize names each left-out task, its rows and why, and the judge's own figures", async () => {
  const result = await cliInProcess("summarize", LEDGER, "--plan", PLAN, "--width", "250");
  assert.equal(result.code, 0, result.stderr);
  const text = result.stdout;
  includes(
    text,
    "left out of formal scores: 2 tasks, 5 rows (recorded; no score, rate or denominator of an " +
      "agent below counts them)\n" +
      `  "essay-1": 2 rows, ${UNCALIBRATED_JUDGE_REASON}\n` +
      `  "essay-2": 3 rows, ${UNCALIBRATED_JUDGE_REASON}\n`,
  );
  includes(text, "(3 tasks per agent)");
  includes(
    text,
    '  not in it: 2 tasks left out of formal scores ("essay-1" and "essay-2"): neither planned ' +
      "nor missing\n",
  );
  includes(
    text,
    "LLM judge (issue 14): 5 judge-verified rows, 0 of them by a calibrated judge\n" +
      "  judge-invalid rate: 20.0% (1 judge_fault row of 5)\n" +
      "  mean total: 63.75 of 100\n" +
      "  the judge's own spend (never in an agent's tokens): 6 model calls, 3,600 prompt and 68 " +
      "completion tokens\n",
  );
  assert.match(text, /essay-1 +2 +0 +1 +1 +left out\n/);
  assert.match(text, /essay-2 +3 +1 +2 +0 +left out\n/);
  assert.doesNotMatch(text, /missing \(/);
});

Deno.test("compare, censoring, sprt and coverage say which tasks were left out", async () => {
  for (
    const args of [
      ["compare", LEDGER, "--plan", PLAN],
      ["censoring", LEDGER, "--plan", PLAN],
      ["sprt", LEDGER, "--plan", PLAN, "--agent", "agent-a"],
      ["coverage", LEDGER],
    ]
  ) {
    const text = await cliInProcess(...args);
    assert.equal(text.code, 0, `${args[0]}: ${text.stderr}`);
    includes(text.stdout, `  "essay-2": 3 rows, ${UNCALIBRATED_JUDGE_REASON}\n`);
    const json = await cliInProcess(...args, "--json");
    assert.deepEqual(JSON.parse(json.stdout).ledger.left_out, LEFT_OUT, args[0]);
  }
});

Deno.test("sprt replays the plan's order without the left-out tasks: none of them skipped", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // the judged tasks between the counted ones, where a replay would call them skipped
    const plan = JSON.parse(await Deno.readTextFile(PLAN));
    plan.tasks = ["t1", "essay-1", "t2", "essay-2", "t3"].map((task_id) => ({
      lane: "default",
      task_id,
    }));
    await Deno.writeTextFile(`${dir}/plan.json`, JSON.stringify(plan));
    const result = await cliInProcess(
      "sprt",
      LEDGER,
      "--plan",
      `${dir}/plan.json`,
      "--agent",
      "agent-a",
      "--p-adopt",
      "0.7",
      "--p-drop",
      "0.3",
      "--json",
    );
    assert.equal(result.code, 0, result.stderr);
    const replay = JSON.parse(result.stdout).replay;
    assert.deepEqual([replay.n, replay.passes, replay.fails], [3, 2, 1]);
    assert.deepEqual([replay.skipped_tasks, replay.unplanned], [[], []]);
    const text = await cliInProcess(
      "sprt",
      LEDGER,
      "--plan",
      `${dir}/plan.json`,
      "--agent",
      "agent-a",
    );
    includes(text.stdout, "pre-registered: the plan's 3 tasks counted in formal scores");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a left-out task's id is escaped like every id from a ledger", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const evil = "essay\u001b[2J\u202e";
    const judge = {
      rubric_id: "r",
      rubric_sha256: "0".repeat(64),
      model: "judge-model-1",
      calibrated: false,
      max_attempts: 1,
      attempts: [],
      scores: null,
      total: null,
      pass_threshold: 60,
      passed: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      model_calls: 0,
      evidence: null,
    };
    const ledger = await writeJsonl(`${dir}/l.jsonl`, [
      row({ task_id: "t1" }),
      row({ task_id: evil, resolved: false, judge }),
    ]);
    const result = await cliInProcess("summarize", ledger);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stdout.includes("\u001b") && !result.stdout.includes("\u202e"));
    assert.match(result.stdout, /left out of formal scores: 1 task, 1 row/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("summarize states each agent's judge-fault rate and withholds an agent above 10% (issue 21)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The fixture as if its judge had been calibrated: every judged row counts.
    const lines = (await Deno.readTextFile(LEDGER)).trim().split("\n").map((line) => {
      const parsed = JSON.parse(line);
      if (parsed.judge) parsed.judge.calibrated = true;
      return parsed;
    });
    const ledger = await writeJsonl(`${dir}/l.jsonl`, lines);
    const result = await cliInProcess("summarize", ledger, "--width", "250");
    assert.equal(result.code, 0, result.stderr);
    const text = result.stdout;
    // agent-a: essay-1 scored, essay-2 a judge_fault and its retry scored: 1 of 3 (33.3%);
    // with the fault as a failure 4 of 6. agent-b: 0 of 2.
    assert.match(text, /agent-a +3 +1 +33\.3% +budget adequacy only +66\.7% \(4\/6\)\n/);
    assert.match(text, /agent-b +2 +0 +0\.0% +headline +40\.0% \(2\/5\)\n/);
    assert.match(text, /agent-a +- +- +- +- +80\.0% +withheld \(judge_faults\)\n/);
    includes(
      text,
      'note: agent "agent-a": capability numbers withheld: 1 of its 3 judged rows is a judge ' +
        "fault (33.3%, above 10%): a judge fault is left out of every score, so no capability " +
        'claim is stated (judge faults, seed-003 policy "budget_adequacy_only")',
    );
    const json = JSON.parse((await cliInProcess("summarize", ledger, "--json")).stdout);
    assert.deepEqual(
      json.judge_faults.map((f: { agent_id: string; judge_faults: number; claim: string }) => [
        f.agent_id,
        f.judge_faults,
        f.claim,
      ]),
      [["agent-a", 1, "budget_adequacy_only"], ["agent-b", 0, "headline"]],
    );
    assert.equal(json.standings[0].withheld, "judge_faults");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
