/**
 * `ledgerbench export inspect`: a ledger's rows, errata applied, as Inspect
 * AI `.eval` logs, one per agent, with each row's conversation where one is
 * stored (an imported row's kept messages and events, a runner row's model
 * calls read by the episode browser's reading, `episodeMessages`). The
 * conversion is `_inspect_export.ts` (pure); writing is
 * `runner/write_inspect_logs.ts`.
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
import {
  type ExportContext,
  type ExportRow,
  inspectLogs,
  type RowConversation,
} from "./_inspect_export.ts";
import { writeInspectLogs } from "../runner/write_inspect_logs.ts";
import { episodeMessages } from "../viewer/episode_messages.ts";
import { importedRecord } from "../inputs/import/imported_record.ts";
import { lineText } from "../analysis/untrusted_text.ts";
import { pathExists } from "../inputs/input_file.ts";
import { plural } from "../report/format.ts";
import type { EpisodeLog } from "../runner/episode_log_store.ts";
import type { Episode, Plan, TaskList } from "../analysis/schema/records.ts";
import type { Loaded } from "../inputs/json_file.ts";

/** Help text, an example first. */
export const help = `Export a ledger's rows, errata applied, as Inspect AI eval logs (.eval, the
format of inspect_ai 0.3.260): one log per agent, one sample per row (id = the
task id, epoch = the attempt), so Inspect's viewer and its dataframes read the
results. A resolved row scores "C", a failed one "I" (scorer "ledgerbench");
an invalid row is a sample with an error, which Inspect leaves unscored.
Tokens become the sample's model usage only where the row records them (a
null stays absent, never 0). Each sample carries the conversation stored for
its row: an imported Inspect sample's messages and events as its log held
them, a Harbor trial's trajectory steps, a runner row's model calls from its
episode log; its metadata names the row (episode id, ledger line,
provenance, the errata that changed it).

Export the demo run for Inspect's viewer:
  deno task ledgerbench export inspect ledgers/demo/ledger.jsonl --out /tmp/demo-inspect
  inspect view --log-dir /tmp/demo-inspect

Round trip an imported log:
  deno task ledgerbench import inspect logs/run.eval --out imported/ledger.jsonl
  deno task ledgerbench export inspect imported/ledger.jsonl --out imported/inspect

USAGE:
  deno task ledgerbench export inspect LEDGER --out DIR [OPTIONS]

OPTIONS:
  --out DIR           Folder for the logs (created; <agent>.eval files of the
                      same names are replaced), required
  --errata FILE       Apply the corrections of an errata file first (each
                      corrected sample names its erratum)
  --plan FILE         Frozen plan: its tasks are the logs' dataset (one epoch
                      each; a rerun of an invalid attempt is a further epoch)
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

/** Runs `export`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, {
    required: ["FORMAT", "LEDGER"],
  });
  const [format, ledger] = positionals;
  if (format !== "inspect") throw new UsageError(`Unknown format "${format}": expected "inspect"`);
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
  const { rows, unread } = await exportRows(loaded, place);
  if (unread.length > 0) {
    io.stderr(fitLines(
      `warning: ${lineText(unread[0])}` +
        (unread.length > 1 ? ` (and ${plural(unread.length - 1, "more row")})` : "") +
        `: exported without their conversation\n`,
      width,
    ));
  }
  const denominator = denominatorOf(plan, taskList, loaded.rows);
  const logs = inspectLogs(rows, {
    ledger: { path: ledger, sha256: loaded.ledger.sha256 },
    errata: loaded.errata === null ? null : {
      path: loaded.errata.path,
      sha256: loaded.errata.sha256,
      applied: loaded.errata.applied.length,
    },
    denominator,
  });
  const paths = await writeInspectLogs(out, logs);
  emit(io, {
    json: values.json === true,
    width,
    payload: {
      command: "export",
      format: "inspect",
      ledger: loaded.ledger,
      errata: loaded.errata,
      plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
      task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })),
      out,
      logs: logs.map((log, i) => ({
        agent_id: log.agent_id,
        path: paths[i],
        samples: log.samples,
      })),
      rows_without_conversation_read: unread.length,
    },
    render: () =>
      `Exported ${plural(loaded.rows.length, "row")} of ${ledger} as ${
        plural(logs.length, "Inspect log")
      } in ${out}/ (dataset: ${
        plural(denominator.tasks.length, "task")
      } from the ${denominator.source}${
        denominator.file === null ? "" : ` ${denominator.file}`
      })\n` +
      logs.map((log, i) => `  ${paths[i]}: ${plural(log.samples, "sample")} (${log.agent_id})\n`)
        .join("") +
      loaded.left_out.map((task) =>
        `left out: ${plural(task.rows, "row")} of task ${lineText(task.task_id)} (${task.reason})\n`
      ).join(""),
  });
  return ExitCode.ok;
}

/**
 * The rows to export, in ledger order, each with its ledger line, the
 * errata that changed it and its conversation read from its stored log; and
 * why the logs that could not be read could not (those rows go without).
 */
async function exportRows(
  loaded: LoadedLedger,
  place: LogPlace,
): Promise<{ rows: ExportRow[]; unread: string[] }> {
  const lines = new Map<string, number>();
  loaded.recorded.rows.forEach((row, i) => lines.set(row.episode_id, loaded.recorded.row_lines[i]));
  const corrections = new Map<string, string[]>();
  for (const applied of loaded.errata?.applied ?? []) {
    corrections.set(applied.episode_id, [
      ...(corrections.get(applied.episode_id) ?? []),
      applied.erratum_id,
    ]);
  }
  const unread: string[] = [];
  const rows: ExportRow[] = [];
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
  rows: readonly Episode[],
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
    tasks: [...new Set(rows.map((row) => row.task_id))],
    attempts_per_task: null,
  };
}

/**
 * A row's conversation from its stored log: an Inspect sample's kept members
 * (given back as they were), else its messages (a runner row's calls, a
 * Harbor trajectory's steps), or none.
 */
function conversationOf(log: EpisodeLog | null): RowConversation {
  if (log === null) return null;
  if (log.imported?.format === "inspect") {
    return { kind: "kept", members: importedRecord(log.imported) };
  }
  return log.imported === undefined && log.bodies.length === 0
    ? null
    : { kind: "messages", messages: episodeMessages(log) };
}
