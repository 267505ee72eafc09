/**
 * `ledgerbench verify-report`: recompute a report from the inputs its
 * summary.json names and list every difference.
 *
 * @module
 */
import { outputWidth, WIDTH_HELP, WIDTH_OPTION } from "./_table_layout.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { ExitCode, type Io } from "./_command.ts";
import { emit } from "./_output.ts";

/** Help text, an example first. */
export const help = `Verify a report directory written by "ledgerbench report": re-read the
ledger, plan, errata and price table named in its summary.json, check each
file's SHA-256 against the recorded one (a changed ledger is a difference),
recompute every number, claim and figure with the recorded parameters, and
compare summary.json key by key and every file (summary.json, report.md,
report.html, figures/*.svg, figures/*.png) byte for byte. Every difference is
listed with the file and, for summary.json, the key.

Verify the report of the synthetic example (from the directory it was run in):
  deno task ledgerbench verify-report out/report

The same, with the inputs' relative paths resolved against another directory:
  deno task ledgerbench verify-report /tmp/report --base /work/main

USAGE:
  deno task ledgerbench verify-report DIR [OPTIONS]

OPTIONS:
  --base DIR          Resolve relative input paths against DIR (default: the
                      current directory)
${WIDTH_HELP}
  --json              The verdict, the inputs' hashes and every difference as JSON
  -h, --help          This help

EXIT STATUS:
  0 the report matches its inputs byte for byte; 1 a difference (listed on
  stdout), or a usage error; 2 summary.json cannot be read, or an unchanged
  input cannot be read
`;

const OPTIONS = { base: { type: "string" }, ...WIDTH_OPTION } as const;

/** Runs `verify-report`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["DIR"] });
  const width = outputWidth(values);
  const dir = positionals[0];
  // Loaded here, not at the top: the renderer loads resvg's native addon (--allow-ffi), which
  // "ledgerbench --help" must not need.
  const { verifyReport } = await import("../report/verify_report.ts");
  const result = await verifyReport(dir, { base: stringOption(values, "base") });
  emit(io, {
    json: values.json === true,
    width,
    payload: { command: "verify-report", ...result },
    render: () => {
      let text = "";
      for (const input of result.inputs) {
        const state = input.actual_sha256 === null
          ? "cannot be read"
          : input.actual_sha256 === input.recorded_sha256
          ? "SHA-256 matches"
          : "SHA-256 DIFFERS";
        text += `${input.role}: ${input.path} (${state})\n`;
      }
      if (result.ok) {
        return text + `OK: ${dir} matches its inputs: ${result.compared.length} files identical\n`;
      }
      text += `MISMATCH: ${dir}: ${result.differences.length} difference` +
        `${result.differences.length === 1 ? "" : "s"}\n`;
      for (const d of result.differences) {
        text += `  ${d.file}${d.key === null ? "" : ` ${d.key}`}: ${d.message}\n`;
      }
      for (const note of result.notes) text += `note: ${note}\n`;
      return text;
    },
  });
  if (result.ok) return ExitCode.ok;
  io.stderr(`error: Report "${dir}" does not match its inputs: see the differences listed\n`);
  return 1;
}
