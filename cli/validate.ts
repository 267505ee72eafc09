/**
 * `ledgerbench validate`: seed 003's validation pass, a ledger against its
 * frozen plan (rows per planned task and agent, stop reasons, spend within
 * caps, duplicates, hash chain), before anyone looks at a mean.
 *
 * @module
 */
import type { Finding } from "../analysis/validate_ledger.ts";
import { validateLedgerFile } from "../inputs/validate_ledger_file.ts";
import { formatProblem, type LedgerProblem, type ProblemCode } from "../analysis/ledger_error.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { MAX_FINDINGS_RANGE } from "./_option_ranges.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { configRef, loadPlan } from "./_load.ts";
import { emit, fileLine } from "./_output.ts";
import {
  fitLines,
  fitPairs,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";

/** `--max-findings`: findings listed per kind. */
const MAX_FINDINGS: NumberOption = { name: "max-findings", range: MAX_FINDINGS_RANGE };

/** Help text, an example first. */
export const help = `Validate a ledger against its frozen plan (seed 003): one scored row per
planned agent and task (missing and unexpected tasks listed), known stop
reasons, spend within the caps, lanes, price table and caps as planned, no
duplicate episode, an unbroken hash chain. Invalid attempts are listed.

Validate the synthetic example against its plan:
  deno task ledgerbench validate ledgers/examples/synthetic_ledger.jsonl \\
    --plan ledgers/examples/synthetic_plan.json

List every problem of a damaged ledger instead of stopping at the first:
  deno task ledgerbench validate damaged.jsonl --plan plan.json --lenient

USAGE:
  deno task ledgerbench validate LEDGER --plan FILE [OPTIONS]

OPTIONS:
  --plan FILE         The frozen plan (required)
  --lenient           Go on after a line that cannot be read (bad JSON, schema,
                      duplicate, hash chain): every such line is listed as an
                      error and left out; the exit status is then 2
  --max-findings N    List at most N findings of each kind, ${rangeText(MAX_FINDINGS.range)}
                      (counts stay complete; default: all)
${WIDTH_HELP}
  --json              Canonical JSON instead of tables
  -h, --help          This help

EXIT STATUS:
  0 the ledger fits the plan; 2 a line cannot be read (strict: the first one);
  3 the ledger was read but does not fit the plan (missing or unexpected
  tasks, over-cap spend, duplicates of scored attempts, wrong row count...)
`;

const OPTIONS = {
  plan: { type: "string" },
  lenient: { type: "boolean" },
  "max-findings": { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** The finding codes that come from the ledger reader (the line itself is bad). */
const READER_CODES: ReadonlySet<string> = new Set<ProblemCode>([
  "malformed_json",
  "bad_encoding",
  "duplicate_key",
  "number_out_of_range",
  "blank_line",
  "schema_violation",
  "duplicate_episode_id",
  "broken_hash_chain",
  "io_error",
]);

/** Runs `validate`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const planPath = stringOption(values, "plan");
  if (planPath === undefined) throw new UsageError('Missing option: "--plan"');
  const maxFindings = numberOption(values, MAX_FINDINGS);
  const lenient = values.lenient === true;
  const width = outputWidth(values);
  const plan = await loadPlan(planPath);
  const path = positionals[0];
  const report = await validateLedgerFile(path, plan.value, { maxFindingsPerCode: maxFindings });
  const readerProblems: LedgerProblem[] = report.findings
    .filter((finding) => READER_CODES.has(finding.code))
    .map((finding) => ({
      code: finding.code as ProblemCode,
      file: path,
      line: finding.line ?? 0,
      field: finding.field,
      message: finding.message,
    }));
  if (!lenient && readerProblems.length > 0) {
    io.stderr(`error: ${formatProblem(readerProblems[0])}\n`);
    return ExitCode.badInput;
  }
  const payload = {
    command: "validate",
    ledger: { path, sha256: report.sha256, lines: report.lines, chained: report.chained },
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    parameters: { lenient, max_findings_per_code: maxFindings ?? null },
    validation: report,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = `Validation against plan "${report.plan_id}" (seed 003)\n\n`;
      text += fileLine("ledger", { path, sha256: report.sha256 });
      text += fileLine("plan", plan);
      const context = new TableContext(width);
      text += "\n" + fitPairs([
        ["lines", `${report.lines} (hash chain: ${report.chained ? "yes" : "no"})`],
        ["rows read", `${report.rows} (scored ${report.scored}, invalid ${report.invalid})`],
        ["planned", `${report.planned_scored} scored rows (stopping: ${report.stopping})`],
        [
          "stop reasons",
          Object.entries(report.stop_reasons).map(([reason, n]) => `${reason} ${n}`).join(", "),
        ],
      ], width);
      text += "\n" + fitTable(
        context,
        [
          { header: "agent", id: true, key: true, keyed: true },
          { header: "planned", priority: 0 },
          { header: "rows", align: "right", priority: 2 },
          { header: "scored", align: "right", priority: 0 },
          { header: "invalid", align: "right", priority: 0 },
          { header: "tasks scored", align: "right", priority: 1 },
          { header: "tasks without score", align: "right", priority: 1 },
        ],
        report.agents.map((a) => [
          a.agent_id,
          a.planned ? "yes" : "NO",
          String(a.rows),
          String(a.scored),
          String(a.invalid),
          String(a.tasks_scored),
          String(a.tasks_without_score),
        ]),
      );
      text += "\n" + describeFindings(context, report.findings, report.finding_counts);
      text += report.ok
        ? "\nverdict: the ledger fits the plan\n"
        : `\nverdict: the ledger does NOT fit the plan (${errorCount(report.findings)} ` +
          `error finding${errorCount(report.findings) === 1 ? "" : "s"} listed)\n`;
      return fitLines(text, width);
    },
  });
  if (readerProblems.length > 0) {
    io.stderr(readerProblems.map((problem) => `error: ${formatProblem(problem)}\n`).join(""));
    return ExitCode.badInput;
  }
  return report.ok ? ExitCode.ok : ExitCode.refused;
}

function errorCount(findings: Finding[]): number {
  return findings.filter((finding) => finding.severity === "error").length;
}

function describeFindings(
  context: TableContext,
  findings: Finding[],
  counts: Partial<Record<string, number>>,
): string {
  const total = Object.values(counts).reduce((sum: number, n) => sum + (n ?? 0), 0);
  if (total === 0) return "findings: none\n";
  const summary = Object.entries(counts).map(([code, n]) => `${code} ${n}`).join(", ");
  let text = `findings: ${total} (${summary})\n`;
  if (findings.length < total) {
    text += `  (${total - findings.length} not listed: --max-findings)\n`;
  }
  text += fitTable(
    context,
    [
      { header: "severity", priority: 1 },
      { header: "line", align: "right", key: true },
      { header: "code", priority: 1 },
      { header: "where", priority: 3 },
      { header: "message", priority: 2 },
    ],
    findings.map((f) => [
      f.severity,
      f.line === null ? "-" : String(f.line),
      f.code,
      [f.field === "" ? "" : `field "${f.field}"`, f.agent_id ?? "", f.task_id ?? ""]
        .filter((part) => part !== "").join(" "),
      f.message,
    ]),
  );
  return text;
}
