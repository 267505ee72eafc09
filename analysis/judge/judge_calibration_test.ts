import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { judgeCalibration, type JudgedItem } from "./judge_calibration.ts";
import { canonicalJson } from "../canonical_json.ts";
import { DEFAULT_JUDGE_GATES } from "../defaults.ts";
import { GoldenLabel, type PairWinner } from "../schema/records.ts";

const TOLERANCE = 1e-12;
const OPTIONS = { gates: { ...DEFAULT_JUDGE_GATES }, rounds: 2000, seed: 7 };
const THRESHOLDS: Record<string, number> = { "t-essay": 60, "t-code": 70 };

function close(actual: number | null, expected: number, what: string): void {
  ok(
    actual !== null && Math.abs(actual - expected) <= TOLERANCE,
    `${what}: got ${actual}, expected ${expected}`,
  );
}

function score(
  item_id: string,
  task_id: string,
  label_version: number,
  seen_model_output: boolean,
  human_total: number,
): GoldenLabel {
  return GoldenLabel.parse({
    kind: "score",
    item_id,
    task_id,
    label_version,
    seen_model_output,
    answer: `answer of ${item_id}`,
    human_total,
  });
}

function pair(
  item_id: string,
  label_version: number,
  seen_model_output: boolean,
  human_winner: PairWinner,
): GoldenLabel {
  return GoldenLabel.parse({
    kind: "pairwise",
    item_id,
    task_id: "t-essay",
    label_version,
    seen_model_output,
    answer_a: `first answer of ${item_id}`,
    answer_b: `second answer of ${item_id}`,
    human_winner,
  });
}

function judgedScore(total: number | null, threshold = 60): JudgedItem {
  return { kind: "score", total, passed: total === null ? null : total >= threshold };
}

function judgedPair(first: PairWinner | null, second: PairWinner | null): JudgedItem {
  return { kind: "pairwise", first, second };
}

/**
 * The golden set of analysis/judge/_calibration_reference.py, in file order. s4 is revised
 * blind (both sets take v2); s6 and p7 are revised after the labeller saw the model's output,
 * towards the judge (they flip to agreement in the latest set); s8's only label saw it.
 * s5 and p6 are judge faults; p4, p5 and p7 are judged "A"/"A" or "B"/"B" (position bias).
 */
const LABELS: GoldenLabel[] = [
  score("s1", "t-essay", 1, false, 80),
  score("s2", "t-essay", 1, false, 40),
  score("s3", "t-essay", 1, false, 75),
  score("s4", "t-essay", 1, false, 55),
  score("s5", "t-essay", 1, false, 30),
  score("s6", "t-essay", 1, false, 50),
  score("s7", "t-code", 1, false, 70),
  score("s8", "t-code", 1, true, 90),
  pair("p1", 1, false, "A"),
  pair("p2", 1, false, "B"),
  pair("p3", 1, false, "tie"),
  pair("p4", 1, false, "A"),
  pair("p5", 1, false, "tie"),
  pair("p6", 1, false, "B"),
  pair("p7", 1, false, "A"),
  // Revisions, appended: s6 and p7 after seeing the model's output, s4 without.
  score("s6", "t-essay", 2, true, 70),
  pair("p7", 2, true, "tie"),
  score("s4", "t-essay", 2, false, 65),
];

const JUDGED = new Map<string, JudgedItem>([
  ["s1", judgedScore(83.33333333333333)],
  ["s2", judgedScore(40)],
  ["s3", judgedScore(55)],
  ["s4", judgedScore(60)],
  ["s5", judgedScore(null)],
  ["s6", judgedScore(76)],
  ["s7", judgedScore(70, 70)],
  ["s8", judgedScore(95, 70)],
  ["p1", judgedPair("A", "B")],
  ["p2", judgedPair("B", "A")],
  ["p3", judgedPair("tie", "tie")],
  ["p4", judgedPair("A", "A")],
  ["p5", judgedPair("B", "B")],
  ["p6", judgedPair(null, "A")],
  ["p7", judgedPair("A", "A")],
]);

const INPUT = { labels: LABELS, judged: JUDGED, passThresholds: THRESHOLDS };

Deno.test("judgeCalibration() reports the latest and the blind labels, which differ", () => {
  const result = judgeCalibration(INPUT, OPTIONS);
  equal(result.items, 15);
  equal(result.label_lines, 18);
  deepEqual(result.bootstrap, { method: "percentile_bootstrap", rounds: 2000, seed: 7 });
  // python3 analysis/judge/_calibration_reference.py -> latest agreement (11, 15, 0.7333...),
  //   score 6 of 8 (1 fault), pairwise 5 of 7 (1 fault); blind (8, 14, 0.5714...),
  //   score 4 of 7, pairwise 4 of 7 (s8 has no blind label).
  const latest = result.latest;
  deepEqual([latest.label_set, latest.items, latest.seen_model_output], ["latest", 15, 3]);
  deepEqual([latest.agreement.agreeing, latest.agreement.items], [11, 15]);
  equal(latest.agreement.rate, 11 / 15);
  deepEqual(
    [latest.score.items, latest.score.agreeing, latest.score.judge_faults],
    [8, 6, 1],
  );
  deepEqual(
    [latest.pairwise.items, latest.pairwise.agreeing, latest.pairwise.judge_faults],
    [7, 5, 1],
  );
  const blind = result.blind!;
  deepEqual([blind.label_set, blind.items, blind.seen_model_output], ["blind", 14, 0]);
  deepEqual([blind.agreement.agreeing, blind.agreement.items], [8, 14]);
  equal(blind.agreement.rate, 8 / 14);
  deepEqual([blind.score.items, blind.score.agreeing, blind.score.judge_faults], [7, 4, 1]);
  deepEqual(
    [blind.pairwise.items, blind.pairwise.agreeing, blind.pairwise.judge_faults],
    [7, 4, 1],
  );
  // Wilson, python3 closed form (same script): latest (0.4804956594401943, 0.8910254667430761),
  //   blind (0.3259064457965074, 0.7861920109552588).
  close(latest.agreement.wilson!.lower, 0.4804956594401943, "latest wilson lower");
  close(latest.agreement.wilson!.upper, 0.8910254667430761, "latest wilson upper");
  close(blind.agreement.wilson!.lower, 0.3259064457965074, "blind wilson lower");
  close(blind.agreement.wilson!.upper, 0.7861920109552588, "blind wilson upper");
  close(latest.score.wilson!.lower, 0.40927543031016883, "latest score wilson lower");
  close(blind.pairwise.wilson!.upper, 0.8417801447485302, "blind pairwise wilson upper");
});

Deno.test("judgeCalibration() computes each kappa as a hand computation does", () => {
  const { latest, blind } = judgeCalibration(INPUT, OPTIONS);
  // Hand counts, also python3 analysis/judge/_calibration_reference.py (floats):
  // latest score: 7 pairs, 6 agree, human pass 6 / fail 1, judge pass 5 / fail 2:
  //   (7*6 - (6*5 + 1*2)) / (49 - 32) = 10/17 (python3 -> 0.5882352941176469)
  equal(latest.score.kappa.pairs, 7);
  equal(latest.score.kappa.kappa, 10 / 17);
  close(latest.score.kappa.kappa, 0.5882352941176469, "latest score kappa");
  // latest pairwise: 6 pairs, 5 agree, human A2 B1 tie3, judge A1 B1 tie4: 15/21 = 5/7
  //   (python3 -> 0.7142857142857144)
  equal(latest.pairwise.kappa.pairs, 6);
  equal(latest.pairwise.kappa.kappa, 15 / 21);
  // blind score: 6 pairs, 4 agree, human pass 4 / fail 2, judge pass 4 / fail 2: 4/16
  //   (python3 -> 0.24999999999999986)
  equal(blind!.score.kappa.kappa, 0.25);
  // blind pairwise: 6 pairs, 4 agree, human A3 B1 tie2, judge A1 B1 tie4: 12/24
  //   (python3 -> 0.49999999999999994)
  equal(blind!.pairwise.kappa.kappa, 0.5);
});

Deno.test("judgeCalibration() kappa bootstrap matches a Python port of seedrandom's Alea", () => {
  const { latest, blind } = judgeCalibration(INPUT, OPTIONS);
  // python3 analysis/judge/_calibration_reference.py (Alea ported line by line; its first
  // draws for seed "7" equal seededRandom(7)'s: 0.36459518410265446, 0.007880980148911476):
  //   latest score (0.0, 1.0, 191 skipped), latest pairwise (0.0, 1.0, 39),
  //   blind score (-0.5000000000000001, 1.0, 20), blind pairwise (0.0, 1.0, 6).
  const expected: [typeof latest.score.kappa, number, number, number][] = [
    [latest.score.kappa, 0, 1, 191],
    [latest.pairwise.kappa, 0, 1, 39],
    [blind!.score.kappa, -0.5000000000000001, 1, 20],
    [blind!.pairwise.kappa, 0, 1, 6],
  ];
  for (const [figure, lower, upper, skipped] of expected) {
    close(figure.lower, lower, "lower");
    close(figure.upper, upper, "upper");
    equal(figure.skipped_rounds, skipped);
    ok(figure.lower! <= figure.kappa! && figure.kappa! <= figure.upper!, "contains kappa");
  }
  // Pinned from this implementation (exact rationals: one division of integer counts).
  deepEqual(
    [blind!.score.kappa.lower, blind!.score.kappa.upper, latest.score.kappa.lower],
    [-0.5, 1, 0],
  );
});

Deno.test("judgeCalibration() holds the gates to the blind labels, with both reasons", () => {
  const { swap_consistency: swap, gates } = judgeCalibration(INPUT, OPTIONS);
  // Swap: 7 pairs, p6 a fault (counted as inconsistent), p1 p2 p3 consistent of the 6
  //   measured: python3 (same script) -> 3 6 7 0.42857142857142855
  //   (0.15821985525146975, 0.7495416354723428)
  deepEqual(
    [swap.pairs, swap.judge_faults, swap.measured, swap.consistent, swap.rate],
    [7, 1, 6, 3, 3 / 7],
  );
  close(swap.wilson!.lower, 0.15821985525146975, "swap wilson lower");
  close(swap.wilson!.upper, 0.7495416354723428, "swap wilson upper");
  deepEqual(gates, {
    human_agreement: { gate: 0.8, value: 8 / 14, label_set: "blind", passed: false },
    swap_consistency: { gate: 0.9, value: 3 / 7, passed: false },
    passed: false,
    reasons: [
      "agreement with the blind human labels 0.571 is below the gate 0.80 (8 of 14 items)",
      "swap consistency 0.429 is below the gate 0.90 (3 of 7 pairs consistent; 6 measured, " +
      "1 with a judge fault, which counts as inconsistent)",
    ],
  });
  // With lower gates the latest set's 0.733 would pass, the blind set's 0.571 does not.
  const lenient = judgeCalibration(INPUT, {
    ...OPTIONS,
    gates: { human_agreement: 0.7, swap_consistency: 0.4 },
  });
  deepEqual(lenient.gates.reasons, [
    "agreement with the blind human labels 0.571 is below the gate 0.70 (8 of 14 items)",
  ]);
  equal(lenient.gates.swap_consistency.passed, true);
});

Deno.test("judgeCalibration() reports one label set when no latest label saw the output", () => {
  // Without the two seen revisions and s8, the blind set is the latest set.
  const labels = LABELS.filter((l) => !l.seen_model_output);
  const judged = new Map([...JUDGED].filter(([id]) => id !== "s8"));
  const result = judgeCalibration({ labels, judged, passThresholds: THRESHOLDS }, OPTIONS);
  equal(result.blind, null);
  equal(result.latest.seen_model_output, 0);
  // = the blind figures above: 8 of 14.
  deepEqual([result.latest.agreement.agreeing, result.latest.agreement.items], [8, 14]);
  equal(result.gates.human_agreement.label_set, "latest");
  equal(
    result.gates.reasons[0],
    "agreement with the human labels 0.571 is below the gate 0.80 (8 of 14 items)",
  );
});

Deno.test("judgeCalibration() fails a position-biased judge on swap consistency", () => {
  // Always "A" in both runs: every pair is inconsistent, a tie; only the human ties agree.
  const winners: PairWinner[] = ["A", "B", "A", "B", "tie"];
  const labels = winners.map((w, i) => pair(`q${i}`, 1, false, w));
  const judged = new Map(winners.map((_, i) => [`q${i}`, judgedPair("A", "A")]));
  const result = judgeCalibration({ labels, judged, passThresholds: {} }, OPTIONS);
  deepEqual([result.swap_consistency.consistent, result.swap_consistency.measured], [0, 5]);
  equal(result.swap_consistency.rate, 0);
  equal(result.swap_consistency.wilson!.lower, 0);
  deepEqual([result.latest.agreement.agreeing, result.latest.agreement.items], [1, 5]);
  // Judge always "tie": p_e = share of human ties = 1/5, p_o = 1/5, kappa 0.
  equal(result.latest.pairwise.kappa.kappa, 0);
  equal(result.latest.score.kappa.kappa, null);
  deepEqual(result.gates.reasons, [
    "agreement with the human labels 0.200 is below the gate 0.80 (1 of 5 items)",
    "swap consistency 0.000 is below the gate 0.90 (0 of 5 pairs consistent; 5 measured, " +
    "0 with a judge fault)",
  ]);
  equal(result.gates.passed, false);
});

Deno.test("judgeCalibration() counts a pair with a judge fault as inconsistent (issue 23)", () => {
  // The case: 6 pairs, 5 with a judge fault in one run, 1 measured and consistent.
  // Leaving the faults out gave 1 of 1 = 1.000 and a pass; counted, it is 1 of 6.
  const labels = ["A", "B", "A", "B", "A", "B"].map((w, i) =>
    pair(`f${i}`, 1, false, w as PairWinner)
  );
  const judged = new Map<string, JudgedItem>([
    ["f0", judgedPair("A", "B")],
    ["f1", judgedPair(null, "A")],
    ["f2", judgedPair("A", null)],
    ["f3", judgedPair(null, null)],
    ["f4", judgedPair(null, "B")],
    ["f5", judgedPair("B", null)],
  ]);
  const result = judgeCalibration({ labels, judged, passThresholds: {} }, {
    ...OPTIONS,
    // The agreement gate out of the way, so only the swap gate is at issue.
    gates: { human_agreement: 0, swap_consistency: 0.9 },
  });
  deepEqual(
    [
      result.swap_consistency.pairs,
      result.swap_consistency.judge_faults,
      result.swap_consistency.measured,
      result.swap_consistency.consistent,
      result.swap_consistency.rate,
    ],
    [6, 5, 1, 1, 1 / 6],
  );
  // wilsonInterval(1, 6): python3 -c "from math import sqrt; z=1.959963984540054; n=6; p=1/6;
  //   c=(p+z*z/(2*n))/(1+z*z/n); h=z*sqrt(p*(1-p)/n+z*z/(4*n*n))/(1+z*z/n); print(c-h, c+h)"
  //   -> 0.030053369748306635 0.5635028221864702
  close(result.swap_consistency.wilson!.lower, 0.030053369748306635, "wilson lower");
  close(result.swap_consistency.wilson!.upper, 0.5635028221864702, "wilson upper");
  deepEqual(result.gates.swap_consistency, { gate: 0.9, value: 1 / 6, passed: false });
  equal(result.gates.passed, false);
  deepEqual(result.gates.reasons, [
    "swap consistency 0.167 is below the gate 0.90 (1 of 6 pairs consistent; 1 measured, " +
    "5 with a judge fault, which count as inconsistent)",
  ]);
  // Faults are bounded by the gate itself: 19 of 20 consistent and 1 fault still pass 0.90.
  const many = ["A", "B"].flatMap((w) => Array.from({ length: 10 }, () => w as PairWinner));
  const manyLabels = many.map((w, i) => pair(`m${i}`, 1, false, w));
  const manyJudged = new Map<string, JudgedItem>(many.map((w, i) => [
    `m${i}`,
    i === 0 ? judgedPair(null, "B") : judgedPair(w, w === "A" ? "B" : "A"),
  ]));
  const one = judgeCalibration({ labels: manyLabels, judged: manyJudged, passThresholds: {} }, {
    ...OPTIONS,
    gates: { human_agreement: 0, swap_consistency: 0.9 },
  });
  deepEqual([one.swap_consistency.rate, one.gates.swap_consistency.passed], [19 / 20, true]);
});

Deno.test("judgeCalibration() passes a judge that meets both gates", () => {
  const labels = [
    ...Array.from({ length: 9 }, (_, i) => score(`g${i}`, "t-essay", 1, false, i < 5 ? 80 : 20)),
    ...(["A", "B", "tie", "A", "B", "A", "B", "A", "B", "tie"] as PairWinner[]).map((w, i) =>
      pair(`h${i}`, 1, false, w)
    ),
  ];
  const judged = new Map<string, JudgedItem>([
    // g8's human fails it; the judge passes: one disagreement of 19.
    ...Array.from(
      { length: 9 },
      (_, i) => [`g${i}`, judgedScore(i < 5 || i === 8 ? 80 : 20)] as const,
    ),
    ...labels.slice(9).map((l) => {
      const w = (l as { human_winner: PairWinner }).human_winner;
      return [l.item_id, judgedPair(w, w === "A" ? "B" : w === "B" ? "A" : "tie")] as const;
    }),
  ]);
  const result = judgeCalibration({ labels, judged, passThresholds: THRESHOLDS }, OPTIONS);
  equal(result.blind, null);
  deepEqual([result.latest.agreement.agreeing, result.latest.agreement.items], [18, 19]);
  equal(result.swap_consistency.rate, 1);
  deepEqual(result.gates, {
    human_agreement: { gate: 0.8, value: 18 / 19, label_set: "latest", passed: true },
    swap_consistency: { gate: 0.9, value: 1, passed: true },
    passed: true,
    reasons: [],
  });
  // Perfect pairwise agreement, kappa 1; every resample's kappa is 1 or undefined.
  equal(result.latest.pairwise.kappa.kappa, 1);
  deepEqual([result.latest.pairwise.kappa.lower, result.latest.pairwise.kappa.upper], [1, 1]);
});

Deno.test("judgeCalibration() names the figures it cannot measure", () => {
  // Score items only, and every label seen: no blind label, no pairwise item.
  const labels = [score("s1", "t-essay", 1, true, 80)];
  const judged = new Map([["s1", judgedScore(80)]]);
  const result = judgeCalibration({ labels, judged, passThresholds: THRESHOLDS }, OPTIONS);
  equal(result.blind!.items, 0);
  equal(result.blind!.agreement.rate, null);
  equal(result.blind!.agreement.wilson, null);
  deepEqual(result.blind!.score.kappa, {
    pairs: 0,
    kappa: null,
    lower: null,
    upper: null,
    skipped_rounds: 2000,
  });
  deepEqual(result.gates.reasons, [
    "agreement with the blind human labels cannot be measured: no item has a label written " +
    "before the labeller saw the model's output",
    "swap consistency cannot be measured: the golden set has no pairwise items",
  ]);
  // Every pairwise run a fault: measured as 0 of 1, the fault counted as inconsistent.
  const faulty = judgeCalibration({
    labels: [pair("p1", 1, false, "A")],
    judged: new Map([["p1", judgedPair("A", null)]]),
    passThresholds: {},
  }, OPTIONS);
  equal(faulty.swap_consistency.rate, 0);
  deepEqual(faulty.gates.reasons, [
    "agreement with the human labels 0.000 is below the gate 0.80 (0 of 1 items)",
    "swap consistency 0.000 is below the gate 0.90 (0 of 1 pairs consistent; 0 measured, " +
    "1 with a judge fault, which counts as inconsistent)",
  ]);
  // Nothing at all.
  const empty = judgeCalibration({ labels: [], judged: new Map(), passThresholds: {} }, OPTIONS);
  equal(
    empty.gates.reasons[0],
    "agreement with the human labels cannot be measured: the golden set has no score or pairwise items",
  );
});

Deno.test("judgeCalibration() shows a rate just below its gate with enough digits", () => {
  // 7999 of 10000 would print 0.800 at three decimals against a gate of 0.80.
  const labels = Array.from({ length: 10000 }, (_, i) => pair(`p${i}`, 1, false, "A"));
  const judged = new Map(
    labels.map((l, i) => [l.item_id, judgedPair(i < 7999 ? "A" : "B", i < 7999 ? "B" : "A")]),
  );
  const result = judgeCalibration({ labels, judged, passThresholds: {} }, {
    ...OPTIONS,
    rounds: 1,
  });
  equal(
    result.gates.reasons[0],
    "agreement with the human labels 0.7999 is below the gate 0.80 (7999 of 10000 items)",
  );
});

Deno.test("judgeCalibration() gives the same bytes for the same seed, in a stable key order", () => {
  const first = canonicalJson(judgeCalibration(INPUT, OPTIONS));
  equal(canonicalJson(judgeCalibration(INPUT, OPTIONS)), first);
  equal(
    JSON.stringify(judgeCalibration(INPUT, OPTIONS)),
    JSON.stringify(judgeCalibration(INPUT, OPTIONS)),
  );
  // The judged map's order does not matter: items follow the golden file.
  const reversed = new Map([...JUDGED].reverse());
  equal(canonicalJson(judgeCalibration({ ...INPUT, judged: reversed }, OPTIONS)), first);
  // seededRandom stringifies the seed: 7 and "7" draw alike (only the recorded seed differs).
  const text = judgeCalibration(INPUT, { ...OPTIONS, seed: "7" });
  deepEqual(text.latest, judgeCalibration(INPUT, OPTIONS).latest);
  const result = judgeCalibration(INPUT, OPTIONS);
  deepEqual(Object.keys(result), [
    "items",
    "label_lines",
    "bootstrap",
    "latest",
    "blind",
    "swap_consistency",
    "gates",
  ]);
  deepEqual(Object.keys(result.latest), [
    "label_set",
    "items",
    "seen_model_output",
    "agreement",
    "score",
    "pairwise",
  ]);
  deepEqual(Object.keys(result.latest.score), [
    "items",
    "agreeing",
    "rate",
    "wilson",
    "judge_faults",
    "kappa",
  ]);
  // Plain JSON: it survives a round trip unchanged.
  deepEqual(JSON.parse(JSON.stringify(result)), result);
});

Deno.test("judgeCalibration() refuses an inconsistent golden set or judgment", () => {
  const run =
    (labels: GoldenLabel[], judged: Map<string, JudgedItem>, thresholds = THRESHOLDS) => () =>
      judgeCalibration({ labels, judged, passThresholds: thresholds }, OPTIONS);
  const is = (text: string) => (error: unknown) => error instanceof Error && error.message === text;
  const one = [score("s1", "t-essay", 1, false, 80)];
  const judgedOne = new Map([["s1", judgedScore(80)]]);
  throws(
    run(one, new Map([...judgedOne, ["x", judgedScore(80)]])),
    is('item "x": judged, but the golden set has no label of it'),
  );
  throws(run(one, new Map()), is('item "s1": labelled, but the judge has no judgment of it'));
  throws(
    run(one, new Map([["s1", judgedPair("A", "B")]])),
    is('item "s1": labelled "score" but judged "pairwise"'),
  );
  throws(
    run([...one, GoldenLabel.parse({ ...one[0], human_total: 10 })], judgedOne),
    is('item "s1": two lines have the label_version 1'),
  );
  throws(
    run([...one, GoldenLabel.parse({ ...one[0], label_version: 2, answer: "other" })], judgedOne),
    is('item "s1": label_version 2 changes the answer'),
  );
  throws(
    run([...one, GoldenLabel.parse({ ...one[0], label_version: 2, task_id: "t-code" })], judgedOne),
    is('item "s1": label_version 2 changes the task_id from "t-essay" to "t-code"'),
  );
  const p = [pair("p1", 1, false, "A")];
  const judgedP = new Map([["p1", judgedPair("A", "B")]]);
  throws(
    run([...p, GoldenLabel.parse({ ...p[0], label_version: 3, answer_b: "swapped" })], judgedP),
    is('item "p1": label_version 3 changes answer_b'),
  );
  throws(
    run([...p, score("p1", "t-essay", 2, false, 50)], judgedP),
    is('item "p1": label_version 2 is a "score" label, version 1 a "pairwise" one'),
  );
  throws(run(one, judgedOne, {}), is('item "s1": the task "t-essay" has no pass threshold'));
  throws(
    run(one, new Map([["s1", { kind: "score", total: 80, passed: null }]])),
    is('item "s1": the judgment\'s total and passed must both be null or both be set'),
  );
  throws(
    run(one, new Map([["s1", { kind: "score", total: 50, passed: true }]])),
    is(
      'item "s1": the judgment\'s passed true disagrees with its total 50 and the pass threshold 60',
    ),
  );
  throws(
    () => judgeCalibration(INPUT, { ...OPTIONS, rounds: 0 }),
    (e: unknown) =>
      e instanceof RangeError && e.message.includes('"rounds" must be a positive integer, got 0'),
  );
});
