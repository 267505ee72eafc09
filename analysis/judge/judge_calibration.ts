/**
 * The calibration of an LLM judge against a golden set of human labels
 * (issue 14, seed 000 §06 and §07): agreement with the humans, Cohen's
 * kappa, swap consistency, and the release gates, as one plain JSON record
 * meant to be written to disk and hashed.
 *
 * @module
 */
import type { GoldenLabel, JudgeGates, PairWinner } from "../schema/records.ts";
import { randomIndex, seededRandom } from "../seeded_random.ts";
import { type WilsonInterval, wilsonInterval } from "../wilson_interval.ts";
import { cohenKappa } from "./cohen_kappa.ts";
import { swappedVerdict } from "./swapped_verdict.ts";

/**
 * What the judge made of one golden item. `score`: its total and verdict
 * on the task's rubric, both null when it gave no usable judgment (a judge
 * fault). `pairwise`: its winner in each of the two position-swapped runs
 * (the first shows `answer_a` as A, the second shows `answer_b` as A), null
 * for a run with a judge fault.
 */
export type JudgedItem =
  | { kind: "score"; total: number | null; passed: boolean | null }
  | { kind: "pairwise"; first: PairWinner | null; second: PairWinner | null };

/** The input of {@link judgeCalibration}. */
export interface JudgeCalibrationInput {
  /** Every line of the golden file, in file order; an item may have several label versions. */
  labels: readonly GoldenLabel[];
  /** The judge's judgment of every labelled item, by `item_id`. */
  judged: ReadonlyMap<string, JudgedItem>;
  /** The rubric's pass threshold by `task_id`, for every task of a score item. */
  passThresholds: Readonly<Record<string, number>>;
}

/** Options of {@link judgeCalibration}. */
export interface JudgeCalibrationOptions {
  /** The release gates (`DEFAULT_JUDGE_GATES`: 0.80 and 0.90). */
  gates: JudgeGates;
  /** Bootstrap rounds of the kappa intervals. */
  rounds: number;
  /** Seed of `seededRandom` for the kappa intervals. */
  seed: number | string;
}

/** A share of items with its Wilson 95% interval; plain JSON data, keys in this order. */
export interface AgreementFigure {
  /** Items counted. */
  items: number;
  /** Items where the judge agreed with the human (a judge fault never agrees). */
  agreeing: number;
  /** agreeing / items; null with no items. */
  rate: number | null;
  /** Wilson 95% interval of the rate; null with no items. */
  wilson: WilsonInterval | null;
}

/** Cohen's kappa with its percentile bootstrap interval; plain JSON data, keys in this order. */
export interface KappaFigure {
  /** Items without a judge fault: the (human, judge) pairs kappa is computed over. */
  pairs: number;
  /** Cohen's kappa; null when undefined (no pairs, or chance agreement 1). */
  kappa: number | null;
  /** Sorted bootstrap kappa at index floor(0.025 V), V the rounds kept; null when none was. */
  lower: number | null;
  /** Sorted bootstrap kappa at index floor(0.975 V); null when no round was kept. */
  upper: number | null;
  /** Bootstrap rounds whose resample had an undefined kappa, left out of V. */
  skipped_rounds: number;
}

/** The figures of one kind of item under one label set; keys in this order. */
export interface KindFigures extends AgreementFigure {
  /** Items where the judge gave no usable judgment (score) or a run had none (pairwise). */
  judge_faults: number;
  /** Kappa over (human, judge): pass/fail for score items, A/B/tie for pairwise ones. */
  kappa: KappaFigure;
}

/** The figures of one label set; plain JSON data, keys in this order. */
export interface LabelSetFigures {
  /** `latest`: every item's highest label version; `blind`: its highest written before seeing the model's output. */
  label_set: "latest" | "blind";
  /** Items in this set. */
  items: number;
  /** Items whose label in this set was written after the labeller saw the model's output. */
  seen_model_output: number;
  /** Agreement over the items of both kinds. */
  agreement: AgreementFigure;
  /** Score items: judge passed == human passed (human_total >= the pass threshold). */
  score: KindFigures;
  /** Pairwise items: the swapped verdict's winner == the human winner. */
  pairwise: KindFigures;
}

/**
 * Swap consistency of the pairwise items; plain JSON data, keys in this
 * order. A pair with a judge fault counts as inconsistent (see
 * {@link judgeCalibration}).
 */
export interface SwapFigures {
  /** Pairwise items: the rate's denominator. */
  pairs: number;
  /** Pairwise items with a judge fault in either run: no verdict, counted as inconsistent. */
  judge_faults: number;
  /** Pairwise items with a usable judgment in both runs (pairs - judge_faults). */
  measured: number;
  /** Of those, the items whose two runs named the same answer. */
  consistent: number;
  /** consistent / pairs; null when there is no pairwise item. */
  rate: number | null;
  /** Wilson 95% interval of the rate; null when there is no pairwise item. */
  wilson: WilsonInterval | null;
}

/** The release gates as held; plain JSON data, keys in this order. */
export interface JudgeGateOutcome {
  /** Agreement with the human labels against its gate, on the label set named. */
  human_agreement: {
    gate: number;
    value: number | null;
    label_set: "latest" | "blind";
    passed: boolean;
  };
  /** Swap consistency against its gate. */
  swap_consistency: { gate: number; value: number | null; passed: boolean };
  /** Both gates met. */
  passed: boolean;
  /** One line per unmet gate (empty when passed). */
  reasons: string[];
}

/** The calibration summary; plain JSON data, keys in this order. */
export interface JudgeCalibration {
  /** Golden items (distinct `item_id`). */
  items: number;
  /** Lines of the golden file (label versions). */
  label_lines: number;
  /** The kappa bootstrap's parameters. */
  bootstrap: { method: "percentile_bootstrap"; rounds: number; seed: number | string };
  /** Figures on every item's latest label. */
  latest: LabelSetFigures;
  /** Figures on the blind labels; null when they are the latest labels (no latest label saw the model's output). */
  blind: LabelSetFigures | null;
  /** Swap consistency (independent of the labels). */
  swap_consistency: SwapFigures;
  /** The gates, agreement held to the blind set when it differs from the latest. */
  gates: JudgeGateOutcome;
}

/** One golden item: its label versions (in version order) and the judge's judgment. */
interface Item {
  id: string;
  versions: GoldenLabel[];
  judged: JudgedItem;
}

/** One item's outcome under one label: agreement, fault, and the (human, judge) categories. */
interface Outcome {
  kind: "score" | "pairwise";
  agrees: boolean;
  fault: boolean;
  pair: [string, string] | null;
}

const WINNERS: readonly unknown[] = ["A", "B", "tie"];

/**
 * Calibrates a judge against a golden set of human labels.
 *
 * Rules (issue 14; seed 000 §06 and §07):
 * - Label sets: `latest` takes each item's label of the highest
 *   `label_version`; `blind` takes each item's highest version with
 *   `seen_model_output` false, and leaves out an item without one. Labels
 *   revised after the labeller saw the model's output lean towards the model
 *   (seed 000: F1 0.870 on the first labels, 1.000 on the revised ones), so
 *   when the two sets differ both are reported and the agreement gate is held
 *   to the blind set; when they coincide, `blind` is null.
 * - Score items: the human passes an answer when `human_total` ≥ the task's
 *   pass threshold; agreement when the judge's `passed` equals it; a judge
 *   fault is a disagreement (and a `judge_faults` count), never a pass or a
 *   fail. Kappa over (human, judge) pass/fail on the items without a fault.
 * - Pairwise items: the judge's winner is `swappedVerdict(first,
 *   second).winner` (a tie unless the two position-swapped runs agree);
 *   agreement when it equals `human_winner`; a fault in either run is a
 *   disagreement. Kappa over (human, judge) winners without faults.
 * - Overall agreement: agreeing items of both kinds / all items of the set.
 * - Swap consistency: consistent pairwise items / all pairwise items, once
 *   (it does not depend on the labels). A pair with a judge fault in either
 *   run counts as inconsistent, never left out (issue 23): it has no
 *   verdict, so the swap rule makes it a tie just like a pair whose runs
 *   disagree; a candidate's answer can bring a fault about (issue 21); and
 *   leaving faults out let a judge pass on whatever few pairs it did judge
 *   (1 of 6 measured, 5 faults: 1 of 1 consistent). So the gate also bounds
 *   the faults: meeting 0.90 needs at least 90% of the pairs measured. The
 *   counts of pairs measured and faulted are reported beside the rate.
 * - Intervals: Wilson 95% for agreement and swap consistency
 *   ({@link wilsonInterval}); for each kappa a percentile bootstrap over the
 *   items without a fault (seed 001's rule of `bootstrap_rate.ts`): `rounds`
 *   resamples with replacement, each drawing n indices by `randomIndex`
 *   from a generator `seededRandom(seed)` started afresh for every kappa (in
 *   the order latest score, latest pairwise, blind score, blind pairwise,
 *   each independent of the others); a resample whose kappa is undefined is
 *   skipped and counted; the bounds are the sorted kept kappas at indices
 *   floor(0.025 V) and floor(0.975 V), V the kept rounds.
 * - Gates: passed iff the gated agreement ≥ `gates.human_agreement` and swap
 *   consistency ≥ `gates.swap_consistency`; an unmet gate, or one that
 *   cannot be measured (no items; no pairwise item), gives a one-line
 *   reason, the swap one naming the pairs measured and faulted
 *   ({@link swapCounts}: `swap consistency 0.167 is below the gate 0.90 (1 of 6
 *   pairs consistent; 1 measured, 5 with a judge fault, which count as
 *   inconsistent)`).
 *
 * Items are taken in the order of their first line in the golden file; the
 * result depends only on the input and the seed (same input, same seed, same
 * bytes). Cost: O(lines + rounds × items).
 *
 * @param input the golden file's lines, the judge's judgments, the pass thresholds
 * @param options the gates and the kappa bootstrap's rounds and seed
 * @returns the calibration summary
 * @throws {Error} `item "x": ...` when an item is judged but not labelled or
 *   labelled but not judged, its kinds disagree, its answer or task changes
 *   between label versions, two lines share its `item_id` and
 *   `label_version`, its task has no pass threshold, or its judgment is not
 *   of the documented form (for a score item: total and passed both null or
 *   both set, passed = total ≥ the threshold); {@link RangeError} on bad
 *   options
 * @example
 * ```ts
 * import { judgeCalibration } from "./judge_calibration.ts";
 * const label = (item_id: string, human_winner: "A" | "B") => ({
 *   schema_version: 1 as const, kind: "pairwise" as const, item_id, task_id: "t",
 *   label_version: 1, seen_model_output: false, answer_a: "x", answer_b: "y", human_winner,
 * });
 * const result = judgeCalibration({
 *   labels: [label("p1", "A"), label("p2", "B")],
 *   judged: new Map([
 *     ["p1", { kind: "pairwise" as const, first: "A" as const, second: "B" as const }],
 *     ["p2", { kind: "pairwise" as const, first: "A" as const, second: "A" as const }],
 *   ]),
 *   passThresholds: {},
 * }, { gates: { human_agreement: 0.8, swap_consistency: 0.9 }, rounds: 200, seed: 7 });
 * // p2's runs disagree (position bias): a tie, against the human's "B".
 * if (result.latest.agreement.rate !== 0.5 || result.gates.passed) throw new Error();
 * ```
 */
export function judgeCalibration(
  input: JudgeCalibrationInput,
  options: JudgeCalibrationOptions,
): JudgeCalibration {
  checkOptions(options);
  const items = collectItems(input);
  const latest: [Item, GoldenLabel][] = items.map((item) => [item, item.versions.at(-1)!]);
  const blind: [Item, GoldenLabel][] = [];
  for (const item of items) {
    const label = item.versions.findLast((version) => !version.seen_model_output);
    if (label !== undefined) blind.push([item, label]);
  }
  const differ = latest.some(([, label]) => label.seen_model_output);
  const latestFigures = labelSetFigures("latest", latest, input.passThresholds, options);
  const blindFigures = differ
    ? labelSetFigures("blind", blind, input.passThresholds, options)
    : null;
  const swap = swapFigures(items);
  return {
    items: items.length,
    label_lines: input.labels.length,
    bootstrap: { method: "percentile_bootstrap", rounds: options.rounds, seed: options.seed },
    latest: latestFigures,
    blind: blindFigures,
    swap_consistency: swap,
    gates: gateOutcome(blindFigures ?? latestFigures, swap, options.gates),
  };
}

function checkOptions({ gates, rounds, seed }: JudgeCalibrationOptions): void {
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(
      `Cannot calibrate the judge: "rounds" must be a positive integer, got ${rounds}`,
    );
  }
  if (!(typeof seed === "string" || Number.isFinite(seed))) {
    throw new RangeError(`Cannot calibrate the judge: "seed" must be a number or a string`);
  }
  for (const name of ["human_agreement", "swap_consistency"] as const) {
    const gate = gates[name];
    if (!(typeof gate === "number" && gate >= 0 && gate <= 1)) {
      throw new RangeError(
        `Cannot calibrate the judge: the gate "${name}" must lie in [0, 1], got ${gate}`,
      );
    }
  }
}

/** The items in first-seen order, their versions sorted, the input checked. */
function collectItems({ labels, judged, passThresholds }: JudgeCalibrationInput): Item[] {
  const byId = new Map<string, GoldenLabel[]>();
  for (const label of labels) {
    const versions = byId.get(label.item_id);
    if (versions === undefined) byId.set(label.item_id, [label]);
    else versions.push(label);
  }
  for (const id of judged.keys()) {
    if (!byId.has(id)) throw itemError(id, "judged, but the golden set has no label of it");
  }
  const items: Item[] = [];
  for (const [id, versions] of byId) {
    versions.sort((a, b) => a.label_version - b.label_version);
    const first = versions[0];
    for (const [i, label] of versions.entries()) {
      if (i > 0 && label.label_version === versions[i - 1].label_version) {
        throw itemError(id, `two lines have the label_version ${label.label_version}`);
      }
      const at = `label_version ${label.label_version}`;
      if (label.kind !== first.kind) {
        throw itemError(
          id,
          `${at} is a "${label.kind}" label, version ${first.label_version} a "${first.kind}" one`,
        );
      }
      if (label.task_id !== first.task_id) {
        throw itemError(
          id,
          `${at} changes the task_id from ${JSON.stringify(first.task_id)} to ${
            JSON.stringify(label.task_id)
          }`,
        );
      }
      if (label.kind === "score" && first.kind === "score" && label.answer !== first.answer) {
        throw itemError(id, `${at} changes the answer`);
      }
      if (label.kind === "pairwise" && first.kind === "pairwise") {
        if (label.answer_a !== first.answer_a) throw itemError(id, `${at} changes answer_a`);
        if (label.answer_b !== first.answer_b) throw itemError(id, `${at} changes answer_b`);
      }
    }
    const judgment = judged.get(id);
    if (judgment === undefined) {
      throw itemError(id, "labelled, but the judge has no judgment of it");
    }
    if (judgment.kind !== first.kind) {
      throw itemError(id, `labelled "${first.kind}" but judged "${judgment.kind}"`);
    }
    if (judgment.kind === "score") {
      const threshold = passThresholds[first.task_id];
      if (!Object.hasOwn(passThresholds, first.task_id) || typeof threshold !== "number") {
        throw itemError(id, `the task ${JSON.stringify(first.task_id)} has no pass threshold`);
      }
      if ((judgment.total === null) !== (judgment.passed === null)) {
        throw itemError(id, "the judgment's total and passed must both be null or both be set");
      }
      if (judgment.total !== null && judgment.passed !== (judgment.total >= threshold)) {
        throw itemError(
          id,
          `the judgment's passed ${judgment.passed} disagrees with its total ${judgment.total} ` +
            `and the pass threshold ${threshold}`,
        );
      }
    } else {
      for (const run of ["first", "second"] as const) {
        if (judgment[run] !== null && !WINNERS.includes(judgment[run])) {
          throw itemError(id, `the judgment's ${run} winner must be "A", "B", "tie" or null`);
        }
      }
    }
    items.push({ id, versions, judged: judgment });
  }
  return items;
}

function itemError(id: string, detail: string): Error {
  return new Error(`item ${JSON.stringify(id)}: ${detail}`);
}

/** One item's outcome under one of its labels. */
function outcome(
  item: Item,
  label: GoldenLabel,
  passThresholds: Readonly<Record<string, number>>,
): Outcome {
  const judgment = item.judged;
  if (label.kind === "score" && judgment.kind === "score") {
    const human = label.human_total >= passThresholds[label.task_id] ? "pass" : "fail";
    if (judgment.passed === null) return { kind: "score", agrees: false, fault: true, pair: null };
    const judge = judgment.passed ? "pass" : "fail";
    return { kind: "score", agrees: human === judge, fault: false, pair: [human, judge] };
  }
  if (label.kind === "pairwise" && judgment.kind === "pairwise") {
    if (judgment.first === null || judgment.second === null) {
      return { kind: "pairwise", agrees: false, fault: true, pair: null };
    }
    const judge = swappedVerdict(judgment.first, judgment.second).winner;
    const human = label.human_winner;
    return { kind: "pairwise", agrees: human === judge, fault: false, pair: [human, judge] };
  }
  throw itemError(item.id, "the label's kind and the judgment's disagree"); // checked before
}

function labelSetFigures(
  name: "latest" | "blind",
  set: readonly (readonly [Item, GoldenLabel])[],
  passThresholds: Readonly<Record<string, number>>,
  options: JudgeCalibrationOptions,
): LabelSetFigures {
  const outcomes = set.map(([item, label]) => outcome(item, label, passThresholds));
  return {
    label_set: name,
    items: set.length,
    seen_model_output: set.filter(([, label]) => label.seen_model_output).length,
    agreement: agreementFigure(outcomes.filter((o) => o.agrees).length, outcomes.length),
    score: kindFigures(outcomes.filter((o) => o.kind === "score"), options),
    pairwise: kindFigures(outcomes.filter((o) => o.kind === "pairwise"), options),
  };
}

function agreementFigure(agreeing: number, items: number): AgreementFigure {
  return {
    items,
    agreeing,
    rate: items === 0 ? null : agreeing / items,
    wilson: items === 0 ? null : wilsonInterval(agreeing, items),
  };
}

function kindFigures(outcomes: readonly Outcome[], options: JudgeCalibrationOptions): KindFigures {
  const pairs = outcomes.flatMap((o) => o.pair === null ? [] : [o.pair]);
  return {
    ...agreementFigure(outcomes.filter((o) => o.agrees).length, outcomes.length),
    judge_faults: outcomes.filter((o) => o.fault).length,
    kappa: kappaFigure(pairs, options),
  };
}

/** Kappa and its percentile bootstrap over the pairs (see {@link judgeCalibration}). */
function kappaFigure(
  pairs: readonly (readonly [string, string])[],
  { rounds, seed }: JudgeCalibrationOptions,
): KappaFigure {
  const n = pairs.length;
  const kappa = cohenKappa(pairs);
  if (n === 0) return { pairs: 0, kappa, lower: null, upper: null, skipped_rounds: rounds };
  const random = seededRandom(seed);
  const kept: number[] = [];
  const resample: (readonly [string, string])[] = new Array(n);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < n; i++) resample[i] = pairs[randomIndex(random, n)];
    const value = cohenKappa(resample);
    if (value !== null) kept.push(value);
  }
  kept.sort((a, b) => a - b);
  const v = kept.length;
  return {
    pairs: n,
    kappa,
    lower: v === 0 ? null : kept[Math.floor(0.025 * v)],
    upper: v === 0 ? null : kept[Math.floor(0.975 * v)],
    skipped_rounds: rounds - v,
  };
}

function swapFigures(items: readonly Item[]): SwapFigures {
  let pairs = 0;
  let faults = 0;
  let consistent = 0;
  for (const { judged } of items) {
    if (judged.kind !== "pairwise") continue;
    pairs++;
    if (judged.first === null || judged.second === null) faults++;
    else if (swappedVerdict(judged.first, judged.second).consistent) consistent++;
  }
  return {
    pairs,
    judge_faults: faults,
    measured: pairs - faults,
    consistent,
    rate: pairs === 0 ? null : consistent / pairs,
    wilson: pairs === 0 ? null : wilsonInterval(consistent, pairs),
  };
}

function gateOutcome(
  gated: LabelSetFigures,
  swap: SwapFigures,
  gates: JudgeGates,
): JudgeGateOutcome {
  const reasons: string[] = [];
  const { agreeing, items, rate } = gated.agreement;
  const labels = gated.label_set === "blind" ? "the blind human labels" : "the human labels";
  const agreementPassed = rate !== null && rate >= gates.human_agreement;
  if (rate === null) {
    reasons.push(
      `agreement with ${labels} cannot be measured: ${
        gated.label_set === "blind"
          ? "no item has a label written before the labeller saw the model's output"
          : "the golden set has no score or pairwise items"
      }`,
    );
  } else if (!agreementPassed) {
    reasons.push(
      `agreement with ${labels} ${shownBelow(rate, gates.human_agreement)} is below the gate ` +
        `${shownGate(gates.human_agreement)} (${agreeing} of ${items} items)`,
    );
  }
  const swapPassed = swap.rate !== null && swap.rate >= gates.swap_consistency;
  if (swap.rate === null) {
    reasons.push("swap consistency cannot be measured: the golden set has no pairwise items");
  } else if (!swapPassed) {
    reasons.push(
      `swap consistency ${shownBelow(swap.rate, gates.swap_consistency)} is below the gate ` +
        `${shownGate(gates.swap_consistency)} (${swapCounts(swap)})`,
    );
  }
  return {
    human_agreement: {
      gate: gates.human_agreement,
      value: rate,
      label_set: gated.label_set,
      passed: agreementPassed,
    },
    swap_consistency: { gate: gates.swap_consistency, value: swap.rate, passed: swapPassed },
    passed: agreementPassed && swapPassed,
    reasons,
  };
}

/**
 * The swap figure's counts in words: the consistent pairs of all pairs,
 * then how many were measured and how many had a judge fault (`3 of 6 pairs
 * consistent; 6 measured, 0 with a judge fault`; with faults, `1 of 6 pairs
 * consistent; 1 measured, 5 with a judge fault, which count as
 * inconsistent`).
 *
 * @param swap the swap figures
 * @returns the counts, for a gate reason or a report line
 * @example
 * ```ts
 * import { swapCounts } from "./judge_calibration.ts";
 * import { equal } from "node:assert/strict";
 * const swap = { pairs: 6, judge_faults: 5, measured: 1, consistent: 1, rate: 1 / 6, wilson: null };
 * equal(
 *   swapCounts(swap),
 *   "1 of 6 pairs consistent; 1 measured, 5 with a judge fault, which count as inconsistent",
 * );
 * ```
 */
export function swapCounts(swap: SwapFigures): string {
  const counts = `${swap.consistent} of ${swap.pairs} pairs consistent; ${swap.measured} ` +
    `measured, ${swap.judge_faults} with a judge fault`;
  if (swap.judge_faults === 0) return counts;
  return `${counts}, which count${swap.judge_faults === 1 ? "s" : ""} as inconsistent`;
}

/** A gate with two decimals, more when it has them (0.80, 0.855). */
function shownGate(gate: number): string {
  return Number(gate.toFixed(2)) === gate ? gate.toFixed(2) : String(gate);
}

/** A rate below `gate` with three decimals, more when three would not show it below. */
function shownBelow(rate: number, gate: number): string {
  let digits = 3;
  while (digits < 15 && Number(rate.toFixed(digits)) >= gate) digits++;
  return rate.toFixed(digits);
}
