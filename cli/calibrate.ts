/**
 * `ledgerbench calibrate`: the operating characteristic of seed 002's
 * truncated SPRT over a grid of true pass rates, exact (dynamic programming)
 * beside a seeded Monte Carlo simulation, with the branches that can never
 * occur.
 *
 * @module
 */
import { DEFAULT_CALIBRATION, DEFAULT_SPRT } from "../analysis/defaults.ts";
import {
  calibrateSprt,
  NORMAL_APPROXIMATION_MIN_EXPECTED,
  SEED_002_RATES,
  type SprtCalibration,
  type SprtCalibrationExactP,
} from "../analysis/sprt/calibrate_sprt.ts";
import {
  numberListOption,
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  seedOption,
  stringOption,
} from "./_args.ts";
import { ExitCode, type Io, UsageError } from "./_command.ts";
import { emit, fileLine, wrap } from "./_output.ts";
import { fixed, integer, percent, signedFixed } from "../report/format.ts";
import {
  fitLines,
  fitPairs,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_OPTION,
  widthHelpAt,
} from "./_table_layout.ts";
import {
  describeSprtParams,
  resolveSprtParams,
  SPRT_OPTIONS,
  SPRT_OPTIONS_HELP,
} from "./_sprt_flags.ts";
import { loadPlan } from "./_load.ts";

/** `--rates`: true pass rates, each 0..1. */
const RATES: NumberOption = { name: "rates", range: { min: 0, max: 1 } };

/**
 * `--trials`: Monte Carlo trials per rate, 2..1000000 (a trial walks up to
 * n_cap steps; 10^12 trials never finished, issue 10).
 */
const TRIALS: NumberOption = { name: "trials", range: { min: 2, max: 1_000_000, integer: true } };

/** Most true rates in one run: a grid of 0, 0.01, ..., 1. */
const MAX_RATES = 101;

/**
 * Most simulated steps one run may take: trials x n_cap x rates bounds the
 * Monte Carlo's work (a walk that never crosses a boundary runs n_cap
 * steps); 10^9 steps take about 30 s here.
 */
const MAX_SIMULATED_STEPS = 1e9;

/** `--tolerance-z`: agreement threshold in standard errors, above 0, at most 100. */
const TOLERANCE_Z: NumberOption = { name: "tolerance-z", range: { above: 0, max: 100 } };

/** Help text, an example first. */
export const help = `Calibrate seed 002's truncated SPRT: for each true pass rate, the exact
probability of each final decision (adopt, drop, cap-adopt, cap-drop), the
expected number of valid results and the chance of exhausting the budget,
beside a seeded Monte Carlo estimate and their agreement in standard errors.
Warns about decisions that can never occur.

With seed 002's defaults (${describeSprtParams(DEFAULT_SPRT)};
rates ${SEED_002_RATES.join(", ")}; ${DEFAULT_CALIBRATION.trials} trials;
seed ${DEFAULT_CALIBRATION.seed}):
  deno task ledgerbench calibrate

With a plan's pre-registered parameters, as JSON:
  deno task ledgerbench calibrate --plan plan.json --json

USAGE:
  deno task ledgerbench calibrate [--plan FILE | SPRT OPTIONS] [OPTIONS]

OPTIONS:
  --plan FILE      Take the SPRT parameters from the plan's "stopping" rule
${SPRT_OPTIONS_HELP}
  --rates LIST     True pass rates, comma-separated, each ${rangeText(RATES.range)},
                   at most ${MAX_RATES} of them (default ${SEED_002_RATES.join(",")})
  --trials N       Monte Carlo trials per rate, ${rangeText(TRIALS.range)}
                   (default ${DEFAULT_CALIBRATION.trials}); trials x n_cap x rates may not
                   exceed ${MAX_SIMULATED_STEPS.toExponential()}
  --seed S         Seed of the simulation: an integer (007 is 7) or any other
                   text (default ${DEFAULT_CALIBRATION.seed}); rate p uses "<S>/p_true=<p>"
  --tolerance-z Z  |Monte Carlo - exact| in standard errors counted as agreement,
                   ${
  rangeText(TOLERANCE_Z.range)
} (default ${DEFAULT_CALIBRATION.toleranceZ}); where an expected
                   count is below ${NORMAL_APPROXIMATION_MIN_EXPECTED}, an exact binomial test at the same level
${widthHelpAt(19)}
  --json           Canonical JSON instead of tables
  -h, --help       This help
`;

const OPTIONS = {
  plan: { type: "string" },
  ...SPRT_OPTIONS,
  rates: { type: "string" },
  trials: { type: "string" },
  seed: { type: "string" },
  "tolerance-z": { type: "string" },
  ...WIDTH_OPTION,
} as const;

/**
 * Refuses a run whose work is out of bounds: more than {@link MAX_RATES}
 * rates, or more than {@link MAX_SIMULATED_STEPS} simulated steps.
 *
 * @throws {UsageError} naming the options to lower
 */
function checkWork(rates: number, trials: number, nCap: number): void {
  if (rates > MAX_RATES) {
    throw new UsageError(`Option "--rates" must list at most ${MAX_RATES} rates: got ${rates}`);
  }
  const steps = rates * trials * nCap;
  if (steps > MAX_SIMULATED_STEPS) {
    throw new UsageError(
      `Options "--trials" (${trials}) x n_cap (${nCap}) x rates (${rates}) allow ` +
        `${steps.toExponential(2)} simulated steps, ` +
        `more than ${MAX_SIMULATED_STEPS.toExponential()}: ` +
        `lower --trials, --n-cap or the number of --rates`,
    );
  }
}

/** Three significant digits (exponent form below 0.001) for the exact binomial tests. */
const p3 = (x: number) =>
  x === 0 || x === 1 ? String(x) : x < 1e-3 ? x.toExponential(2) : x.toPrecision(3);

/** The probability quantities, as the exact-test table names them. */
const EXACT_P_NAMES: ReadonlyArray<readonly [keyof SprtCalibrationExactP, string]> = [
  ["adopt", "adopt"],
  ["drop", "drop"],
  ["cap-adopt", "cap-adopt"],
  ["cap-drop", "cap-drop"],
  ["budget_exhausted", "N = cap"],
];

/**
 * The exact binomial tests worth a line: those of a probability strictly
 * between 0 and 1, or of a count the exact probability 0 or 1 rules out
 * (an impossible outcome seen, or a certain one missed).
 */
function exactTestRows(calibration: SprtCalibration): string[][] {
  const lines: string[][] = [];
  for (const row of calibration.rows) {
    const { exact, monte_carlo: mc } = row;
    for (const [key, name] of EXACT_P_NAMES) {
      const p = row.exact_p[key];
      if (p === null) continue;
      const probability = key === "budget_exhausted"
        ? exact.budget_exhausted
        : exact.decisions[key];
      const hits = mc.counts[key];
      if ((probability === 0 || probability === 1) && hits === probability * mc.trials) continue;
      lines.push([
        fixed(row.p_true, 2),
        name,
        integer(hits),
        p3(probability),
        p3(probability * mc.trials),
        p3(p),
      ]);
    }
  }
  return lines;
}

/** The agreement sentence: every deciding |z| within the tolerance, every exact p at the level. */
function agreementLine(
  calibration: SprtCalibration,
  exactShown: boolean,
  wrapAt: number,
): string {
  const { tolerance_z: toleranceZ, max_abs_z: maxZ, min_exact_p: minP } = calibration;
  const level = p3(calibration.exact_p_level);
  if (calibration.agrees) {
    return wrap(
      `Exact and Monte Carlo agree: every |z| <= ${toleranceZ} (largest ${fixed(maxZ, 2)})` +
        (exactShown && minP !== null ? `; every exact p >= ${level} (smallest ${p3(minP)})` : ""),
      wrapAt,
      "  ",
    );
  }
  const reasons: string[] = [];
  if (maxZ === null || maxZ > toleranceZ) {
    reasons.push(`largest |z| ${maxZ === null ? "inf" : fixed(maxZ, 2)} > ${toleranceZ}`);
  }
  if (minP !== null && minP < calibration.exact_p_level) {
    reasons.push(`smallest exact p ${p3(minP)} < ${level}`);
  }
  return wrap(`Exact and Monte Carlo DISAGREE: ${reasons.join("; ")}`, wrapAt, "  ");
}

/** Runs `calibrate`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const width = outputWidth(values);
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const { params, source } = resolveSprtParams(values, plan);
  if (plan !== null && source !== "plan") {
    throw new UsageError(
      `Plan "${plan.path}" has stopping rule "${plan.value.stopping.kind}", not "sprt": ` +
        `give the SPRT parameters as options instead`,
    );
  }
  const rates = numberListOption(values, RATES) ?? [...SEED_002_RATES];
  const trials = numberOption(values, TRIALS) ?? DEFAULT_CALIBRATION.trials;
  checkWork(rates.length, trials, params.n_cap);
  const calibration = calibrateSprt(params, {
    rates,
    trials,
    seed: seedOption(values) ?? DEFAULT_CALIBRATION.seed,
    toleranceZ: numberOption(values, TOLERANCE_Z) ?? DEFAULT_CALIBRATION.toleranceZ,
  });
  const { seed, tolerance_z: toleranceZ } = calibration;
  const payload = {
    command: "calibrate",
    plan: plan === null
      ? null
      : { path: plan.path, sha256: plan.sha256, plan_id: plan.value.plan_id },
    parameters: { sprt: params, source, rates, trials, seed, tolerance_z: toleranceZ },
    calibration,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = "SPRT calibration (seed 002): exact dynamic programming beside Monte Carlo\n\n";
      text += fileLine("plan", plan);
      const b = calibration.boundaries;
      const context = new TableContext(width);
      // prose folds at 78 columns, as before, or at the width when it is narrower
      const wrapAt = Math.min(78, width - 2);
      text += fitPairs([
        ["parameters", `${describeSprtParams(params)} (${source})`],
        [
          "boundaries",
          `adopt at LLR >= ${b.upper.toFixed(4)}, drop at LLR <= ${b.lower.toFixed(4)}`,
        ],
        ["llr steps", `pass ${signedFixed(b.llr_per_pass)}, fail ${signedFixed(b.llr_per_fail)}`],
        ["monte carlo", `${integer(trials)} trials per rate, seed ${seed} (seedrandom alea)`],
      ], width);
      text += "\nExact:\n";
      text += fitTable(
        context,
        [
          { header: "p_true", align: "right", key: true },
          { header: "adopt", align: "right", priority: 0 },
          { header: "drop", align: "right", priority: 0 },
          { header: "cap-adopt", align: "right", priority: 2 },
          { header: "cap-drop", align: "right", priority: 2 },
          { header: "final adopt", align: "right", priority: 1 },
          { header: "P(N = cap)", align: "right", priority: 1 },
          { header: "E[N]", align: "right", priority: 0 },
          { header: "sd(N)", align: "right", priority: 1 },
        ],
        calibration.rows.map(({ p_true, exact }) => [
          fixed(p_true, 2),
          percent(exact.decisions.adopt, 2),
          percent(exact.decisions.drop, 2),
          percent(exact.decisions["cap-adopt"], 2),
          percent(exact.decisions["cap-drop"], 2),
          percent(exact.final_adopt, 2),
          percent(exact.budget_exhausted, 2),
          fixed(exact.expected_sample_size, 2),
          fixed(exact.sample_size_sd, 2),
        ]),
      );
      text += "\nMonte Carlo (± one standard error):\n";
      text += fitTable(
        context,
        [
          { header: "p_true", align: "right", key: true },
          { header: "adopt", align: "right", priority: 0 },
          { header: "drop", align: "right", priority: 0 },
          { header: "cap-adopt", align: "right", priority: 2 },
          { header: "cap-drop", align: "right", priority: 2 },
          { header: "P(N = cap)", align: "right", priority: 1 },
          { header: "mean N", align: "right", priority: 1 },
          { header: "max |z|", align: "right", priority: 0 },
        ],
        calibration.rows.map(({ p_true, monte_carlo: mc, max_abs_z }) => [
          fixed(p_true, 2),
          `${percent(mc.decisions.adopt, 2)} ± ${percent(mc.se.adopt, 2)}`,
          `${percent(mc.decisions.drop, 2)} ± ${percent(mc.se.drop, 2)}`,
          `${percent(mc.decisions["cap-adopt"], 2)} ± ${percent(mc.se["cap-adopt"], 2)}`,
          `${percent(mc.decisions["cap-drop"], 2)} ± ${percent(mc.se["cap-drop"], 2)}`,
          `${percent(mc.budget_exhausted, 2)} ± ${percent(mc.se.budget_exhausted, 2)}`,
          `${fixed(mc.expected_sample_size, 2)} ± ${fixed(mc.se.expected_sample_size, 2)}`,
          max_abs_z === null ? "inf" : fixed(max_abs_z, 2),
        ]),
      );
      const exactRows = exactTestRows(calibration);
      if (exactRows.length > 0) {
        text += "\n" + wrap(
          `Exact binomial tests where an expected count is below ` +
            `${NORMAL_APPROXIMATION_MIN_EXPECTED} (|z| not used; agreement at p >= ` +
            `${p3(calibration.exact_p_level)}):`,
          wrapAt,
          "",
        );
        text += fitTable(
          context,
          [
            { header: "p_true", align: "right", key: true },
            { header: "outcome", align: "left", key: true },
            { header: "hits", align: "right", priority: 0 },
            { header: "exact P", align: "right", priority: 1 },
            { header: "expected", align: "right", priority: 1 },
            { header: "p", align: "right", priority: 0 },
          ],
          exactRows,
        );
      }
      text += "\n";
      text += agreementLine(calibration, exactRows.length > 0, wrapAt);
      for (const warning of calibration.warnings) {
        text += wrap(`warning: ${warning}`, wrapAt, "  ");
      }
      return fitLines(text, width);
    },
  });
  return ExitCode.ok;
}
