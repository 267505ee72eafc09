/**
 * `ledgerbench import`: the results researchers already hold (Inspect AI
 * logs, SWE-bench reports, Harbor jobs, plain tables) as an ordinary
 * hash-chained ledger plus the task list that is its denominator (issue
 * 11). The importers live in `inputs/import/`; writing is
 * `runner/write_import.ts`. The Inspect, SWE-bench and Harbor importers
 * load only when their format is asked for (with Inspect's ZIP readers,
 * node:zlib and fflate); the table importer, whose syntax the help text
 * shows, always loads.
 *
 * @module
 */
import type { ImportBatch } from "../inputs/import/imported_attempt.ts";
import {
  importTable,
  parseColumnMap,
  parseValueMap,
  TABLE_IMPORT_HELP,
  type TableFormat,
} from "../inputs/import/table.ts";
import { defaultTaskListPath, loadTaskList } from "../inputs/task_list.ts";
import { writeImport } from "../runner/write_import.ts";
import { plural } from "../report/format.ts";
import {
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";
import {
  choiceOption,
  numberOption,
  parseCommandArgs,
  type ParsedArgs,
  stringOption,
} from "./_args.ts";
import { type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { nextStep } from "./_next_step.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { artifactsDir } from "./_episode_evidence.ts";

/** `--pass-threshold`: any finite score. */
const PASS_THRESHOLD = {
  name: "pass-threshold",
  range: { min: -Number.MAX_VALUE, max: Number.MAX_VALUE },
};

/** Help text, an example first. */
export const help = `Import results other harnesses wrote into an ordinary hash-chained ledger,
one row per attempt, each with its provenance (source file, SHA-256, position
inside it, importer version) and evidence kind "imported" (never passed off as
relay-witnessed), plus a task list beside it: the denominator every command
takes with --tasks. Tokens, times or costs a source does not record stay "not
recorded" (null), never 0. Importing is append-only: a row already in the
ledger (same episode, or same source position) refuses the whole import.

Import an Inspect log and summarize it over its dataset's tasks:
  deno task ledgerbench import inspect logs/2026-01-05_mmlu.eval --out imported/ledger.jsonl
  deno task ledgerbench summarize imported/ledger.jsonl --tasks imported/ledger.tasks.json

USAGE:
  deno task ledgerbench import FORMAT SOURCE... --out LEDGER [OPTIONS]

FORMATS:
  inspect    Inspect AI eval logs, .json or .eval (ZIP, deflate or zstd): one row
             per sample and epoch; error -> invalid (harness_error), limit ->
             stop reason; the dataset's sample ids are the planned tasks; each
             sample's messages and events kept in the artifact store (view
             shows them, export inspect gives them back)
  swebench   SWE-bench harness final reports (<model>.<run_id>.json): resolved /
             unresolved / empty patch scored, error and infrastructure failures
             invalid, incomplete instances missing
  harbor     Harbor / Terminal-Bench job directories: one row per trial; reward
             and exception mapped by one table (inputs/import/harbor.ts); a
             trial's agent/trajectory.json (ATIF) kept in the artifact store
  table      CSV, TSV or JSONL with a column mapping (see below)

OPTIONS:
  --out LEDGER        The ledger to create or append to (required)
  --tasks FILE        The denominator to write instead of the tasks the sources
                      declare (a task list, or one task id per line)
  --tasks-out FILE    Where the task list goes (default: LEDGER with ".jsonl"
                      replaced by ".tasks.json"; merged when it exists)
  --agent-id ID       One agent id for every row (default: from the source)
  --price-table-id ID The rows' price_table_id (default "none": money needs a
                      frozen price table of that id)
  --artifacts DIR     Where the kept transcripts go (default: artifacts/ beside
                      the ledger, where show and view look)
${WIDTH_HELP}
  --json              Canonical JSON instead of text
  -h, --help          This help

  inspect:  --scorer NAME (required when samples have several scorers),
            --pass-threshold X (default 1: full credit; C=1, P=0.5, I=N=0)
  swebench: --run-id ID, --report-tree DIR (logs/run_evaluation/<run>/<model>/,
            cross-checked), --predictions FILE (JSONL, cross-checked)
  harbor:   --pass-threshold X (default 1), --reward-key KEY (when a trial has
            several rewards and none is named "reward")
  table:    --map, --values, --format, --run-id, --tokens-reported-by:

${TABLE_IMPORT_HELP.split("\n").map((line) => line === "" ? "" : `  ${line}`).join("\n")}

EXIT STATUS:
  0 imported; 1 usage error; 2 a source cannot be read or holds a bad field
  (file, line or position and field named), or a row is already in the ledger
  (nothing is written then)
`;

const OPTIONS = {
  out: { type: "string" },
  tasks: { type: "string" },
  "tasks-out": { type: "string" },
  "agent-id": { type: "string" },
  "price-table-id": { type: "string" },
  artifacts: { type: "string" },
  scorer: { type: "string" },
  "pass-threshold": { type: "string" },
  "run-id": { type: "string" },
  "report-tree": { type: "string" },
  predictions: { type: "string" },
  "reward-key": { type: "string" },
  map: { type: "string" },
  values: { type: "string" },
  format: { type: "string" },
  "tokens-reported-by": { type: "string" },
  ...WIDTH_OPTION,
} as const;

const FORMATS = ["inspect", "swebench", "harbor", "table"] as const;
type Format = typeof FORMATS[number];

/** The options only some formats take. */
const FORMAT_OPTIONS: Record<string, readonly Format[]> = {
  scorer: ["inspect"],
  "pass-threshold": ["inspect", "harbor"],
  "run-id": ["swebench", "table"],
  "report-tree": ["swebench"],
  predictions: ["swebench"],
  "reward-key": ["harbor"],
  map: ["table"],
  values: ["table"],
  format: ["table"],
  "tokens-reported-by": ["table"],
};

/** Runs `import`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, {
    required: ["FORMAT", "SOURCE"],
    optional: Number.MAX_SAFE_INTEGER,
  });
  const format = positionals[0];
  const width = outputWidth(values);
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(
      `Unknown format "${format}": expected ${FORMATS.map((f) => `"${f}"`).join(", ")}`,
    );
  }
  for (const [option, formats] of Object.entries(FORMAT_OPTIONS)) {
    if (values[option] !== undefined && !formats.includes(format as Format)) {
      throw new UsageError(
        `Option "--${option}" does not apply to format "${format}" (only ${
          formats.map((f) => `"${f}"`).join(", ")
        })`,
      );
    }
  }
  const out = stringOption(values, "out");
  if (out === undefined) throw new UsageError('Missing option: "--out"');
  const agentId = idOption(values, "agent-id");
  const priceTableId = idOption(values, "price-table-id") ?? "none";
  const readSource = sourceReader(format as Format, values, agentId);
  const tasksPath = stringOption(values, "tasks");
  const tasks = tasksPath === undefined ? null : await loadTaskList(tasksPath);
  const sources: { path: string; batch: ImportBatch }[] = [];
  for (const path of positionals.slice(1)) sources.push({ path, batch: await readSource(path) });
  const outcome = await writeImport({
    ledger: out,
    sources,
    taskListPath: stringOption(values, "tasks-out") ?? defaultTaskListPath(out),
    tasks,
    priceTableId,
    artifacts: artifactsDir(out, stringOption(values, "artifacts")),
    // at once, so that a warning (a torn ledger tail moved aside) is seen even if the import fails
    warn: (message) => io.stderr(fitLines(`warning: ${lineText(message)}\n`, width)),
  });
  emit(io, {
    json: values.json === true,
    payload: { command: "import", format, ...outcome },
    render: () => {
      const t = outcome.task_list;
      let text = `Imported ${plural(outcome.written, "row")} (${format}) into ${outcome.ledger} ` +
        `(${plural(outcome.existing_rows, "row")} there before)\n\n`;
      text += fitTable(
        new TableContext(width),
        [
          { header: "source", id: true, key: true, keyed: true },
          { header: "attempts", align: "right", priority: 1 },
          { header: "scored", align: "right", priority: 0 },
          { header: "resolved", align: "right", priority: 0 },
          { header: "invalid", align: "right", priority: 0 },
        ],
        outcome.sources.map((s) => [
          s.source,
          String(s.attempts),
          String(s.scored),
          String(s.resolved),
          String(s.invalid),
        ]),
      );
      text += `\ntask list: ${t.path}: ${plural(t.tasks, "task")}${
        t.attempts_per_task === 1 ? "" : ` × ${t.attempts_per_task} attempts`
      } (from ${t.derived_from}${t.merged ? ", merged with the list already there" : ""})\n`;
      text += nextStep({ command: ["summarize", out], options: [["--tasks", t.path]] }, width);
      return fitLines(text, width);
    },
  });
  return 0;
}

/** An id option (agent, price table): a non-empty string. */
function idOption(values: ParsedArgs["values"], name: string): string | undefined {
  const text = stringOption(values, name);
  if (text === "") {
    throw new UsageError(`Option "--${name}" must not be empty`);
  }
  return text;
}

/**
 * The importers of the other formats, each loaded by a computed specifier
 * when its format runs (Deno loads every literal `import("...")` at start:
 * see `loadCommand` in `main.ts`).
 */
const INSPECT = new URL("../inputs/import/inspect.ts", import.meta.url).href;
type InspectModule = typeof import("../inputs/import/inspect.ts");
const SWEBENCH = new URL("../inputs/import/swebench.ts", import.meta.url).href;
type SwebenchModule = typeof import("../inputs/import/swebench.ts");
const HARBOR = new URL("../inputs/import/harbor.ts", import.meta.url).href;
type HarborModule = typeof import("../inputs/import/harbor.ts");

/**
 * The importer of the format, with its options read and checked once (its
 * module is loaded at the first source).
 */
function sourceReader(
  format: Format,
  values: ParsedArgs["values"],
  agentId: string | undefined,
): (path: string) => Promise<ImportBatch> {
  const passThreshold = numberOption(values, PASS_THRESHOLD);
  const runId = idOption(values, "run-id");
  switch (format) {
    case "inspect": {
      const scorer = stringOption(values, "scorer");
      return async (path) =>
        (await import(INSPECT) as InspectModule).importInspectLog(path, {
          scorer,
          passThreshold,
          agentId,
        });
    }
    case "swebench": {
      const reportTree = stringOption(values, "report-tree");
      const predictions = stringOption(values, "predictions");
      return async (path) =>
        (await import(SWEBENCH) as SwebenchModule).importSwebenchReport(path, {
          agentId,
          runId,
          reportTree,
          predictions,
        });
    }
    case "harbor": {
      const rewardKey = stringOption(values, "reward-key");
      return async (path) =>
        (await import(HARBOR) as HarborModule).importHarborJob(path, {
          agentId,
          passThreshold,
          rewardKey,
        });
    }
    case "table": {
      const map = stringOption(values, "map");
      if (map === undefined) throw new UsageError('Missing option: "--map" (format "table")');
      const columns = parsed("map", () => parseColumnMap(map));
      const valueText = stringOption(values, "values");
      const valueMap = valueText === undefined
        ? undefined
        : parsed("values", () => parseValueMap(valueText));
      const tableFormat = values.format === undefined
        ? undefined
        : choiceOption<TableFormat>(values, {
          name: "format",
          choices: ["csv", "tsv", "jsonl"],
          fallback: "csv",
        });
      const reportedBy = values["tokens-reported-by"] === undefined
        ? undefined
        : choiceOption<"harness" | "agent">(values, {
          name: "tokens-reported-by",
          choices: ["harness", "agent"],
          fallback: "harness",
        });
      return (path) =>
        importTable(path, {
          columns,
          values: valueMap,
          format: tableFormat,
          agentId,
          runId,
          tokensReportedBy: reportedBy,
        });
    }
  }
}

/** Runs a spec parser, rewording its error as a usage error naming the option. */
function parsed<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`Option "--${option}": ${(error as Error).message}`);
  }
}
