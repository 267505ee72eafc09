/**
 * `ledgerbench report`: the replayable report of a ledger (report.md,
 * self-contained report.html, figures as static SVG and PNG, summary.json), stating
 * only the claims the seeds' rules allow.
 *
 * @module
 */
import { fitLines, outputWidth, WIDTH_HELP, WIDTH_OPTION } from "./_table_layout.ts";
import { refuseTwoDenominators, TASKS_HELP, TASKS_OPTION } from "./_standing.ts";
import { sha256Hex } from "../analysis/sha256_hex.ts";
import { buildReport } from "../report/build_report.ts";
import { loadReportInputs } from "../report/load_report_inputs.ts";
import { checkReportDir, writeReport } from "../report/write_report.ts";
import {
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { emit, wrap } from "./_output.ts";
import { nextStep } from "./_next_step.ts";
import { MAX_FINDINGS_RANGE } from "./_option_ranges.ts";
import { REPORT_DEFAULTS } from "../report/report_model.ts";
import { chooseTaskList, NO_TASK_LIST } from "./_load.ts";

/** `--max-findings`: validation findings listed per code. */
const MAX_FINDINGS: NumberOption = { name: "max-findings", range: MAX_FINDINGS_RANGE };
/** `--png-scale`: PNG pixels per SVG pixel, above 0, at most 8 (a figure stays a few MB). */
const PNG_SCALE: NumberOption = { name: "png-scale", range: { above: 0, max: 8 } };

/** Help text, an example first. */
export const help = `Write the replayable report of a ledger: report.md, a self-contained
report.html (figures inline as static SVG: no script, so no tooltips or
clicks; no network), figures/*.svg and figures/*.png, and summary.json
(canonical JSON: the inputs' paths as given and SHA-256, every parameter and
seed, every number and claim). The report states only what the rules allow:
no rate winner when the 95% intervals overlap (seed 001, the rule that fired
is named), the censoring policy's verdict per agent (seed 003: headline, both
scores labelled, or budget adequacy only), invalid rates, the errata applied
and voided summaries, SPRT decisions when the plan pre-registers SPRT (seed
002), and validation against the plan. It opens with a table of contents, a
leaderboard (shared ranks by seed 001's verdicts, each agent's claim and its
score over planned tasks as a lower bound; withheld agents listed last,
unranked) and the pairwise verdicts as a matrix. The same inputs give
byte-identical files.

Report on the shipped synthetic example:
  deno task ledgerbench report ledgers/examples/synthetic_ledger.jsonl \\
    --plan ledgers/examples/synthetic_plan.json \\
    --errata ledgers/examples/synthetic_errata.jsonl \\
    --price-table ledgers/examples/price_table.json --out out/report

Then check it against its inputs:
  deno task ledgerbench verify-report out/report

USAGE:
  deno task ledgerbench report LEDGER --out DIR [OPTIONS]

OPTIONS:
  --out DIR           Directory to write (created; figures no longer produced
                      are removed from DIR/figures; nothing else is touched)
  --plan FILE         Frozen plan: validation, bootstrap rounds and seed, tie
                      band, censoring thresholds, lane weights, SPRT
  --errata FILE       Corrections applied on top of the ledger
  --price-table FILE  Frozen price table: cost per resolved in money
${TASKS_HELP}
  --max-findings N    Validation findings listed per code, ${rangeText(MAX_FINDINGS.range)}
                      (default ${REPORT_DEFAULTS.maxFindingsPerCode})
  --png-scale X       PNG pixels per SVG pixel, ${rangeText(PNG_SCALE.range)}
                      (default ${REPORT_DEFAULTS.pngScale})
${WIDTH_HELP}
  --json              Print the files written (path, bytes, SHA-256) as JSON
  -h, --help          This help

Paths are recorded as given: run verify-report from the same directory (or
pass it --base).

EXIT STATUS:
  0 written; 1 usage error; 2 an input cannot be read, or an erratum cannot
  apply, or the price table is not the one the rows name
`;

const OPTIONS = {
  ...TASKS_OPTION,
  out: { type: "string" },
  plan: { type: "string" },
  errata: { type: "string" },
  "price-table": { type: "string" },
  "max-findings": { type: "string" },
  "png-scale": { type: "string" },
  ...WIDTH_OPTION,
} as const;

/** Runs `report`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const width = outputWidth(values);
  const out = stringOption(values, "out");
  if (out === undefined) throw new UsageError('Missing option: "--out"');
  const maxFindingsPerCode = numberOption(values, MAX_FINDINGS) ??
    REPORT_DEFAULTS.maxFindingsPerCode;
  const pngScale = numberOption(values, PNG_SCALE) ?? REPORT_DEFAULTS.pngScale;
  const tasks = stringOption(values, "tasks");
  const planPath = stringOption(values, "plan");
  if (planPath !== undefined && tasks !== undefined && tasks !== NO_TASK_LIST) {
    refuseTwoDenominators();
  }
  await checkReportDir(out);
  // --tasks, else the task list beside the ledger (issue 25 item 4), else none.
  const taskList = await chooseTaskList(positionals[0], tasks, planPath !== undefined);
  const inputs = await loadReportInputs({
    ledger: positionals[0],
    plan: planPath,
    errata: stringOption(values, "errata"),
    priceTable: stringOption(values, "price-table"),
    taskList: taskList.list?.path ?? null,
    taskListSource: taskList.source,
  });
  const report = buildReport(inputs, { maxFindingsPerCode, pngScale });
  // Loaded here, not at the top: the renderer loads resvg's native addon (--allow-ffi), which
  // "ledgerbench --help" must not need.
  const { renderReport } = await import("../report/render_report.ts");
  const rendered = await renderReport(report);
  const removed = await writeReport(out, rendered.files);
  for (const warning of rendered.warnings) io.stderr(fitLines(`warning: ${warning}\n`, width));
  const files = rendered.files.map((file) => ({
    path: file.path,
    bytes: file.bytes.length,
    sha256: sha256Hex(file.bytes),
  }));
  const s = report.summary;
  emit(io, {
    json: values.json === true,
    width,
    payload: {
      command: "report",
      out,
      citable: s.citable,
      files,
      removed,
    },
    render: () => {
      let text = `Wrote ${out}: summary.json, report.md, report.html and ` +
        `${s.figures.length} figure${s.figures.length === 1 ? "" : "s"} (SVG and PNG)\n`;
      for (const path of removed) text += `  removed stale ${path}\n`;
      if (taskList.list !== null && taskList.source === "beside_ledger") {
        text += `task list: ${taskList.list.path} (found beside the ledger)\n`;
      }
      text += `\n${s.title}\n`;
      const stated = s.claims.filter((c) => c.stated);
      const withheld = s.claims.filter((c) => !c.stated);
      text += `\nStated (${stated.length}):\n`;
      for (const c of stated) text += wrap(`- ${c.text}`, 78, "  ");
      if (withheld.length > 0) {
        text += `\nWithheld (${withheld.length}):\n`;
        for (const c of withheld) text += wrap(`- ${c.text} (${c.rule})`, 78, "  ");
      }
      const errata = stringOption(values, "errata");
      return text + "\n" + nextStep({
        command: ["view", positionals[0]],
        options: errata === undefined ? [] : [["--errata", errata]],
        note: `or open ${out}/report.html in a browser`,
      }, width);
    },
  });
  return ExitCode.ok;
}
