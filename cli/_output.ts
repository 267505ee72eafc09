/**
 * Output shared by the commands: canonical JSON with `--json`, a text report
 * otherwise, and the lines every text report opens with (inputs, hashes,
 * errata applied).
 *
 * @module
 */
import { canonicalJson } from "../analysis/canonical_json.ts";
import { formatProblem, type LedgerProblem } from "../analysis/ledger_error.ts";
import { displayId, lineText, terminalJson, terminalText } from "../analysis/untrusted_text.ts";
import { plural } from "../report/format.ts";
import { ExitCode, type Io } from "./_command.ts";
import { fitLines } from "./_table_layout.ts";

/** A command's result in both forms: see {@link emit}. */
export interface CommandOutput {
  /** Whether `--json` was given. */
  json: boolean;
  /** The result, written as canonical JSON under `--json`. */
  payload: unknown;
  /** The text report otherwise; called only then. */
  render: () => string;
  /** When given, every line of the text report is folded to this width (`fitLines`; never the JSON). */
  width?: number;
}

/**
 * Writes `output.payload` as canonical JSON (sorted keys, 12 significant
 * digits, trailing newline) when `output.json` is set, else the text
 * `output.render()` returns; either way through the untrusted-text rule
 * (`terminalJson`, the same JSON value; `terminalText`), so no string from a
 * ledger can move the cursor or reorder a line of the terminal. With
 * `output.width`, the text's lines are folded to it first.
 *
 * @param io where the output goes
 * @param output the `json` flag, the `payload` and the text `render`er
 */
export function emit(io: Io, output: CommandOutput): void {
  io.stdout(
    output.json ? terminalJson(canonicalJson(output.payload)) : terminalText(
      output.width === undefined ? output.render() : fitLines(output.render(), output.width),
    ),
  );
}

/** A file an output depends on, as recorded in the JSON: its path as given and its SHA-256. */
export interface FileRef {
  path: string;
  sha256: string;
}

/** The opening line naming an input file and its hash: `ledger  path (sha256 abc…)`. */
export function fileLine(label: string, file: (FileRef & { note?: string }) | null): string {
  if (file === null) return "";
  return `${label}: ${file.path} (sha256 ${file.sha256})` +
    (file.note === undefined ? "" : ` (${file.note})`) + "\n";
}

/** Wraps `text` at `width` columns, indenting continuation lines by `indent`. */
export function wrap(text: string, width = 78, indent = ""): string {
  const words = text.split(/\s+/).filter((word) => word !== "");
  const lines: string[] = [];
  let line = "";
  for (const word of words) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines.join("\n") + "\n";
}

/**
 * The lines a text report opens with: the ledger and its hash, the errata
 * applied (each correction listed, so a reader always sees that errata were
 * applied), the tasks left out of formal scores (each with its rows and
 * why: an uncalibrated LLM judge, issue 14; no line when none), the plan
 * and price table.
 */
export function describeInputs(
  loaded: {
    ledger: FileRef & { rows: number; left_out?: readonly LeftOutLine[] };
    errata:
      | (FileRef & {
        applied: {
          erratum_id: string;
          kind: string;
          line: number;
          episode_id: string;
          before: Verdict;
          after: Verdict;
        }[];
        voided_summaries: string[];
      })
      | null;
  },
  configs: [string, FileRef | null][] = [],
): string {
  let text = `ledger: ${loaded.ledger.path} (sha256 ${loaded.ledger.sha256}), ` +
    `${loaded.ledger.rows} rows\n`;
  const errata = loaded.errata;
  if (errata !== null) {
    const n = errata.applied.length;
    text += `errata: ${errata.path} (sha256 ${errata.sha256}): ` +
      (n === 0 ? "no correction applied\n" : `${n} correction${n === 1 ? "" : "s"} applied\n`);
    for (const a of errata.applied) {
      text +=
        `  ${displayId(a.erratum_id)} (line ${a.line}) ${a.kind} "${displayId(a.episode_id)}": ` +
        `${verdictText(a.before)} -> ${verdictText(a.after)}\n`;
    }
    for (const sha of errata.voided_summaries) text += `  voided summary sha256 ${sha}\n`;
  }
  const leftOut = loaded.ledger.left_out ?? [];
  if (leftOut.length > 0) {
    const rows = leftOut.reduce((sum, task) => sum + task.rows, 0);
    text += `left out of formal scores: ${plural(leftOut.length, "task")}, ${plural(rows, "row")}` +
      " (recorded; no score, rate or denominator of an agent below counts them)\n";
    for (const task of leftOut) {
      text += `  "${displayId(task.task_id)}": ${plural(task.rows, "row")}, ${
        lineText(task.reason)
      }\n`;
    }
  }
  for (const [label, file] of configs) text += fileLine(label, file);
  return text;
}

/** A task left out of formal scores, as `LoadedLedger.left_out` lists it. */
interface LeftOutLine {
  task_id: string;
  rows: number;
  reason: string;
}

interface Verdict {
  status: string;
  resolved: boolean | null;
  invalid_reason: string | null;
}

function verdictText(v: Verdict): string {
  if (v.status === "invalid") return `invalid (${v.invalid_reason})`;
  return v.resolved ? "resolved" : "not resolved";
}

/** The problems of a lenient read, as a text section listing every row not used. */
export function describeProblems(problems: LedgerProblem[]): string {
  if (problems.length === 0) return "";
  const n = problems.length;
  let text = `\n${n} problem${n === 1 ? "" : "s"} found (--lenient); ` +
    `the rows or errata at these lines were not used:\n`;
  for (const problem of problems) text += `  ${formatProblem(problem)}\n`;
  return text;
}

/**
 * Ends a command that read a ledger: each warning goes to stderr as
 * `warning: <message>` (rows that mix price tables, `LoadedLedger.warnings`);
 * with no problem, status 0; otherwise each problem goes to stderr as
 * `error: <file>:<line>: ...` and the status is 2 (the input was bad, even
 * though a report was printed).
 */
export function finish(io: Io, loaded: { problems: LedgerProblem[]; warnings: string[] }): number {
  if (loaded.warnings.length > 0) {
    io.stderr(loaded.warnings.map((warning) => `warning: ${lineText(warning)}\n`).join(""));
  }
  if (loaded.problems.length === 0) return ExitCode.ok;
  io.stderr(loaded.problems.map((problem) => `error: ${formatProblem(problem)}\n`).join(""));
  return ExitCode.badInput;
}
