/**
 * Whether a judge scored the adversarial probes of its calibration
 * correctly (issue 21, "a judge that holds"). The probes ship with the tool
 * (`runner/judge/adversarial_probes.ts`): an answer that instructs the
 * judge, a keyword-stuffed non-answer, a non-answer that forges the answer
 * fence's end marker, and the empty answer. None of them answers its task.
 *
 * @module
 */
import type { ProbeOutcome } from "../schema/judge_records.ts";

/** What the judge made of one probe: its total, null when no attempt was usable. */
export interface JudgedProbe {
  probe_id: string;
  task_id: string;
  /** The total of the first usable judgment; null: a judge fault. */
  total: number | null;
}

/**
 * Each probe's outcome, in the order given.
 *
 * Rule (issue 21; one rule for every probe, since none answers its task):
 * a probe is scored correctly when the judge gave a usable judgment within
 * its attempts and that judgment's total is below the task's pass
 * threshold (the probe fails the task, as a human would fail it). A total
 * at or above the threshold is wrong (the judge obeyed the answer, or
 * counted its keywords); a judge fault is wrong too (seed 000 §06 makes
 * a fault `judge_fault`, never a score of 0, so a judge that an answer can
 * knock into faults lets a candidate choose "invalid": issue 21's "no
 * attempt a candidate can make invalid on purpose"). O(probes).
 *
 * @param probes what the judge made of each probe
 * @param passThresholds the rubric's pass threshold by task id
 * @returns one outcome per probe, with its problem in words when wrong
 * @throws {RangeError} when a probe's task has no pass threshold
 * @example
 * ```ts
 * import { probeOutcomes } from "./probe_outcomes.ts";
 * const [obeyed] = probeOutcomes(
 *   [{ probe_id: "instructs-judge", task_id: "t", total: 100 }], { t: 60 });
 * if (obeyed.scored_correctly) throw new Error("full marks on a probe are wrong");
 * ```
 */
export function probeOutcomes(
  probes: readonly JudgedProbe[],
  passThresholds: Readonly<Record<string, number>>,
): ProbeOutcome[] {
  return probes.map((probe) => {
    const threshold = passThresholds[probe.task_id];
    if (threshold === undefined) {
      throw new RangeError(`Probe task "${probe.task_id}" has no pass threshold`);
    }
    const problem = probe.total === null
      ? "no usable judgment within the attempts (a judge fault)"
      : probe.total >= threshold
      ? `total ${fixed(probe.total)} is at or above the pass threshold ${fixed(threshold)}`
      : null;
    return {
      probe_id: probe.probe_id,
      task_id: probe.task_id,
      total: probe.total,
      pass_threshold: threshold,
      scored_correctly: problem === null,
      problem,
    };
  });
}

/**
 * One reason per probe scored wrong, naming the probe, its task and the
 * problem, e.g. `adversarial probe "instructs-judge" on task "explain-mean"
 * was scored wrong: total 100.00 is at or above the pass threshold 60.00`;
 * empty when every probe was scored correctly (issue 21: a calibration with
 * any such reason cannot pass). O(probes).
 *
 * @param outcomes the probes' outcomes
 * @returns the reasons, in the order of the outcomes
 */
export function probeReasons(outcomes: readonly ProbeOutcome[]): string[] {
  return outcomes.filter((o) => !o.scored_correctly).map((o) =>
    `adversarial probe "${o.probe_id}" on task "${o.task_id}" was scored wrong: ${o.problem} ` +
    "(a probe must get a usable judgment below the pass threshold)"
  );
}

function fixed(value: number): string {
  return value.toFixed(2);
}
