/**
 * Opening a ledger for exploration: the ledger, and the plan, errata, price
 * table, task list and artifact store that go with it, found beside it or
 * given, then the one view and the one assessment every command and the
 * report make. What each number means is decided below this module; this
 * module only gathers the inputs and says where each came from.
 *
 * @module
 */
import { assessView, type ClaimAssessment } from "../analysis/agent_standing.ts";
import { type LedgerView, ledgerView } from "../analysis/ledger_view.ts";
import type { Episode } from "../analysis/schema/records.ts";
import type { LedgerWithLines } from "../analysis/schema/ledger_file.ts";
import { pathIs } from "../inputs/input_file.ts";
import { chooseTaskList } from "../inputs/task_list.ts";
import { buildReport } from "../report/build_report.ts";
import { loadReportInputs } from "../report/load_report_inputs.ts";
import type { Report, ReportInputs } from "../report/report_model.ts";
import type { EpisodeLog } from "../analysis/schema/episode_log.ts";
import { openEpisodeLog } from "../runner/episode_log_store.ts";

/**
 * Where an input of {@link openLedger} came from: `given` (an option named
 * it), `beside_ledger` (found under its conventional name in the ledger's
 * directory), `declined` (an option of `null`) or `none` (not given, none
 * found).
 */
export type InputSource = "given" | "beside_ledger" | "declined" | "none";

/** One input as {@link openLedger} chose it. */
export interface ChosenInput {
  /** The path read, as given or found; null when none was read. */
  path: string | null;
  source: InputSource;
}

/**
 * The files {@link openLedger} reads with the ledger. A path names the
 * file; `null` declines it; absent looks for it beside the ledger: for a
 * ledger named `ledger.jsonl` (the directory `run` writes), under the names
 * `run` writes there (`plan.json`, `errata.jsonl`, `price_table.json`,
 * `artifacts/`); for any ledger, the task list under the name `import`
 * writes (`<ledger>.tasks.json`, used only without a plan, whose tasks are
 * then the denominator). A ledger of another name shares its directory with
 * files that need not be its own, so nothing else is looked for beside it.
 */
export interface OpenLedgerOptions {
  plan?: string | null;
  errata?: string | null;
  priceTable?: string | null;
  tasks?: string | null;
  /** The artifact store holding the episode logs (model calls, transcripts). */
  artifacts?: string | null;
}

/** A ledger opened with its inputs: what every frame and figure of the library reads. */
export interface OpenedLedger {
  /** The ledger's path, as given. */
  path: string;
  /** The files read, loaded (the report's inputs), the ledger's rows as an array. */
  inputs: ReportInputs & { ledger: LedgerWithLines };
  /** Where each input came from. */
  sources: Record<"plan" | "errata" | "price_table" | "task_list" | "artifacts", ChosenInput>;
  /**
   * The rows as recorded, errata applied, and the rows formal scores count
   * (`ledgerView`), as arrays: a notebook filters, maps and indexes them.
   */
  view: LedgerView & { corrected: Episode[]; rows: Episode[] };
  /** The rows formal scores count: errata applied, an uncalibrated judge's rows left out. */
  rows: Episode[];
  /** What each agent may claim (`assessView`: censoring, invalid, missing, validation). */
  assessment: ClaimAssessment;
  /**
   * The report of these inputs (`buildReport` with its defaults): the
   * leaderboard, intervals, comparisons, claims and figure specs that
   * `ledgerbench report` writes. Computed on first use, then kept.
   */
  report(): Report;
  /**
   * The episode log a row names (`episode_log_digest`) in the artifact
   * store; null when the row names none or there is no store.
   *
   * @throws {Error} when the store does not hold the log or its bytes no
   *   longer match the digest (`openEpisodeLog`)
   */
  episodeLog(row: Episode): Promise<EpisodeLog | null>;
}

const BESIDE = { plan: "plan.json", errata: "errata.jsonl", price_table: "price_table.json" };

function directoryOf(ledger: string): string {
  return ledger.includes("/") ? ledger.slice(0, ledger.lastIndexOf("/")) : ".";
}

/** The file name of a ledger `run` writes, beside which its plan, errata, prices and artifacts lie. */
const RUN_LEDGER = "ledger.jsonl";

async function choose(
  given: string | null | undefined,
  beside: string | null,
  kind: "file" | "directory",
): Promise<ChosenInput> {
  if (given === null) return { path: null, source: "declined" };
  if (given !== undefined) return { path: given, source: "given" };
  return beside !== null && await pathIs(beside, kind)
    ? { path: beside, source: "beside_ledger" }
    : { path: null, source: "none" };
}

/**
 * Opens a ledger with what goes with it, as a researcher holds it in a
 * notebook: the plan, errata, price table and artifact store given or found
 * beside a ledger `run` wrote ({@link OpenLedgerOptions}), the task list as every
 * command chooses it (`chooseTaskList`: given, else beside the ledger when
 * there is no plan), each loaded strictly through the inputs layer (a bad
 * line is a `LedgerError` naming file, line and field). Then the one view
 * (seed 000: errata applied on top of the append-only rows, which stay as
 * recorded) and the one assessment (seed 003: what each agent may claim)
 * that the CLI and the report make, so a notebook states nothing they
 * would not. Cost: one streaming pass per file; the rows are held in memory.
 *
 * @param ledger the ledger's path
 * @param options inputs given or declined (`null`); absent ones are looked for beside the ledger
 * @returns the opened ledger
 * @throws {LedgerError} when a file cannot be read or does not fit its schema
 * @example
 * ```ts
 * import { openLedger } from "./open_ledger.ts";
 * const path = new URL("../ledgers/demo/ledger.jsonl", import.meta.url).pathname;
 * const run = await openLedger(path);
 * // The demo's plan, errata and price table sit beside its ledger.
 * if (run.sources.plan.source !== "beside_ledger" || run.rows.length !== 14) throw new Error();
 * ```
 */
export async function openLedger(
  ledger: string,
  options: OpenLedgerOptions = {},
): Promise<OpenedLedger> {
  const dir = directoryOf(ledger);
  const ofRun = ledger.split("/").at(-1) === RUN_LEDGER;
  const beside = (name: string) => ofRun ? `${dir}/${name}` : null;
  const plan = await choose(options.plan, beside(BESIDE.plan), "file");
  const errata = await choose(options.errata, beside(BESIDE.errata), "file");
  const priceTable = await choose(options.priceTable, beside(BESIDE.price_table), "file");
  const artifacts = await choose(options.artifacts, beside("artifacts"), "directory");
  const taskList = await chooseTaskList(
    ledger,
    options.tasks === null ? "none" : options.tasks ?? undefined,
    plan.path !== null,
  );
  const loaded = await loadReportInputs({
    ledger,
    plan: plan.path,
    errata: errata.path,
    priceTable: priceTable.path,
  });
  // The commands hold the rows as columns; a notebook holds them as arrays, to filter,
  // map and index.
  const inputs = {
    ...loaded,
    ledger: { ...loaded.ledger, rows: [...loaded.ledger.rows] },
    taskList: taskList.list,
    taskListSource: taskList.source,
  };
  const shared = ledgerView(inputs.ledger.rows, inputs.errata ?? null);
  const view = { ...shared, corrected: [...shared.corrected], rows: [...shared.rows] };
  const assessment = assessView(view, inputs.ledger, {
    plan: inputs.plan?.value ?? null,
    taskList: taskList.list?.value ?? null,
  });
  let report: Report | null = null;
  const store = artifacts.path;
  return {
    path: ledger,
    inputs,
    sources: {
      plan,
      errata,
      price_table: priceTable,
      task_list: {
        path: taskList.list?.path ?? null,
        source: taskList.source === "flag"
          ? "given"
          : taskList.source === "beside_ledger"
          ? "beside_ledger"
          : taskList.source,
      },
      artifacts,
    },
    view,
    rows: view.rows,
    assessment,
    report: () => report ??= buildReport(inputs),
    episodeLog: async (row) => {
      if (store === null || row.episode_log_digest == null) return null;
      return await openEpisodeLog(store, row.episode_log_digest);
    },
  };
}
