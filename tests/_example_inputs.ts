/**
 * The shipped example ledgers and the inputs their figures are built from,
 * shared by the golden-spec test and `tools/render_example_figures.ts` so the
 * two cannot drift apart. Reads files (ledgers, plan, price table, errata);
 * the figures themselves are built by the pure {@link ledgerFigures}.
 *
 * Private to `analysis/figures/`.
 *
 * @module
 */
import { applyErrata } from "../analysis/errata.ts";
import { loadErrata } from "../inputs/errata.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadPriceTable } from "../inputs/price_table.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { judgeCalibrationPlot } from "../analysis/figures/judge_calibration_plot.ts";
import {
  ledgerFigures,
  type LedgerFiguresOptions,
  type NamedFigure,
} from "../analysis/figures/ledger_figures.ts";

/** One example ledger and its figures. */
export interface ExampleFigures {
  /** The ledger's file name without extension, e.g. `sample_ledger`. */
  ledger: string;
  /** Path of the ledger file. */
  path: string;
  /** The options the figures were built with (plan, price table, pilot inputs). */
  options: LedgerFiguresOptions;
  /** The figures, in order. */
  figures: NamedFigure[];
}

/** The project's `ledgers/examples/` folder. */
export const EXAMPLES_DIR = new URL("../ledgers/examples/", import.meta.url);

async function exists(url: URL): Promise<boolean> {
  try {
    await Deno.stat(url);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Builds the figures of every shipped example ledger that is present:
 *
 * - `sample_ledger.jsonl` (seed 001's 8 rows): no plan, no price table, so the
 *   seeds' defaults (band 10%, 2000 rounds, seed 7, SPRT 0.6/0.4/0.1/0.1/60)
 *   and tokens as cost; SPRT path of both agents and the calibration at the
 *   defaults; pilot = its 8 episodes, 28 planned episodes (seed 000's 28
 *   tasks) against 300,000 tokens (the `ledgerbench plan` example).
 * - `synthetic_ledger.jsonl` with `synthetic_plan.json`, `price_table.json`
 *   and `synthetic_errata.jsonl` applied: the plan's settings; pilot = its
 *   scored episodes, tasks × agents planned episodes against seed 003's
 *   10,000,000-token placeholder budget.
 *
 * @returns one entry per example ledger present, in the order above
 */
export async function exampleFigures(): Promise<ExampleFigures[]> {
  const out: ExampleFigures[] = [];
  const sample = new URL("sample_ledger.jsonl", EXAMPLES_DIR);
  if (await exists(sample)) {
    const { rows } = await loadLedger(sample.pathname);
    const options: LedgerFiguresOptions = {
      sprtAgents: [...new Set(rows.map((r) => r.agent_id))].sort(),
      calibration: true,
      pilot: { tasks: 28, budget: 300_000 },
    };
    out.push({
      ledger: "sample_ledger",
      path: sample.pathname,
      options,
      figures: ledgerFigures(rows, options),
    });
  }
  const synthetic = new URL("synthetic_ledger.jsonl", EXAMPLES_DIR);
  if (await exists(synthetic)) {
    const ledger = await loadLedger(synthetic.pathname);
    let rows = ledger.rows;
    const errata = new URL("synthetic_errata.jsonl", EXAMPLES_DIR);
    if (await exists(errata)) rows = [...applyErrata(rows, await loadErrata(errata.pathname)).rows];
    const planUrl = new URL("synthetic_plan.json", EXAMPLES_DIR);
    const priceUrl = new URL("price_table.json", EXAMPLES_DIR);
    const plan = (await exists(planUrl)) ? (await loadPlan(planUrl.pathname)).value : undefined;
    const priceTable = (await exists(priceUrl))
      ? (await loadPriceTable(priceUrl.pathname)).value
      : undefined;
    const planned = plan === undefined
      ? rows.length
      : plan.tasks.length * Math.max(1, plan.agents.length);
    const options: LedgerFiguresOptions = {
      plan,
      priceTable,
      pilot: { tasks: planned, budget: 10_000_000 },
    };
    out.push({
      ledger: "synthetic_ledger",
      path: synthetic.pathname,
      options,
      figures: ledgerFigures(rows, options),
    });
  }
  // The shipped calibration of the example judge (issue 14): `judge calibrate`'s summary.
  const calibration = new URL("judge_calibration/summary.json", EXAMPLES_DIR);
  if (await exists(calibration)) {
    const summary = JSON.parse(await Deno.readTextFile(calibration));
    out.push({
      ledger: "judge_calibration",
      path: calibration.pathname,
      options: {},
      figures: [{
        name: "judge_calibration_plot",
        builder: "judgeCalibrationPlot",
        spec: judgeCalibrationPlot(summary.figures, { model: summary.judge.model }),
      }],
    });
  }
  return out;
}
