/**
 * Reading back the judge's durable records (issue 14): a calibration's
 * `summary.json`, `judgments.jsonl` and `probes.jsonl` (`judge calibrate`;
 * the probes, issue 21), and the record
 * of a comparison (`judge pairwise --out`), each through its schema, every
 * problem named with file, line and field like any other input.
 *
 * @module
 */
import { LedgerError } from "../analysis/ledger_error.ts";
import {
  CalibrationSummaryHeader,
  GoldenItemJudgment,
  JudgeCalibrationSummary,
  PairwiseRecord,
  ProbeJudgment,
} from "../analysis/schema/judge_records.ts";
import { openInput } from "./input_file.ts";
import { type Loaded, loadJsonFile, parseJsonFile } from "./json_file.ts";
import type { z } from "zod";
import { parseLine, scanJsonl } from "./jsonl.ts";

/**
 * Parses a calibration's summary already read (`newestResults` yields its
 * text) through {@link JudgeCalibrationSummary}.
 *
 * @param text the file's text
 * @param file the file named in problems
 * @returns the summary
 * @throws {LedgerError} the codes of `parseJsonFile`
 */
export function parseCalibrationSummary(text: string, file: string): JudgeCalibrationSummary {
  return parseJsonFile(new TextEncoder().encode(text), JudgeCalibrationSummary, file).value;
}

/**
 * Parses which judge and suite a calibration's summary already read is
 * about ({@link CalibrationSummaryHeader}), leaving its other fields
 * unread, so that a summary of an older judge configuration is skipped
 * rather than refused.
 *
 * @param text the file's text
 * @param file the file named in problems
 * @returns the summary's judge settings digest and suite hash
 * @throws {LedgerError} the codes of `parseJsonFile`
 */
export function parseCalibrationHeader(text: string, file: string): CalibrationSummaryHeader {
  return parseJsonFile(new TextEncoder().encode(text), CalibrationSummaryHeader, file).value;
}

/**
 * Reads a calibration's summary through {@link JudgeCalibrationSummary}.
 *
 * @param path the `summary.json`, as given
 * @returns the path, the SHA-256 of its bytes and the summary
 * @throws {LedgerError} the codes of `loadJsonFile`
 */
export async function loadCalibrationSummary(
  path: string,
): Promise<Loaded<JudgeCalibrationSummary> & { text: string }> {
  return await loadJsonFile(path, JudgeCalibrationSummary);
}

/**
 * Reads a calibration's raw judgments, one {@link GoldenItemJudgment} per
 * line, streaming. Cost: O(file).
 *
 * @param path the `judgments.jsonl`, as given
 * @returns the judgments in file order and the file's SHA-256
 * @throws {LedgerError} on the first problem, naming file, line and field
 */
export async function loadCalibrationJudgments(
  path: string,
): Promise<{ sha256: string; judgments: GoldenItemJudgment[] }> {
  return await loadJudgmentLines(path, GoldenItemJudgment);
}

/**
 * Reads a calibration's adversarial-probe judgments (issue 21), one
 * {@link ProbeJudgment} per line, streaming. Cost: O(file).
 *
 * @param path the `probes.jsonl`, as given
 * @returns the judgments in file order and the file's SHA-256
 * @throws {LedgerError} on the first problem, naming file, line and field
 */
export async function loadProbeJudgments(
  path: string,
): Promise<{ sha256: string; judgments: ProbeJudgment[] }> {
  return await loadJudgmentLines(path, ProbeJudgment);
}

/**
 * One record of `schema` per line, streaming, stopping at the first
 * problem; the reader of `judgments.jsonl` and `probes.jsonl` alike.
 */
async function loadJudgmentLines<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<{ sha256: string; judgments: z.output<S>[] }> {
  const judgments: z.output<S>[] = [];
  const summary = await scanJsonl(await openInput(path), (bytes, line, text) => {
    const result = parseLine(schema, { bytes, file: path, line, text });
    if (!result.ok) throw new LedgerError([result.problem]);
    judgments.push(result.value);
  });
  return { sha256: summary.sha256, judgments };
}

/**
 * Reads the record of a comparison through {@link PairwiseRecord}.
 *
 * @param path the file `judge pairwise --out` wrote, as given
 * @returns the path, the SHA-256 of its bytes and the record
 * @throws {LedgerError} the codes of `loadJsonFile`
 */
export async function loadPairwiseRecord(path: string): Promise<Loaded<PairwiseRecord>> {
  return await loadJsonFile(path, PairwiseRecord);
}
