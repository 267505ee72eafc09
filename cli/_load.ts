/**
 * What a command reads, through the inputs layer: the ledger (strict, or
 * lenient with every problem listed) with the errata applied on top of it
 * and the rows of an uncalibrated LLM judge left out of formal scores
 * (`judgeLeftOut`, issue 14), the plan and the price table. Each comes back
 * with its path as given and its SHA-256, which the JSON outputs record.
 *
 * @module
 */
import type { AppliedErratum } from "../analysis/errata.ts";
import type { JudgeFigures, LeftOutTask } from "../analysis/judge/judge_rows.ts";
import type { LedgerProblem } from "../analysis/ledger_error.ts";
import { ledgerView } from "../analysis/ledger_view.ts";
import type { EpisodeRows, EpisodeTable } from "../analysis/episode_table.ts";
import { loadErrata } from "../inputs/errata.ts";
import type { Loaded } from "../inputs/json_file.ts";
import { loadLedgerTable } from "../inputs/ledger.ts";
import type { LedgerWithLines } from "../analysis/schema/ledger_file.ts";
import type { FileRef } from "./_output.ts";

export { loadPlan } from "../inputs/plan.ts";
export { chooseTaskList, type LoadedTaskList, NO_TASK_LIST } from "../inputs/task_list.ts";
export { loadPriceTable } from "../inputs/price_table.ts";

/**
 * A ledger with errata applied and the judged tasks of an uncalibrated judge
 * left out, and the record of what was read.
 */
export interface LoadedLedger {
  /**
   * The file, its lines, readable rows and chaining, as every JSON output
   * records it; `left_out` (the same list as {@link LoadedLedger.left_out})
   * only when a task was left out, so outputs of ledgers without judged
   * rows keep their bytes.
   */
  ledger: FileRef & { lines: number; rows: number; chained: boolean; left_out?: LeftOutTask[] };
  /** The errata file and every correction applied; null without `--errata`. */
  errata: (FileRef & { applied: AppliedErratum[]; voided_summaries: string[] }) | null;
  /**
   * Rows after errata that formal scores count: without the rows whose LLM
   * judge was not calibrated (`judgeLeftOut`; seed 000: the tasks that
   * depend on the judge are not scored for now). Every command's figures
   * are computed from these.
   */
  rows: EpisodeRows;
  /**
   * The tasks whose rows are left out of {@link LoadedLedger.rows}, with
   * their row counts and why, in the order of their first row; empty when
   * none. Planned tasks named here are neither planned nor missing in the
   * denominators (`assessLoaded`, cli/_standing.ts).
   */
  left_out: LeftOutTask[];
  /**
   * The judge's figures over every row after errata, left-out rows included
   * (`judgeFigures`); null when no row carries a judge record.
   */
  judge: JudgeFigures | null;
  /** The ledger as recorded (before errata), with each row's line: what a plan validates. */
  recorded: LedgerWithLines<EpisodeTable>;
  /** Problems found in lenient mode (ledger, then errata); empty when strict. */
  problems: LedgerProblem[];
  /**
   * What the command must say about the rows although it can go on: rows
   * that name several price tables (`priceTableMix`). Printed as
   * `warning: <file>: ...` lines by {@link finish} (cli/_output.ts).
   */
  warnings: string[];
}

/** A loaded JSON configuration file: its path as given, its hash and its value. */
export type LoadedConfig<T> = Loaded<T>;

/**
 * Reads a ledger and, when `errataPath` is given, its errata; then takes
 * the one view of their rows (`ledgerView`, the report's and the notebooks'
 * too): the errata applied, the rows of an uncalibrated judge left out of
 * the rows every command counts, the tasks left out and the judge's
 * figures over all rows (issue 14), and the price-table check over every
 * corrected row.
 *
 * @throws {LedgerError} on the first problem unless `lenient`; an unreadable
 *   or zero-byte file always throws
 */
export async function loadLedger(
  path: string,
  options: { errata?: string; lenient?: boolean } = {},
): Promise<LoadedLedger> {
  const lenient = options.lenient === true;
  const ledger = await loadLedgerTable(path, { lenient });
  const file = options.errata === undefined ? null : await loadErrata(options.errata, { lenient });
  // The one view of the rows (analysis/ledger_view.ts), the report's and the notebooks' too.
  const view = ledgerView(ledger.rows, file, { lenient });
  const application = view.errata;
  const errata: LoadedLedger["errata"] = file === null || application === null ? null : {
    path: options.errata!,
    sha256: file.sha256,
    applied: application.applied,
    voided_summaries: application.voided_summaries,
  };
  const problems = [
    ...ledger.problems,
    ...(file?.problems ?? []),
    ...(application?.problems ?? []),
  ];
  const leftOut = view.left_out;
  return {
    ledger: {
      path,
      sha256: ledger.sha256,
      lines: ledger.lines,
      rows: ledger.valid_rows,
      chained: ledger.chained,
      ...(leftOut.length === 0 ? {} : { left_out: leftOut }),
    },
    errata,
    rows: view.rows,
    left_out: leftOut,
    judge: view.judge,
    recorded: ledger,
    problems,
    warnings: view.price_mix === null ? [] : [`${path}: ${view.price_mix}`],
  };
}

/** The JSON record of a loaded config: `{path, sha256}` plus an id field, or null. */
export function configRef<T>(
  config: LoadedConfig<T> | null,
  id: (value: T) => Record<string, unknown>,
): Record<string, unknown> | null {
  if (config === null) return null;
  const note = (config as { note?: string }).note;
  return {
    path: config.path,
    sha256: config.sha256,
    ...id(config.value),
    ...(note === undefined ? {} : { note }),
  };
}
/** Where a parameter's value came from. */
export type ParamSource = "flag" | "plan" | "default";

/** A parameter's given values, by source: see {@link pick}. */
export interface GivenValues<T> {
  /** The flag's value, when the flag is given. */
  flag?: T;
  /** The plan's value, when a plan is given. */
  plan?: T;
}

/**
 * A parameter's value: the flag when given, else the plan's value when a plan
 * is given, else the default (issue 2: the plan supplies the defaults).
 *
 * @param given the `flag`'s and the `plan`'s values, each possibly undefined
 * @param fallback the default
 * @returns the value and where it came from
 */
export function pick<T>(given: GivenValues<T>, fallback: T): { value: T; source: ParamSource } {
  const { flag, plan } = given;
  if (flag !== undefined) return { value: flag, source: "flag" };
  if (plan !== undefined) return { value: plan, source: "plan" };
  return { value: fallback, source: "default" };
}
