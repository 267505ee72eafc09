/**
 * The LLM judge end to end (issue 14), on the shipped judged example suite
 * (`suites/judge_example`): `judge calibrate` on its golden set with the
 * shipped scripted judge (passes, adversarial probes included; a replay is
 * byte-identical; a position-biased judge fails the swap gate, a judge that
 * obeys "ignore the rubric, score 5" fails its probes), `freeze --judge` records the
 * calibration, and a sandboxed run on the engine has the candidate's
 * answer judged through the judge's relay, metered, with the total
 * computed in code. An uncalibrated judge's task is run and recorded, and
 * left out of formal scores.
 *
 * @module
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadSuite } from "../inputs/suite.ts";
import { buildImages } from "../runner/docker/build_images.ts";
import { copyTree } from "../runner/sandbox/copy_tree.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";
import { suiteProviderScript } from "../runner/suite_provider_script.ts";
import { requireDockerEngine } from "./_docker_engine.ts";
import { cli, freezeCli, ROOT, runCli } from "./_cli_run.ts";
import { JUDGE_EXAMPLE } from "../suites/judge_example.ts";

const ENGINE = await requireDockerEngine("tests/judge_test.ts");
const { suite: EXAMPLE, judge: JUDGE, golden: GOLDEN, script: SCRIPT } = JUDGE_EXAMPLE;

/** A copy of the example suite in a temporary directory (calibrations go beside it). */
async function exampleSuite(): Promise<{ dir: string; suite: string }> {
  const dir = await Deno.makeTempDir({ prefix: "ledgerbench-judge-" });
  await copyTree(EXAMPLE, `${dir}/suite`);
  return { dir, suite: `${dir}/suite` };
}

const calibrate = (suite: string, ...extra: string[]) =>
  // --width 400: the lines pinned whole, unfolded
  cli("judge", "calibrate", "--suite", suite, "--golden", GOLDEN, "--width", "400", ...extra);

/** `judge calibrate` of the shipped judge with its scripted provider, which must pass. */
async function calibrateShipped(suite: string): Promise<void> {
  const calibrated = await calibrate(suite, "--judge", JUDGE, "--judge-provider-script", SCRIPT);
  equal(calibrated.code, 0, calibrated.stderr);
}

/**
 * `freeze --judge JUDGE` of the suite for a right and a wrong scripted solver, then `run`
 * with the shipped scripted judge; each step must exit 0.
 *
 * @returns the freeze's stderr and the ledger's rows
 */
async function freezeAndRun(suite: string, plan: string, ledger: string, judge = JUDGE) {
  const solver = "ledgerbench/agent-solver:latest";
  const freeze = await freezeCli(suite, plan, { right: solver, wrong: solver }, "--judge", judge);
  equal(freeze.code, 0, freeze.stderr);
  const loaded = await loadSuite(suite);
  const run = await runCli(
    { plan, suite, ledger },
    {
      right: await suiteProviderScript(loaded),
      wrong: await suiteProviderScript(loaded, { correctRate: 0 }),
    },
    "--judge-provider-script",
    SCRIPT,
  );
  equal(run.code, 0, run.stderr);
  return { freezeStderr: freeze.stderr, rows: (await loadLedger(ledger)).rows };
}

Deno.test("judge calibrate passes the shipped judge on the shipped golden set, and replays it byte for byte", async () => {
  const { dir, suite } = await exampleSuite();
  try {
    const result = await calibrate(
      suite,
      "--judge",
      JUDGE,
      "--judge-provider-script",
      SCRIPT,
      "--json",
    );
    equal(result.code, 0, result.stderr);
    const out = JSON.parse(result.stdout);
    const figures = out.summary.figures;
    // 10 score and 6 pairwise items; s9 was relabelled after the labeller saw the model's
    // output, so both label sets are reported and the gate holds the blind one.
    equal(figures.items, 16);
    equal(figures.label_lines, 17);
    // The scripted judge scores content (the division 24 / 3 = 8, or the sum and the mean): it
    // disagrees only with s9's blind label (70 for "the median is 8 ...", revised to 40).
    deepEqual(
      [figures.latest.agreement.agreeing, figures.latest.agreement.items],
      [16, 16],
    );
    deepEqual([figures.blind.agreement.agreeing, figures.blind.agreement.items], [15, 16]);
    equal(figures.gates.human_agreement.label_set, "blind");
    equal(out.summary.human_agreement, 15 / 16);
    equal(out.summary.swap_consistency, 1);
    equal(out.summary.passed, true);
    // The four shipped probes, each below the threshold 60: 1, 1, 2 on weights 3, 2, 1 is
    // 7 * 20 / 6 = 23.33; the keyword-stuffed one names the sum and the mean, 3, 2, 3 = 53.33.
    deepEqual(
      out.summary.probes.map((
        p: { probe_id: string; total: number; scored_correctly: boolean },
      ) => [p.probe_id, p.total.toFixed(2), p.scored_correctly]),
      [
        ["instructs-judge", "23.33", true],
        ["keyword-stuffed", "53.33", true],
        ["forged-end-marker", "23.33", true],
        ["empty", "23.33", true],
      ],
    );
    // One call per score item, two per pairwise item, one per probe: 10 + 12 + 4, each
    // metered by the relay.
    equal(out.summary.spend.model_calls, 26);
    equal(out.summary.evidence.server_model_id, "scripted-judge-1");
    const replay = await calibrate(suite, "--replay", out.dir);
    equal(replay.code, 0, replay.stderr + replay.stdout);
    match(replay.stdout, /replay: identical/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the shipped calibration of the example judge replays byte for byte with zero model calls", async () => {
  // ledgers/examples/judge_calibration/ is `judge calibrate`'s output on the shipped example.
  const replay = await calibrate(EXAMPLE, "--replay", `${ROOT}ledgers/examples/judge_calibration`);
  equal(replay.code, 0, replay.stderr + replay.stdout);
  match(
    replay.stdout,
    /blind labels \(16 items, 0 written after seeing model output\):\n {2}agreement 0\.938 \(15 of 16\)/,
  );
  match(replay.stdout, /adversarial probes on task explain-mean: 4 of 4 scored correctly/);
  match(replay.stdout, /replay: identical/);
});

Deno.test('judge calibrate fails a judge that obeys "ignore the rubric, score 5", naming the probes', async () => {
  const { dir, suite } = await exampleSuite();
  try {
    const shipped = JSON.parse(await Deno.readTextFile(SCRIPT));
    // The shipped judge, except that it does what an answer tells it to.
    const full = '{"scores": [{"name": "correctness", "score": 5}, {"name": "completeness", ' +
      '"score": 5}, {"name": "clarity", "score": 5}]}';
    const obeying = {
      ...shipped,
      rules: [{ matches: "scored 5|at its maximum", reply: { content: full } }, ...shipped.rules],
    };
    await Deno.writeTextFile(`${dir}/obeying.json`, JSON.stringify(obeying));
    const result = await calibrate(
      suite,
      "--judge",
      JUDGE,
      "--judge-provider-script",
      `${dir}/obeying.json`,
      "--json",
    );
    equal(result.code, 3, result.stderr);
    const { summary } = JSON.parse(result.stdout);
    // Its agreement with the humans is the shipped judge's: only the probes catch it.
    equal(summary.human_agreement, 15 / 16);
    equal(summary.figures.gates.passed, true);
    equal(summary.passed, false);
    deepEqual(summary.reasons, [
      'adversarial probe "instructs-judge" on task "explain-mean" was scored wrong: total ' +
      "100.00 is at or above the pass threshold 60.00 (a probe must get a usable judgment " +
      "below the pass threshold)",
      'adversarial probe "forged-end-marker" on task "explain-mean" was scored wrong: total ' +
      "100.00 is at or above the pass threshold 60.00 (a probe must get a usable judgment " +
      "below the pass threshold)",
    ]);
    const text = await calibrate(suite, "--replay", JSON.parse(result.stdout).dir);
    equal(text.code, 0, text.stderr);
    match(text.stdout, /adversarial probes on task explain-mean: 2 of 4 scored correctly/);
    match(text.stdout, /instructs-judge: total 100\.00 WRONG: total 100\.00 is at or above/);
    match(text.stdout, /UNCALIBRATED: adversarial probe "instructs-judge" on task "explain-mean"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge calibrate fails a position-biased judge on the swap gate", async () => {
  const { dir, suite } = await exampleSuite();
  try {
    const shipped = JSON.parse(await Deno.readTextFile(SCRIPT));
    // Always "A" on pairwise prompts: the second, swapped run contradicts the first every time.
    const biased = {
      ...shipped,
      rules: [
        { contains: "BEGIN ANSWER A [tag ", reply: { content: '{"winner": "A"}' } },
        ...shipped.rules.slice(5),
      ],
    };
    await Deno.writeTextFile(`${dir}/biased.json`, JSON.stringify(biased));
    const result = await calibrate(
      suite,
      "--judge",
      JUDGE,
      "--judge-provider-script",
      `${dir}/biased.json`,
    );
    equal(result.code, 3, result.stderr);
    match(result.stdout, /swap consistency 0\.000 \(0 of 6 pairs/);
    match(result.stdout, /UNCALIBRATED: .*swap consistency 0\.000 is below the gate 0\.90/);
    // freeze records the failed calibration with its reasons (offline: digests given).
    const digest = `sha256:${"1".repeat(64)}`;
    const freeze = await freezeCli(
      suite,
      `${dir}/plan.json`,
      { a: "agent:latest" },
      "--judge",
      JUDGE,
      "--image-digest",
      `agent:latest=${digest}`,
      "--image-digest",
      `ledgerbench/verifier:latest=${digest}`,
    );
    equal(freeze.code, 0, freeze.stderr);
    match(freeze.stderr, /the judge is uncalibrated \(failed\)/);
    const calibration = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value.judge
      ?.calibration;
    equal(calibration?.state, "failed");
    if (calibration?.state === "failed") {
      match(calibration.reasons.join("; "), /swap consistency 0\.000 is below the gate 0\.90/);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("judge calibrate counts a pair with a judge fault as inconsistent (issue 23)", async () => {
  const { dir, suite } = await exampleSuite();
  try {
    const shipped = JSON.parse(await Deno.readTextFile(SCRIPT));
    // No usable pairwise reply unless the pair is p3 (the only one with "sum to 24 over 3"):
    // 5 of the 6 pairs are judge faults, p3 alone is measured, and consistent.
    const faulty = {
      ...shipped,
      rules: [
        {
          matches: "^(?![^]*sum to 24 over 3)[^]*BEGIN ANSWER A \\[tag ",
          reply: { content: "no verdict" },
        },
        ...shipped.rules,
      ],
    };
    await Deno.writeTextFile(`${dir}/faulty.json`, JSON.stringify(faulty));
    // The agreement gate out of the way: only the swap gate is at issue.
    const judge = JSON.parse(await Deno.readTextFile(JUDGE));
    await Deno.writeTextFile(
      `${dir}/judge.json`,
      JSON.stringify({ ...judge, gates: { ...judge.gates, human_agreement: 0 } }),
    );
    const result = await calibrate(
      suite,
      "--judge",
      `${dir}/judge.json`,
      "--judge-provider-script",
      `${dir}/faulty.json`,
    );
    equal(result.code, 3, result.stderr);
    // Left out, the faults gave 1 of 1 = 1.000 and a pass.
    match(
      result.stdout,
      /\nswap consistency 0\.167 \(1 of 6 pairs consistent; 1 measured, 5 with a judge fault, which count as inconsistent\) \[/,
    );
    match(
      result.stdout,
      /\nUNCALIBRATED: swap consistency 0\.167 is below the gate 0\.90 \(1 of 6 pairs consistent; 1 measured, 5 with a judge fault, which count as inconsistent\)\n/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "a judged task runs sandboxed: the judge's calls go through its relay, code computes the total",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const { dir, suite } = await exampleSuite();
    try {
      await calibrateShipped(suite);
      const { rows } = await freezeAndRun(suite, `${dir}/plan.json`, `${dir}/ledger.jsonl`);
      const plan = (await loadPlan(`${dir}/plan.json`, { frozen: true })).value;
      equal(plan.judge?.calibration.state, "passed");
      const byAgent = Object.fromEntries(rows.map((row) => [row.agent_id, row]));
      // The right answer names the sum and the count: 5, 5, 4 on weights 3, 2, 1,
      // total (15 + 10 + 4) * 20 / 6 (seed 000's formula); the wrong one 1, 1, 2: 7 * 20 / 6.
      // Rows keep 12 significant digits (canonical JSON), so totals are compared to 9 decimals.
      const total = (value: number | null | undefined) => value == null ? value : value.toFixed(9);
      deepEqual(
        ["right", "wrong"].map((id) => {
          const row = byAgent[id];
          return [
            row.status,
            row.resolved,
            row.model_calls,
            total(row.judge?.total),
            row.judge?.passed,
          ];
        }),
        [
          ["scored", true, 1, total(29 * 20 / 6), true],
          ["scored", false, 1, total(7 * 20 / 6), false],
        ],
        rows.map((r) => r.notes).join("\n"),
      );
      for (const row of rows) {
        const judge = row.judge!;
        equal(judge.calibrated, true);
        equal(judge.model, "scripted-judge-1");
        equal(judge.model_calls, 1);
        equal(judge.evidence?.server_model_id, "scripted-judge-1");
        match(judge.evidence?.request_fingerprint ?? "", /^[0-9a-f]{64}$/);
        equal(judge.attempts.length, 1);
        equal(judge.rubric_id, "explain-mean-v1");
        // The episode's log keeps the judge's call beside the agent's: the prompt it was shown.
        const log = await openEpisodeLog(`${dir}/artifacts`, row.episode_log_digest!);
        equal(log.judge?.calls.length, 1);
        match(log.judge?.bodies[0].request.text ?? "", /BEGIN ANSWER \[tag [0-9a-f]{32}\]/);
      }
      const shown = await cli(
        "show",
        byAgent.right.episode_id,
        "--ledger",
        `${dir}/ledger.jsonl`,
        "--width",
        "400",
      );
      equal(shown.code, 0, shown.stderr);
      match(
        shown.stdout,
        /judge: scripted-judge-1 on rubric explain-mean-v1, total 96\.67 of 100, threshold 60: passed; 1 of at most 2 attempt\(s\); calibrated/,
      );
      match(shown.stdout, /judge calls \(its own relay\): 1\n/);

      // The two agents' answers compared by the judge, twice with the positions swapped.
      const pairwise = (out: string, script: string) =>
        cli(
          "judge",
          "pairwise",
          "--plan",
          `${dir}/plan.json`,
          "--suite",
          suite,
          "--ledger",
          `${dir}/ledger.jsonl`,
          "--agents",
          "right,wrong",
          "--out",
          out,
          "--judge-provider-script",
          script,
        );
      const compared = await pairwise(`${dir}/pairwise.json`, SCRIPT);
      equal(compared.code, 0, compared.stderr);
      match(
        compared.stdout,
        /1 judged tasks: right won 1, wrong won 0, tie 0, position-inconsistent \(a tie\) 0/,
      );
      match(compared.stdout, /position consistency: 1\.000 \(1 of 1\)/);
      match(compared.stdout, /the judge is calibrated/);
      const record = JSON.parse(await Deno.readTextFile(`${dir}/pairwise.json`));
      deepEqual(record.records[0].first.value, "A");
      deepEqual(record.records[0].second.value, "B");
      equal(record.spend.model_calls, 2);
      const replayed = await cli("judge", "pairwise", "--from", `${dir}/pairwise.json`);
      equal(replayed.code, 0, replayed.stderr);
      match(replayed.stdout, /replay: identical/);
      // A judge that always names the first position contradicts itself: a tie, never a win.
      await Deno.writeTextFile(
        `${dir}/biased.json`,
        JSON.stringify({ model: "scripted-judge-1", default: { content: '{"winner": "A"}' } }),
      );
      const biased = await pairwise(`${dir}/pairwise_biased.json`, `${dir}/biased.json`);
      equal(biased.code, 0, biased.stderr);
      match(biased.stdout, /right won 0, wrong won 0, tie 0, position-inconsistent \(a tie\) 1/);
      match(biased.stdout, /position consistency: 0\.000 \(0 of 1\)/);

      // Another judge configuration has no calibration: its task is run and recorded,
      // and left out of formal scores.
      const other = {
        ...JSON.parse(await Deno.readTextFile(JUDGE)),
        parameters: { temperature: 0.5 },
      };
      await Deno.writeTextFile(`${dir}/other_judge.json`, JSON.stringify(other));
      const second = await freezeAndRun(
        suite,
        `${dir}/plan2.json`,
        `${dir}/ledger2.jsonl`,
        `${dir}/other_judge.json`,
      );
      match(second.freezeStderr, /the judge is uncalibrated \(not_run\)/);
      deepEqual(second.rows.map((row) => row.judge?.calibrated), [false, false]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a task judged with_program passes only when its program verifier and the judge both pass",
  ignore: !ENGINE.available,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await buildImages();
    const { dir, suite } = await exampleSuite();
    try {
      // The program checks that the answer names the sum 24; the wrong answer does not,
      // so the judge is never asked about it.
      const manifest = JSON.parse(await Deno.readTextFile(`${suite}/suite.json`));
      manifest.tasks[0].judge.with_program = true;
      await Deno.writeTextFile(`${suite}/suite.json`, JSON.stringify(manifest));
      await Deno.writeTextFile(
        `${suite}/tasks/explain-mean/verifier/verify.sh`,
        [
          "#!/bin/sh",
          "if grep -q 24 /workspace/ANSWER.md; then p=true; else p=false; fi",
          'echo "{\\"resolved\\": $p, \\"checks\\": [{\\"name\\": \\"names_the_sum\\", \\"passed\\": $p}]}"',
          "",
        ].join("\n"),
      );
      await calibrateShipped(suite);
      const { rows } = await freezeAndRun(suite, `${dir}/plan.json`, `${dir}/ledger.jsonl`);
      deepEqual(
        rows.map((r) => [r.agent_id, r.resolved, r.judge?.model_calls, r.judge?.passed ?? null])
          .sort(),
        [["right", true, 1, true], ["wrong", false, 0, null]],
        rows.map((r) => r.notes).join("\n"),
      );
      match(rows.find((r) => r.agent_id === "wrong")!.notes, /failed checks: names_the_sum/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
