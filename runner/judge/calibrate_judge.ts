/**
 * `ledgerbench judge calibrate` (issue 14, seed 000 §06–07): the plan's
 * judge against a golden set of human labels. Every item is judged through
 * the judge's relay exactly as a run judges an episode; the raw judgments
 * go to `judgments.jsonl` and the adversarial probes' (issue 21) to
 * `probes.jsonl`, the figures (agreement with the humans, Cohen's kappa
 * with intervals, swap consistency, each probe's outcome, the gates) to
 * `summary.json`,
 * both in `<suite>.judge/<time>/`, where `freeze` finds them. A replay
 * recomputes the summary from the stored judgments with zero model calls.
 *
 * @module
 */
import { canonicalJson, canonicalJsonLine } from "../../analysis/canonical_json.ts";
import { DEFAULT_BOOTSTRAP } from "../../analysis/defaults.ts";
import { judgeCalibration, type JudgedItem } from "../../analysis/judge/judge_calibration.ts";
import { probeOutcomes, probeReasons } from "../../analysis/judge/probe_outcomes.ts";
import type { JudgeSettings } from "../../analysis/schema/records.ts";
import type {
  GoldenItemJudgment,
  JudgeCalibrationSummary,
  ProbeJudgment,
} from "../../analysis/schema/judge_records.ts";
import {
  loadCalibrationJudgments,
  loadCalibrationSummary,
  loadProbeJudgments,
} from "../../inputs/judge_records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import type { GoldenSet } from "../../inputs/golden_set.ts";
import type { Upstream } from "../relay/upstream.ts";
import { type Suite, taskPaths } from "../../analysis/schema/suite_manifest.ts";
import { newResultDir } from "../newest_results.ts";
import {
  CALIBRATION_JUDGMENTS,
  CALIBRATION_PROBES,
  CALIBRATION_SUMMARY,
  calibrationsDir,
  judgeSettingsSha256,
} from "./judge_calibration_store.ts";
import { judgeGoldenSet } from "./judge_golden_set.ts";
import { type LoadedJudgeMaterial, loadJudgeMaterial } from "./judge_episode.ts";
import { JUDGE_PROMPT_VERSION } from "./judge_prompt.ts";

/** Options of {@linkcode calibrateJudge}. */
export interface CalibrateJudgeOptions {
  suite: Suite;
  settings: JudgeSettings;
  golden: GoldenSet;
  upstream: Upstream;
  onItem?: (done: number, total: number) => void;
  /** The time written into the summary and the directory's name; default now. */
  now?: Date;
}

/** A written calibration. */
export interface CalibrationOutcome {
  dir: string;
  summary: JudgeCalibrationSummary;
  /** SHA-256 of `summary.json`'s bytes (what `freeze` records). */
  summary_sha256: string;
}

/**
 * Judges every golden item and writes the calibration.
 *
 * Rule: the figures are `judgeCalibration`'s (seed 001's bootstrap
 * parameters, 2000 rounds with seed 7, for the kappa intervals), the gates
 * the settings' (seed 000's 0.80 and 0.90 by default); a calibration whose
 * judge calls failed the evidence gate (no server model id or usage, a
 * provider fault) cannot pass, whatever its figures, and neither can one
 * with an adversarial probe scored wrong (issue 21, `probeOutcomes`: a
 * probe needs a usable judgment below its task's pass threshold): its
 * reasons say why, each probe by name.
 *
 * @param options the suite, the judge, the golden set and the judge's upstream
 * @returns where it was written and what it says
 * @throws {Error} when an item's task is not a judged task of the suite
 */
export async function calibrateJudge(options: CalibrateJudgeOptions): Promise<CalibrationOutcome> {
  const materials = await judgedMaterials(options.suite);
  const { items, probes, spend } = await judgeGoldenSet(options.golden.labels, {
    settings: options.settings,
    upstream: options.upstream,
    materials,
    onItem: options.onItem,
  });
  const judgments = items.map((item) => canonicalJsonLine(item) + "\n").join("");
  const probeLines = probes.map((probe) => canonicalJsonLine(probe) + "\n").join("");
  const now = (options.now ?? new Date()).toISOString();
  const { gate } = spend;
  const invalid = gate.status === "invalid"
    ? [
      `the judge's calls are invalid (${gate.invalid_reason}): ${
        gate.problems.map((p) => p.message).join(" / ")
      }`,
    ]
    : [];
  const summary = summaryOf(options, {
    items,
    judgmentsSha256: sha256Hex(judgments),
    probes,
    probesSha256: sha256Hex(probeLines),
    calibratedAt: now,
    materials,
    invalid,
    spend: {
      model_calls: gate.model_calls,
      prompt_tokens: gate.prompt_tokens,
      completion_tokens: gate.completion_tokens,
    },
    evidence: gate.model_calls === 0 ? null : gate.evidence,
  });
  const dir = await newResultDir(calibrationsDir(options.suite.dir), now);
  await Deno.writeTextFile(`${dir}/${CALIBRATION_JUDGMENTS}`, judgments);
  await Deno.writeTextFile(`${dir}/${CALIBRATION_PROBES}`, probeLines);
  const text = canonicalJson(summary);
  await Deno.writeTextFile(`${dir}/${CALIBRATION_SUMMARY}`, text);
  return { dir, summary, summary_sha256: sha256Hex(text) };
}

/**
 * Recomputes a stored calibration's summary from its `judgments.jsonl`,
 * its `probes.jsonl` and the golden set, with zero model calls (every
 * number is replayable).
 *
 * @param dir the calibration's directory
 * @param options the suite and the golden set it was computed on
 * @returns the recomputed summary's bytes and whether they equal the stored ones
 * @throws {Error} when the judgments, the probes or the golden set are not the ones the summary names
 */
export async function replayCalibration(
  dir: string,
  options: { suite: Suite; golden: GoldenSet },
): Promise<{ identical: boolean; stored: JudgeCalibrationSummary; text: string }> {
  const { value: stored, text: storedText } = await loadCalibrationSummary(
    `${dir}/${CALIBRATION_SUMMARY}`,
  );
  const { sha256, judgments: items } = await loadCalibrationJudgments(
    `${dir}/${CALIBRATION_JUDGMENTS}`,
  );
  if (sha256 !== stored.judgments_sha256) {
    throw new Error(`"${dir}/${CALIBRATION_JUDGMENTS}" is not the file its summary names`);
  }
  const probes = await loadProbeJudgments(`${dir}/${CALIBRATION_PROBES}`);
  if (probes.sha256 !== stored.probes_sha256) {
    throw new Error(`"${dir}/${CALIBRATION_PROBES}" is not the file its summary names`);
  }
  if (options.golden.sha256 !== stored.golden.sha256) {
    throw new Error(
      `the golden set "${options.golden.file}" is not the one calibrated on (sha256 ${stored.golden.sha256})`,
    );
  }
  const recomputed = summaryOf(
    {
      suite: options.suite,
      settings: stored.judge,
      golden: { ...options.golden, file: stored.golden.file },
    },
    {
      items,
      judgmentsSha256: stored.judgments_sha256,
      probes: probes.judgments,
      probesSha256: stored.probes_sha256,
      calibratedAt: stored.calibrated_at,
      materials: await judgedMaterials(options.suite),
      invalid: stored.invalid,
      spend: stored.spend,
      evidence: stored.evidence,
    },
  );
  const text = canonicalJson(recomputed);
  return { identical: text === storedText, stored, text };
}

/** What {@linkcode summaryOf} needs besides the settings. */
interface SummaryParts {
  items: readonly GoldenItemJudgment[];
  judgmentsSha256: string;
  probes: readonly ProbeJudgment[];
  probesSha256: string;
  calibratedAt: string;
  materials: ReadonlyMap<string, LoadedJudgeMaterial>;
  invalid: string[];
  spend: JudgeCalibrationSummary["spend"];
  evidence: JudgeCalibrationSummary["evidence"];
}

function summaryOf(
  options: Pick<CalibrateJudgeOptions, "suite" | "settings" | "golden">,
  parts: SummaryParts,
): JudgeCalibrationSummary {
  const judged = new Map<string, JudgedItem>(parts.items.map((item) => [
    item.item_id,
    item.kind === "score"
      ? {
        kind: "score",
        total: item.judgment.value?.total ?? null,
        passed: item.judgment.value?.passed ?? null,
      }
      : { kind: "pairwise", first: item.first.value, second: item.second.value },
  ]));
  const passThresholds = Object.fromEntries(
    [...parts.materials].map(([taskId, material]) => [taskId, material.rubric.pass_threshold]),
  );
  const figures = judgeCalibration(
    { labels: options.golden.labels, judged, passThresholds },
    {
      gates: options.settings.gates,
      rounds: DEFAULT_BOOTSTRAP.rounds,
      seed: DEFAULT_BOOTSTRAP.seed,
    },
  );
  const probes = probeOutcomes(
    parts.probes.map((probe) => ({
      probe_id: probe.probe_id,
      task_id: probe.task_id,
      total: probe.judgment.value?.total ?? null,
    })),
    passThresholds,
  );
  const reasons = [...parts.invalid, ...probeReasons(probes), ...figures.gates.reasons];
  return {
    schema_version: 1,
    judge_settings_sha256: judgeSettingsSha256(options.settings),
    judge: options.settings,
    prompt_version: JUDGE_PROMPT_VERSION,
    suite_id: options.suite.manifest.suite_id,
    suite_sha256: options.suite.sha256,
    golden: { file: options.golden.file, sha256: options.golden.sha256 },
    judgments_sha256: parts.judgmentsSha256,
    calibrated_at: parts.calibratedAt,
    invalid: parts.invalid,
    passed: reasons.length === 0 && figures.gates.passed,
    reasons,
    probes_sha256: parts.probesSha256,
    probes,
    human_agreement: figures.gates.human_agreement.value,
    swap_consistency: figures.gates.swap_consistency.value,
    spend: parts.spend,
    evidence: parts.evidence,
    figures,
  };
}

/** The material of every judged task of the suite, by task id. */
async function judgedMaterials(suite: Suite): Promise<Map<string, LoadedJudgeMaterial>> {
  const materials = new Map<string, LoadedJudgeMaterial>();
  for (const task of suite.manifest.tasks) {
    if (task.judge === undefined) continue;
    materials.set(task.task_id, await loadJudgeMaterial(taskPaths(suite.dir, task.task_id)));
  }
  return materials;
}
