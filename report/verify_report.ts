/**
 * Checking a published report against its inputs: re-read the files
 * `summary.json` names, check their SHA-256, recompute everything and compare
 * every file of the report directory.
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { formatProblem, LedgerError } from "../analysis/ledger_error.ts";
import { buildReport } from "./build_report.ts";
import { REPORT_FORMAT, type ReportInputs } from "./report_model.ts";
import { diffJson } from "./diff_json.ts";
import { inputSha256 } from "../inputs/input_file.ts";
import type { TaskListSource } from "../inputs/task_list.ts";
import { loadJsonFile } from "../inputs/json_file.ts";
import { loadReportInputs } from "./load_report_inputs.ts";
import { renderReport } from "./render_report.ts";
import { z } from "zod";

/**
 * What `summary.json` must be to be read at all: one JSON object (its
 * members are checked where they are used, each naming its key).
 */
const RecordedSummary = z.record(z.string(), z.unknown());

/** One difference between a report directory and its recomputation. */
export interface ReportDifference {
  /** The file that differs: a report file (`summary.json`, `figures/forest.png`) or an input. */
  file: string;
  /** The JSON path within `summary.json` (`$.agents[0].tpr`), or null for a whole file. */
  key: string | null;
  /** What differs, in one sentence without final period. */
  message: string;
}

/** One input named by `summary.json`, as found on disk. */
export interface VerifiedInput {
  /** `ledger`, `errata`, `plan`, `price_table` or `task_list`. */
  role: string;
  /** The path recorded in `summary.json`. */
  path: string;
  /** The SHA-256 recorded in `summary.json`. */
  recorded_sha256: string;
  /** The SHA-256 of the file now; null when it cannot be read. */
  actual_sha256: string | null;
}

/** The outcome of {@link verifyReport}. */
export interface ReportVerification {
  /** True when every input has its recorded SHA-256 and every file matches byte for byte. */
  ok: boolean;
  /** The report directory. */
  dir: string;
  inputs: VerifiedInput[];
  /** Report files compared (relative paths), in the order the report writes them. */
  compared: string[];
  /** Every difference found, inputs first, then `summary.json` keys, then files. */
  differences: ReportDifference[];
  /** Remarks that help read the differences (e.g. PNGs depending on the installed fonts). */
  notes: string[];
}

/** Options for {@link verifyReport}. */
export interface VerifyReportOptions {
  /**
   * Directory that relative input paths recorded in `summary.json` are
   * resolved against; default: the current directory (where the report was run).
   */
  base?: string;
  /** At most this many `summary.json` key differences are listed; default 50. */
  maxKeyDifferences?: number;
}

const ROLES = ["ledger", "errata", "plan", "price_table", "task_list"] as const;

function summaryProblem(file: string, field: string, message: string): LedgerError {
  return new LedgerError([{ code: "schema_violation", file, line: 0, field, message }]);
}

function resolve(base: string | undefined, path: string): string {
  if (base === undefined || path.startsWith("/")) return path;
  return `${base.replace(/\/+$/, "")}/${path}`;
}

function show(value: unknown): string {
  if (value === undefined) return "absent";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Where two byte strings first differ, in words: a line for text, an offset for binary. */
function firstDifference(path: string, expected: Uint8Array, actual: Uint8Array): string {
  const n = Math.min(expected.length, actual.length);
  let i = 0;
  while (i < n && expected[i] === actual[i]) i++;
  const sizes = expected.length === actual.length
    ? `${expected.length} bytes each`
    : `${actual.length} bytes, recomputed ${expected.length}`;
  if (/\.(png)$/.test(path)) return `bytes differ from offset ${i} (${sizes})`;
  let line = 1;
  for (let j = 0; j < i; j++) if (expected[j] === 10) line++;
  return `bytes differ from line ${line} (offset ${i}; ${sizes})`;
}

interface RecordedInput {
  role: (typeof ROLES)[number];
  path: string;
  sha256: string;
}

function recordedInputs(summary: unknown, file: string): RecordedInput[] {
  if (typeof summary !== "object" || summary === null || Array.isArray(summary)) {
    throw summaryProblem(file, "", "must hold one JSON object");
  }
  const s = summary as Record<string, unknown>;
  if (s.format !== REPORT_FORMAT) {
    throw summaryProblem(file, "format", `must be "${REPORT_FORMAT}", found ${show(s.format)}`);
  }
  const inputs = s.inputs as Record<string, unknown> | undefined;
  if (typeof inputs !== "object" || inputs === null) {
    throw summaryProblem(file, "inputs", "must be an object naming the report's inputs");
  }
  const out: RecordedInput[] = [];
  for (const role of ROLES) {
    const entry = inputs[role];
    if (entry === null && role !== "ledger") continue;
    const e = entry as Record<string, unknown> | undefined;
    if (typeof e?.path !== "string" || typeof e?.sha256 !== "string") {
      throw summaryProblem(
        file,
        `inputs.${role}`,
        `must hold "path" and "sha256" strings${role === "ledger" ? "" : ", or be null"}`,
      );
    }
    out.push({ role, path: e.path, sha256: e.sha256 });
  }
  return out;
}

function recordedNumber(summary: Record<string, unknown>, file: string, keys: string[]): number {
  let value: unknown = summary;
  for (const key of keys) value = (value as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== "number") {
    throw summaryProblem(file, keys.join("."), `must be a number, found ${show(value)}`);
  }
  return value;
}

/**
 * Verifies a report directory written by `ledgerbench report`.
 *
 * Steps: read `summary.json` and the inputs it names (paths as recorded,
 * relative ones resolved against `base`); compare each input's SHA-256 with
 * the recorded one (a tampered ledger, plan, errata or price table is a
 * difference on `inputs.<role>.sha256`); recompute the report from the files
 * as they are now with the recorded parameters (`buildReport`, then
 * `renderReport`); compare the recomputed summary with `summary.json` key by
 * key (every differing JSON path is listed); then compare every file the
 * report writes (`summary.json`, `report.md`, `report.html`, each figure's SVG
 * and PNG) byte for byte, and list missing files and figure files the report
 * would not write. When an input can no longer be read (a changed byte broke
 * a line), the read error is listed as a difference beside the hash mismatch.
 *
 * Cost: one full report generation (see `renderReport`) plus reading the directory.
 *
 * @param dir the report directory
 * @param options `base` for relative input paths, a cap on key differences listed
 * @returns the verdict, the inputs with both hashes, and every difference
 * @throws {LedgerError} when `summary.json` is missing, not JSON or lacks its
 *   inputs, or an input whose hash matches cannot be read (bad input)
 */
export async function verifyReport(
  dir: string,
  options: VerifyReportOptions = {},
): Promise<ReportVerification> {
  const summaryPath = `${dir}/summary.json`;
  const recorded = (await loadJsonFile(summaryPath, RecordedSummary)).value;
  const named = recordedInputs(recorded, summaryPath);
  const maxFindingsPerCode = recordedNumber(recorded, summaryPath, [
    "parameters",
    "max_findings_per_code",
  ]);
  const pngScale = recordedNumber(recorded, summaryPath, ["parameters", "figures", "png_scale"]);
  const calibration = (recorded.parameters as Record<string, unknown>).sprt_calibration as
    | { trials?: unknown; seed?: unknown }
    | null
    | undefined;
  const calibrationTrials = typeof calibration?.trials === "number"
    ? calibration.trials
    : undefined;
  const calibrationSeed =
    typeof calibration?.seed === "number" || typeof calibration?.seed === "string"
      ? calibration.seed
      : undefined;

  const differences: ReportDifference[] = [];
  const notes: string[] = [];
  const inputs: VerifiedInput[] = [];
  for (const input of named) {
    let actual: string | null = null;
    try {
      actual = await inputSha256(resolve(options.base, input.path));
    } catch (error) {
      const problem = error instanceof LedgerError
        ? formatProblem(error.problems[0])
        : String(error);
      differences.push({
        file: input.path,
        key: `$.inputs.${input.role}.sha256`,
        message: `cannot read the ${input.role.replace("_", " ")}: ${problem}`,
      });
    }
    if (actual !== null && actual !== input.sha256) {
      differences.push({
        file: input.path,
        key: `$.inputs.${input.role}.sha256`,
        message: `the ${input.role.replace("_", " ")} has changed: summary.json records SHA-256 ` +
          `${input.sha256}, the file has ${actual}`,
      });
    }
    inputs.push({
      role: input.role,
      path: input.path,
      recorded_sha256: input.sha256,
      actual_sha256: actual,
    });
  }

  const pathOf = (role: string) => named.find((input) => input.role === role)?.path ?? null;
  let reportInputs: ReportInputs;
  try {
    reportInputs = await loadReportInputs({
      ledger: resolve(options.base, pathOf("ledger")!),
      plan: pathOf("plan") === null ? null : resolve(options.base, pathOf("plan")!),
      errata: pathOf("errata") === null ? null : resolve(options.base, pathOf("errata")!),
      priceTable: pathOf("price_table") === null
        ? null
        : resolve(options.base, pathOf("price_table")!),
      taskList: pathOf("task_list") === null ? null : resolve(options.base, pathOf("task_list")!),
      // As recorded: verify-report never looks beside the ledger itself (issue 25 item 4).
      taskListSource: recordedTaskListSource(recorded),
    });
  } catch (error) {
    if (!(error instanceof LedgerError) || differences.length === 0) throw error;
    for (const problem of error.problems) {
      differences.push({
        file: problem.file,
        key: null,
        message: `cannot recompute the report: ${formatProblem(problem)}`,
      });
    }
    return { ok: false, dir, inputs, compared: [], differences, notes };
  }
  // Record the paths exactly as summary.json names them, whatever `base` is.
  reportInputs.ledger.file = pathOf("ledger")!;
  if (reportInputs.errata) reportInputs.errata.file = pathOf("errata")!;
  if (reportInputs.plan) reportInputs.plan.path = pathOf("plan")!;
  if (reportInputs.priceTable) reportInputs.priceTable.path = pathOf("price_table")!;
  if (reportInputs.taskList) reportInputs.taskList.path = pathOf("task_list")!;

  let report;
  try {
    report = buildReport(reportInputs, {
      maxFindingsPerCode,
      pngScale,
      calibrationTrials,
      calibrationSeed,
    });
  } catch (error) {
    if (!(error instanceof LedgerError) || differences.length === 0) throw error;
    differences.push({
      file: error.problems[0].file,
      key: null,
      message: `cannot recompute the report: ${formatProblem(error.problems[0])}`,
    });
    return { ok: false, dir, inputs, compared: [], differences, notes };
  }

  const keyLimit = options.maxKeyDifferences ?? 50;
  const expectedSummary = JSON.parse(canonicalJson(report.summary));
  const keyDiffs = diffJson(expectedSummary, recorded);
  for (const d of keyDiffs.slice(0, keyLimit)) {
    differences.push({
      file: "summary.json",
      key: d.path,
      message: `summary.json holds ${show(d.actual)}, recomputed ${show(d.expected)}`,
    });
  }
  if (keyDiffs.length > keyLimit) {
    differences.push({
      file: "summary.json",
      key: null,
      message: `and ${keyDiffs.length - keyLimit} more differing keys`,
    });
  }

  const rendered = await renderReport(report);
  const compared: string[] = [];
  const pngOnly: string[] = [];
  for (const file of rendered.files) {
    compared.push(file.path);
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(`${dir}/${file.path}`);
    } catch {
      differences.push({
        file: file.path,
        key: null,
        message: "missing from the report directory",
      });
      continue;
    }
    const same = bytes.length === file.bytes.length && bytes.every((b, i) => b === file.bytes[i]);
    if (same) continue;
    differences.push({
      file: file.path,
      key: null,
      message: firstDifference(file.path, file.bytes, bytes),
    });
    if (file.path.endsWith(".png")) pngOnly.push(file.path);
  }
  const written = new Set(rendered.files.map((file) => file.path));
  try {
    const extra: string[] = [];
    for await (const entry of Deno.readDir(`${dir}/figures`)) {
      const path = `figures/${entry.name}`;
      if (entry.isFile && !written.has(path)) extra.push(path);
    }
    for (const path of extra.sort()) {
      differences.push({ file: path, key: null, message: "not a file this report writes" });
    }
  } catch {
    // No figures directory: every figure is already listed as missing.
  }
  if (pngOnly.length > 0 && differences.length === pngOnly.length) {
    notes.push(
      "Only PNG files differ while every SVG matches: rasterisation depends on the fonts " +
        "installed (the figures ask for DejaVu Sans)",
    );
  }
  return { ok: differences.length === 0, dir, inputs, compared, differences, notes };
}

/** The task list's source summary.json records; a summary without one: `flag` with a list, else `none`. */
function recordedTaskListSource(recorded: unknown): TaskListSource {
  const inputs = (recorded as { inputs?: { task_list?: unknown; task_list_source?: unknown } })
    ?.inputs;
  const source = inputs?.task_list_source;
  if (source === "flag" || source === "beside_ledger" || source === "declined") return source;
  if (source === "none") return source;
  return inputs?.task_list == null ? "none" : "flag";
}
