/**
 * Where a judge's calibrations live and what the newest one says (issue
 * 14): `<suite>.judge/<time>/summary.json` with the raw judgments beside it
 * (`judgments.jsonl`, and the adversarial probes' `probes.jsonl`), written by `ledgerbench judge calibrate` and read by
 * `freeze`, which records the state in the plan. A calibration binds to
 * one judge configuration (its settings and the prompt's version, by
 * digest) and one suite (its hash, which covers the rubrics); any change
 * to either makes it not apply, and the judge is uncalibrated again.
 *
 * @module
 */
import { canonicalJson } from "../../analysis/canonical_json.ts";
import type {
  JudgeCalibrationState,
  JudgeConfig,
  JudgeSettings,
} from "../../analysis/schema/records.ts";
import { parseCalibrationHeader, parseCalibrationSummary } from "../../inputs/judge_records.ts";
import { sha256Hex } from "../../analysis/sha256_hex.ts";
import type { Suite } from "../../analysis/schema/suite_manifest.ts";
import { newestResults } from "../newest_results.ts";
import { JUDGE_PROMPT_VERSION } from "./judge_prompt.ts";

/** The summary file of one calibration, inside its directory. */
export const CALIBRATION_SUMMARY = "summary.json";
/** The raw judgments of one calibration, one JSON line per golden item. */
export const CALIBRATION_JUDGMENTS = "judgments.jsonl";
/** The raw judgments of one calibration's adversarial probes (issue 21), one JSON line per probe. */
export const CALIBRATION_PROBES = "probes.jsonl";

/**
 * The directory every calibration of `suiteDir`'s judge goes to: beside the suite, never in it.
 *
 * @param suiteDir the suite directory (absolute, as `loadSuite` gives it)
 * @returns `<suiteDir>.judge`
 */
export function calibrationsDir(suiteDir: string): string {
  return `${suiteDir.replace(/\/+$/, "")}.judge`;
}

/**
 * The digest a calibration binds to: SHA-256 of the canonical JSON of
 * `{"prompt_version": ..., "settings": ...}` (the judge's words and its
 * model, parameters, attempts and gates).
 *
 * @param settings the judge configuration, defaults applied
 * @returns lower-case hex SHA-256
 */
export function judgeSettingsSha256(settings: JudgeSettings): string {
  return sha256Hex(canonicalJson({ prompt_version: JUDGE_PROMPT_VERSION, settings }));
}

/**
 * The plan's judge, as `freeze` (and the demo) records it: the settings with
 * the calibration found for them, the newest (by the time in its
 * directory's name) of exactly these settings on the suite as it hashes
 * now, `passed` or `failed`; `not_run` when there is none. A summary of
 * other settings, another prompt version or another suite is skipped
 * unread beyond those digests.
 *
 * @param suite the loaded suite
 * @param settings the plan's judge settings
 * @returns the plan's `judge`
 * @throws {LedgerError} when a summary does not fit its schema (file and field named)
 */
export async function planJudge(suite: Suite, settings: JudgeSettings): Promise<JudgeConfig> {
  return { ...settings, calibration: await calibrationState(suite, settings) };
}

async function calibrationState(
  suite: Suite,
  settings: JudgeSettings,
): Promise<JudgeCalibrationState> {
  const wanted = judgeSettingsSha256(settings);
  const root = calibrationsDir(suite.dir);
  for await (const { dir, text } of newestResults(root, CALIBRATION_SUMMARY)) {
    const file = `${dir}/${CALIBRATION_SUMMARY}`;
    const header = parseCalibrationHeader(text, file);
    if (header.judge_settings_sha256 !== wanted || header.suite_sha256 !== suite.sha256) continue;
    const summary = parseCalibrationSummary(text, file);
    const common = { summary_sha256: sha256Hex(text), calibrated_at: summary.calibrated_at };
    return summary.passed && summary.human_agreement !== null &&
        summary.swap_consistency !== null
      ? {
        state: "passed",
        ...common,
        human_agreement: summary.human_agreement,
        swap_consistency: summary.swap_consistency,
      }
      : { state: "failed", ...common, reasons: summary.reasons };
  }
  return { state: "not_run" };
}
