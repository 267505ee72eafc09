/**
 * `ledgerbench plan`: seed 003's pilot estimator. Projects the spend of a
 * planned matrix from a pilot (pilot max or mean × episodes × safety) and
 * refuses, with exit status 3, a plan that cannot finish inside its budget.
 *
 * @module
 */
import { fitPairs, outputWidth, WIDTH_OPTION, widthHelpAt } from "./_table_layout.ts";
import { pilotEstimate } from "../analysis/pilot_estimate.ts";
import { episodeTokens, isScored } from "../analysis/classify_episode.ts";
import {
  choiceOption,
  numberListOption,
  type NumberOption,
  numberOption,
  parseCommandArgs,
  rangeText,
  stringOption,
} from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import { loadLedger } from "./_load.ts";
import { emit, fileLine } from "./_output.ts";
import { DEFAULT_PILOT_SAFETY } from "../analysis/defaults.ts";

/** Tokens are safe integers in the ledger; spend and budget are kept in that range. */
const TOKENS = { min: 0, max: Number.MAX_SAFE_INTEGER };
/** `--spend`: pilot tokens per episode. */
const SPEND: NumberOption = { name: "spend", range: TOKENS };
/** `--budget`: the budget in tokens. */
const BUDGET: NumberOption = { name: "budget", range: TOKENS };
/** `--tasks`: planned episodes, 1..1000000000. */
const TASKS: NumberOption = { name: "tasks", range: { min: 1, max: 1e9, integer: true } };
/** Seed 003's safety factor, the default of `--safety`. */
/** `--safety`: the multiplier on the projection, above 0, at most 100. */
const SAFETY: NumberOption = { name: "safety", range: { above: 0, max: 100 } };

/** Help text, an example first. */
export const help = `Project the spend of a planned matrix from a pilot (seed 003) and refuse a
plan that cannot finish inside its budget: projected = unit x episodes x safety,
where unit is the pilot's maximum spend per episode (default: agent tasks have
a long right tail) or its mean. A plan fits when projected <= budget. When it
does not, the answer is to shrink the task set or the per-task cap, not to run
and truncate quietly.

Four pilot episodes, 28 planned episodes, a budget of 300,000 tokens (refused):
  deno task ledgerbench plan --spend 2700,7300,9500,3800 --tasks 28 --budget 300000

From a pilot ledger (tokens of its scored episodes), the mean, as JSON:
  deno task ledgerbench plan --pilot pilot.jsonl --tasks 240 --budget 10000000 \\
    --central mean --json

USAGE:
  deno task ledgerbench plan (--pilot FILE | --spend LIST) --tasks N --budget B [OPTIONS]

OPTIONS:
  --pilot FILE      A pilot ledger: the spend of each scored episode is its
                    prompt + completion tokens (invalid episodes are not usable
                    traces and are left out, and counted)
  --spend LIST      Pilot spend per episode, comma-separated, each
                    ${rangeText(SPEND.range)}
  --tasks N         Episodes the matrix will run (tasks x agents x attempts),
                    ${rangeText(TASKS.range)}
  --budget B        Budget in the same unit (tokens), ${rangeText(BUDGET.range)}
  --central C       "max" (default) or "mean"
  --safety X        Safety factor, ${rangeText(SAFETY.range)} (default ${DEFAULT_PILOT_SAFETY})
${widthHelpAt(20)}
  --json            Canonical JSON instead of text
  -h, --help        This help

EXIT STATUS:
  0 the plan fits; 3 the projected spend exceeds the budget (refused);
  2 the pilot ledger cannot be read or holds no usable episode
`;

const OPTIONS = {
  pilot: { type: "string" },
  spend: { type: "string" },
  tasks: { type: "string" },
  budget: { type: "string" },
  central: { type: "string" },
  safety: { type: "string" },
  ...WIDTH_OPTION,
} as const;

/**
 * Tokens with thousands separators and at most one decimal (seed 003 rounds
 * to 0.1); never "-0": a non-zero value that rounds to zero keeps two
 * significant digits (a plan refused by 0.04 tokens shows "-0.04").
 */
function tokens(x: number): string {
  const text = x.toLocaleString("en-US", { maximumFractionDigits: 1 });
  if (text !== "-0" && text !== "0") return text;
  return x === 0 ? "0" : x.toLocaleString("en-US", { maximumSignificantDigits: 2 });
}

/** Runs `plan`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, OPTIONS);
  const width = outputWidth(values);
  const pilotPath = stringOption(values, "pilot");
  const spendList = numberListOption(values, SPEND);
  if ((pilotPath === undefined) === (spendList === undefined)) {
    throw new UsageError('Give exactly one of "--pilot" and "--spend"');
  }
  const tasks = numberOption(values, TASKS);
  if (tasks === undefined) throw new UsageError('Missing option: "--tasks"');
  const budget = numberOption(values, BUDGET);
  if (budget === undefined) throw new UsageError('Missing option: "--budget"');
  const central = choiceOption(values, {
    name: "central",
    choices: ["max", "mean"] as const,
    fallback: "max",
  });

  let spend: number[];
  let pilot: Record<string, unknown>;
  if (pilotPath !== undefined) {
    const loaded = await loadLedger(pilotPath);
    const usable = Iterator.from(loaded.rows).filter(isScored).toArray();
    const unrecorded = usable.find((row) => episodeTokens(row) === null);
    if (unrecorded !== undefined) {
      throw new InputError(
        `${pilotPath}: episode "${displayId(unrecorded.episode_id)}" did not record its tokens ` +
          "(an imported row): a budget cannot be projected from spend that was not measured",
      );
    }
    spend = usable.map((row) => episodeTokens(row)!);
    pilot = {
      source: "ledger",
      ledger: loaded.ledger,
      episodes: loaded.rows.length,
      invalid_excluded: loaded.rows.length - usable.length,
      spend,
    };
    if (usable.length === 0) {
      throw new InputError(
        `${pilotPath}: the pilot produced no usable traces: ` +
          `${loaded.rows.length} episodes, none scored`,
      );
    }
  } else {
    spend = spendList as number[];
    pilot = { source: "spend", spend };
  }
  const estimate = pilotEstimate(spend, { tasks, budget }, {
    central,
    safety: numberOption(values, SAFETY) ?? DEFAULT_PILOT_SAFETY,
  });
  const { safety } = estimate;
  const payload = {
    command: "plan",
    parameters: { tasks, budget, central, safety },
    pilot,
    estimate,
    verdict: estimate.fits ? "fits" : "refused",
  };
  emit(io, {
    json: values.json === true,
    width,
    payload,
    render: () => {
      let text = "Pilot estimate (seed 003)\n\n";
      if (pilotPath !== undefined) {
        const ledger = pilot.ledger as { path: string; sha256: string };
        text += fileLine("pilot", ledger);
        text += `pilot episodes: ${pilot.episodes} (${pilot.invalid_excluded} invalid left out)\n`;
      } else {
        text += `pilot: ${spend.length} episodes from --spend\n`;
      }
      text += "\n" + fitPairs([
        ["unit", `${tokens(estimate.unit_tokens)} tokens (pilot ${central})`],
        [
          "projected",
          `${tokens(estimate.unit_tokens)} x ${tasks} x ${safety} = ` +
          `${tokens(estimate.projected_tokens)} tokens`,
        ],
        ["budget", `${tokens(budget)} tokens`],
        ["headroom", `${tokens(estimate.headroom)} tokens`],
      ], width);
      text += estimate.fits
        ? "\nverdict: the plan fits the budget\n"
        : "\nverdict: REFUSED: the projected spend exceeds the budget; shrink the task set or " +
          "the per-task cap rather than run and truncate\n";
      return text;
    },
  });
  return estimate.fits ? ExitCode.ok : ExitCode.refused;
}
