/**
 * `ledgerbench export inspect|harbor`: a ledger's rows, errata applied, as
 * Inspect AI `.eval` logs, one per agent, or as one Harbor job directory,
 * with each row's conversation where one is stored (an imported row's kept
 * messages and events or trajectory, a runner row's model calls read by the
 * episode browser's reading, `episodeMessages`). The conversions are
 * `_inspect_export.ts` and `_harbor_export.ts` (pure); writing is
 * `runner/write_inspect_logs.ts` and `runner/write_harbor_job.ts`.
 *
 * @module
 */
import { parseCommandArgs, stringOption } from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { configRef, type LoadedLedger, loadLedger, loadPlan } from "./_load.ts";
import { taskListOption, TASKS_OPTION } from "./_standing.ts";
import { artifactsDir, isDirectory, type LogPlace, openRowLog } from "./_episode_evidence.ts";
import { emit } from "./_output.ts";
import { fitLines, outputWidth, WIDTH_HELP, WIDTH_OPTION } from "./_table_layout.ts";
import { inspectLogs, type RowConversation } from "./_inspect_export.ts";
import type { ExportContext, ExportRow } from "./_export_row.ts";
import { writeInspectLogs } from "../runner/write_inspect_logs.ts";
import { type HarborConversation, harborJob } from "./_harbor_export.ts";
import { writeHarborJob } from "../runner/write_harbor_job.ts";
import { episodeMessages } from "../viewer/episode_messages.ts";
import { importedRecord } from "../inputs/import/imported_record.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { pathExists } from "../inputs/input_file.ts";
import { plural } from "../report/format.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import type { Episode, Plan, TaskList } from "../analysis/schema/records.ts";
import type { Loaded } from "../inputs/json_file.ts";

/** Help text, an example first. */
export const help = `Export a ledger's rows, errata applied, in another tool's format, so its viewer
and its analysis read our runs: FORMAT "inspect" (Inspect AI eval logs) or
"harbor" (a Harbor job directory).

Export the demo run for Inspect's viewer, or for Harbor's:
  deno task ledgerbench export inspect ledgers/demo/ledger.jsonl --out /tmp/demo-inspect
  inspect view --log-dir /tmp/demo-inspect
  deno task ledgerbench export harbor ledgers/demo/ledger.jsonl --out /tmp/demo-jobs
  harbor view /tmp/demo-jobs

Round trip an imported log:
  deno task ledgerbench import inspect logs/run.eval --out imported/ledger.jsonl
  deno task ledgerbench export inspect imported/ledger.jsonl --out imported/inspect

USAGE:
  deno task ledgerbench export FORMAT LEDGER --out DIR [OPTIONS]

inspect: .eval logs in the format of inspect_ai 0.3.260, one per agent, one
sample per row (id = the task id, epoch = the attempt). A resolved row scores
"C", a failed one "I" (scorer "ledgerbench"); an invalid row is a sample with
an error, which Inspect leaves unscored. Tokens become the sample's model
usage only where the row records them (a null stays absent, never 0). Each
sample carries the conversation stored for its row: an imported Inspect
sample's messages and events as its log held them, a Harbor trial's
trajectory steps, a runner row's model calls from its episode log; its
metadata names the row (episode id, ledger line, provenance, the errata that
changed it).

harbor: one job directory in DIR (a jobs folder, as harbor view opens it),
named after the run (the ledger's name when it holds several), in the format
of Harbor 0.22.0: one trial directory per row, with the agents of the ledger.
A resolved row has reward 1, a failed one 0; an invalid row is a trial with
an exception and no reward, of a type import harbor reads back as invalid for
the same reason where Harbor has one. Tokens are the trial's agent usage only
where the row records them. A row's conversation is the trial's
agent/trajectory.json (ATIF): an imported Harbor trajectory as it was,
otherwise its messages as steps; the trial's config.json names the row.

OPTIONS:
  --out DIR           Folder for the logs or the job (created; <agent>.eval
                      files, or a job directory, of the same names are
                      replaced), required
  --errata FILE       Apply the corrections of an errata file first (each
                      corrected sample or trial names its erratum)
  --plan FILE         Frozen plan: its tasks are the dataset (one attempt
                      each; a rerun of an invalid attempt is a further one)
  --tasks FILE        Task list, the dataset instead (default: the list import
                      wrote beside the ledger, if any; --tasks none declines
                      it); without either, the tasks the ledger's rows name
  --artifacts DIR     Artifact store holding the episode logs (default:
                      artifacts/ beside the ledger)
${WIDTH_HELP}
  --json              Canonical JSON instead of text
  -h, --help          This help

A row whose episode log is missing or altered is exported without its
conversation, with a warning on stderr. The rows of tasks an uncalibrated
LLM judge decided are left out, as every command leaves them out of formal
scores (the output names them).

EXIT STATUS:
  0 written; 1 usage error; 2 bad input (the ledger, errata, plan or task
  list unreadable or a line malformed: error: <file>:<line>: field "<f>":
  <message>; --out or --artifacts not a directory)
`;

const OPTIONS = {
  out: { type: "string" },
  errata: { type: "string" },
  plan: { type: "string" },
  artifacts: { type: "string" },
  ...TASKS_OPTION,
  ...WIDTH_OPTION,
} as const;

/** The formats `export` writes. */
const FORMATS = ["inspect", "harbor"] as const;

/** Runs `export`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, {
    required: ["FORMAT", "LEDGER"],
  });
  const [format, ledger] = positionals;
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`Unknown format "${format}": expected "inspect" or "harbor"`);
  }
  const width = outputWidth(values);
  const out = stringOption(values, "out");
  if (out === undefined) throw new UsageError('Missing option: "--out"');
  if (await pathExists(out) && !(await isDirectory(out))) {
    throw new InputError(`Option "--out": "${out}" exists and is not a directory`);
  }
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const taskList = await taskListOption(values, plan, ledger);
  const loaded = await loadLedger(ledger, { errata: stringOption(values, "errata") });
  const place = {
    ledger,
    artifacts: artifactsDir(ledger, stringOption(values, "artifacts")),
    named: values.artifacts !== undefined,
  };
  if (place.named && !(await isDirectory(place.artifacts))) {
    throw new InputError(`Option "--artifacts": "${place.artifacts}" is not a directory`);
  }
  const read = format === "inspect"
    ? await exportRows(loaded, place, inspectConversation)
    : await exportRows(loaded, place, harborConversation);
  if (read.unread.length > 0) {
    const unread = read.unread;
    io.stderr(fitLines(
      `warning: ${lineText(unread[0])}` +
        (unread.length > 1 ? ` (and ${plural(unread.length - 1, "more row")})` : "") +
        `: exported without their conversation\n`,
      width,
    ));
  }
  const denominator = denominatorOf(plan, taskList, loaded.rows);
  const context: ExportContext = {
    ledger: { path: ledger, sha256: loaded.ledger.sha256 },
    errata: loaded.errata === null ? null : {
      path: loaded.errata.path,
      sha256: loaded.errata.sha256,
      applied: loaded.errata.applied.length,
    },
    denominator,
  };
  const written = format === "inspect"
    ? await writeInspect(out, read.rows as ExportRow<RowConversation>[], context)
    : await writeHarbor(out, read.rows as ExportRow<HarborConversation>[], context);
  emit(io, {
    json: values.json === true,
    width,
    payload: {
      command: "export",
      format,
      ledger: loaded.ledger,
      errata: loaded.errata,
      plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
      task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })),
      out,
      ...written.payload,
      rows_without_conversation_read: read.unread.length,
    },
    render: () =>
      `Exported ${plural(loaded.rows.length, "row")} of ${ledger} as ${written.what} in ${out}/ ` +
      `(dataset: ${plural(denominator.tasks.length, "task")} from the ${denominator.source}${
        denominator.file === null ? "" : ` ${denominator.file}`
      })\n` +
      written.lines.join("") +
      loaded.left_out.map((task) =>
        `left out: ${plural(task.rows, "row")} of task ${lineText(task.task_id)} (${task.reason})\n`
      ).join(""),
  });
  return ExitCode.ok;
}

/** What one format wrote: its part of the JSON payload, what to call it, a line per file. */
interface Written {
  payload: Record<string, unknown>;
  what: string;
  lines: string[];
}

/** Writes the rows as Inspect logs, one per agent. */
async function writeInspect(
  out: string,
  rows: ExportRow<RowConversation>[],
  context: ExportContext,
): Promise<Written> {
  const logs = inspectLogs(rows, context);
  const paths = await writeInspectLogs(out, logs);
  return {
    payload: {
      logs: logs.map((log, i) => ({
        agent_id: log.agent_id,
        path: paths[i],
        samples: log.samples,
      })),
    },
    what: plural(logs.length, "Inspect log"),
    lines: logs.map((log, i) =>
      `  ${paths[i]}: ${plural(log.samples, "sample")} (${log.agent_id})\n`
    ),
  };
}

/** Writes the rows as one Harbor job directory in the jobs folder `out`. */
async function writeHarbor(
  out: string,
  rows: ExportRow<HarborConversation>[],
  context: ExportContext,
): Promise<Written> {
  const job = harborJob(rows, context);
  const path = await writeHarborJob(out, job);
  return {
    payload: { job: { path, trials: job.trials } },
    what: "a Harbor job",
    lines: [`  ${path}/: ${plural(job.trials, "trial")} (open with: harbor view ${out})\n`],
  };
}

/**
 * The rows to export, in ledger order, each with its ledger line, the
 * errata that changed it and its conversation read from its stored log
 * (`conversationOf`, the format's reading); and why the logs that could
 * not be read could not (those rows go without).
 */
async function exportRows<C>(
  loaded: LoadedLedger,
  place: LogPlace,
  conversationOf: (log: EpisodeLog | null) => C,
): Promise<{ rows: ExportRow<C>[]; unread: string[] }> {
  const lines = new Map<string, number>();
  let at = 0;
  for (const row of loaded.recorded.rows) {
    lines.set(row.episode_id, loaded.recorded.row_lines.at(at++)!);
  }
  const corrections = new Map<string, string[]>();
  for (const applied of loaded.errata?.applied ?? []) {
    corrections.set(applied.episode_id, [
      ...(corrections.get(applied.episode_id) ?? []),
      applied.erratum_id,
    ]);
  }
  const unread: string[] = [];
  const rows: ExportRow<C>[] = [];
  for (const row of loaded.rows) {
    const line = lines.get(row.episode_id)!;
    let log: EpisodeLog | null = null;
    try {
      log = await openRowLog({ row, line }, place);
    } catch (error) {
      unread.push((error as Error).message);
    }
    rows.push({
      row,
      line,
      corrections: corrections.get(row.episode_id) ?? [],
      conversation: conversationOf(log),
    });
  }
  return { rows, unread };
}

/**
 * The logs' dataset, as every command takes its denominator: the plan's
 * tasks (one attempt each), else the task list's (its attempts per task),
 * else the tasks the rows name (epochs: the most a task has).
 */
function denominatorOf(
  plan: Loaded<Plan> | null,
  taskList: Loaded<TaskList> | null,
  rows: Iterable<Episode>,
): ExportContext["denominator"] {
  if (plan !== null) {
    return {
      source: "plan",
      file: plan.path,
      tasks: plan.value.tasks.map((task) => task.task_id),
      attempts_per_task: 1,
    };
  }
  if (taskList !== null) {
    return {
      source: "task list",
      file: taskList.path,
      tasks: taskList.value.tasks.map((task) => task.task_id),
      attempts_per_task: taskList.value.attempts_per_task,
    };
  }
  return {
    source: "ledger",
    file: null,
    tasks: [...new Set(Iterator.from(rows).map((row) => row.task_id))],
    attempts_per_task: null,
  };
}

/**
 * A row's conversation from its stored log: an Inspect sample's kept members
 * (given back as they were), else its messages (a runner row's calls, a
 * Harbor trajectory's steps), or none.
 */
function inspectConversation(log: EpisodeLog | null): RowConversation {
  if (log === null) return null;
  if (log.imported?.format === "inspect") {
    return { kind: "kept", members: importedRecord(log.imported) };
  }
  return log.imported === undefined && log.bodies.length === 0
    ? null
    : { kind: "messages", messages: episodeMessages(log) };
}

/**
 * A row's conversation for Harbor from its stored log: an imported Harbor
 * trajectory's text as the source held it, else its messages (a runner
 * row's calls, an Inspect sample's messages), or none.
 */
function harborConversation(log: EpisodeLog | null): HarborConversation {
  if (log?.imported?.format === "atif") return { kind: "atif", text: log.imported.record };
  return log === null || (log.imported === undefined && log.bodies.length === 0)
    ? null
    : { kind: "messages", messages: episodeMessages(log) };
}
