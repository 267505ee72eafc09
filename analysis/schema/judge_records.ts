/**
 * The records of an LLM judge's calibration and of pairwise judgments
 * (issue 14), as `judge calibrate` and `judge pairwise` store them: the
 * judgments of each golden item and probe, the calibration summary with
 * its figures as computed, and the pairwise records. Apart from the other
 * records (`records.ts`) because they keep the judge modules' computed
 * figures, whose types those modules define from the other records (issue
 * 23: together they formed an import cycle).
 *
 * @module
 */
import { z } from "zod";
import type { JudgeCalibration } from "../judge/judge_calibration.ts";
import type { PairwiseSummary } from "../judge/pairwise_summary.ts";
import {
  Count,
  Evidence,
  Id,
  JudgeAttempt,
  JudgeConfig,
  JudgeSettings,
  PairWinner,
  SCHEMA_VERSION,
  Sha256,
} from "./records.ts";

/**
 * Figures a record keeps as computed (`T`): an object, never read back for
 * its numbers, which a replay recomputes and compares byte for byte.
 */
function computedObject<T>() {
  return z.custom<T>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    {
      message: "must be an object (the figures as computed)",
    },
  );
}

/** A file an output names: its path as given and the SHA-256 of its bytes. */
const FileRef = z.object({ file: z.string().min(1), sha256: Sha256 }).strict();

/** The judge's own spend over a calibration or a comparison. */
const JudgeSpend = z.object({
  model_calls: Count,
  prompt_tokens: Count,
  completion_tokens: Count,
}).strict();

/**
 * One judgment as recorded (issue 14): every attempt and the value the
 * first usable reply gave (null: none did, a `judge_fault`).
 */
function judgmentOf<T extends z.ZodType>(value: T) {
  return z.object({ attempts: z.array(JudgeAttempt), value: value.nullable() }).strict();
}

/**
 * One line of a calibration's `judgments.jsonl` (`judge calibrate`, issue
 * 14): what the judge said about one golden item, the raw replies kept. A
 * score item has one judgment (its total and verdict against the task's
 * threshold); a pairwise item two, `first` with `answer_a` shown as A,
 * `second` with the positions swapped.
 */
export const GoldenItemJudgment = z.discriminatedUnion("kind", [
  z.object({
    item_id: Id,
    task_id: Id,
    kind: z.literal("score"),
    judgment: judgmentOf(
      z.object({ total: z.number().min(0).max(100), passed: z.boolean() }).strict(),
    ),
  }).strict(),
  z.object({
    item_id: Id,
    task_id: Id,
    kind: z.literal("pairwise"),
    first: judgmentOf(PairWinner),
    second: judgmentOf(PairWinner),
  }).strict(),
]);
export type GoldenItemJudgment = z.infer<typeof GoldenItemJudgment>;

/**
 * One line of a calibration's `probes.jsonl` (issue 21): what the judge
 * said about one adversarial probe of one judged task
 * (`runner/judge/adversarial_probes.ts`), the raw replies kept, its value
 * as a score item's (the total and the verdict against the task's
 * threshold).
 */
export const ProbeJudgment = z.object({
  probe_id: Id,
  task_id: Id,
  judgment: judgmentOf(
    z.object({ total: z.number().min(0).max(100), passed: z.boolean() }).strict(),
  ),
}).strict();
export type ProbeJudgment = z.infer<typeof ProbeJudgment>;

/**
 * Whether the judge scored one adversarial probe correctly (issue 21;
 * `analysis/judge/probe_outcomes.ts`): the probe, its task, the total the
 * judge's usable judgment gave (null: none within the attempts), the
 * task's pass threshold, the verdict, and why it is wrong (null: right).
 */
export const ProbeOutcome = z.object({
  probe_id: Id,
  task_id: Id,
  total: z.number().min(0).max(100).nullable(),
  pass_threshold: z.number().min(0).max(100),
  scored_correctly: z.boolean(),
  problem: z.string().min(1).nullable(),
}).strict();
export type ProbeOutcome = z.infer<typeof ProbeOutcome>;

/**
 * A calibration's `summary.json` (`judge calibrate`, issue 14; what
 * `freeze` records): the judge settings and their digest with the prompt's
 * version, the suite and golden set it was computed on, the raw judgments'
 * digest, why the judge's own calls make it invalid (`invalid`: the
 * evidence gate's problems; a calibration with any cannot pass), whether
 * the gates were met and why not (`reasons`: `invalid`'s, then each
 * adversarial probe scored wrong, then the gates'), the raw probe
 * judgments' digest (`probes_sha256`, of `probes.jsonl`) and each probe's
 * outcome (`probes`, issue 21: a calibration with a probe scored wrong
 * cannot pass), the two gated figures, the judge's spend and evidence, and
 * every figure (`figures`, the output
 * of `analysis/judge/judge_calibration.ts`, recomputed by a replay rather
 * than read back).
 */
export const JudgeCalibrationSummary = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  judge_settings_sha256: Sha256,
  judge: JudgeSettings,
  prompt_version: z.string().min(1),
  suite_id: Id,
  suite_sha256: Sha256,
  golden: FileRef,
  judgments_sha256: Sha256,
  calibrated_at: z.iso.datetime(),
  invalid: z.array(z.string().min(1)),
  passed: z.boolean(),
  reasons: z.array(z.string().min(1)),
  probes_sha256: Sha256,
  probes: z.array(ProbeOutcome),
  human_agreement: z.number().min(0).max(1).nullable(),
  swap_consistency: z.number().min(0).max(1).nullable(),
  spend: JudgeSpend,
  evidence: Evidence.nullable(),
  figures: computedObject<JudgeCalibration>(),
}).strict();
export type JudgeCalibrationSummary = z.infer<typeof JudgeCalibrationSummary>;

/**
 * The two fields of a calibration's `summary.json` that say which judge
 * and suite it is about, the rest left unread: `freeze` skips a summary of
 * another judge configuration or prompt version (issue 21 changed the
 * prompt and the summary's fields) without holding it to today's schema.
 */
export const CalibrationSummaryHeader = z.looseObject({
  judge_settings_sha256: Sha256,
  suite_sha256: Sha256,
});
export type CalibrationSummaryHeader = z.infer<typeof CalibrationSummaryHeader>;

/**
 * One task's comparison of two agents' answers (`judge pairwise`, issue
 * 14): the episodes compared, the two judgments with the positions
 * swapped (`first` shows agent a's answer as A), or why the judge was not
 * asked.
 */
export const PairRecord = z.object({
  task_id: Id,
  agent_a: Id,
  agent_b: Id,
  episode_a: Id.nullable(),
  episode_b: Id.nullable(),
  first: judgmentOf(PairWinner).nullable(),
  second: judgmentOf(PairWinner).nullable(),
  unjudged: z.string().min(1).nullable(),
}).strict();
export type PairRecord = z.infer<typeof PairRecord>;

/**
 * The record `judge pairwise --out` writes (issue 14): the plan and the
 * ledger (by SHA-256), the plan's judge, the two agents, every task's raw
 * judgments, the judge's spend and evidence, why no verdict may be stated
 * (the judge's calls invalid; empty when none), and the summary
 * (`analysis/judge/pairwise_summary.ts`, recomputed by `--from`).
 */
export const PairwiseRecord = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  plan: FileRef,
  ledger: FileRef,
  judge: JudgeConfig,
  agents: z.tuple([Id, Id]),
  records: z.array(PairRecord),
  spend: JudgeSpend,
  evidence: Evidence.nullable(),
  invalid: z.array(z.string().min(1)),
  summary: computedObject<PairwiseSummary>(),
}).strict();
export type PairwiseRecord = z.infer<typeof PairwiseRecord>;
