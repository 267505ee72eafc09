/**
 * `ledgerbench judge`: the LLM judge of a suite's judged tasks (issue 14).
 * `calibrate` (cli/judge_calibrate.ts): the judge against a golden set of
 * human labels, which `freeze` then records; `pairwise`
 * (cli/judge_pairwise.ts): two agents' answers compared task by task, twice
 * with the positions swapped.
 *
 * @module
 */
import { widthHelpAt } from "./_table_layout.ts";
import { type Io, runSubcommand, type Subcommands } from "./_command.ts";
import { JUDGE_UPSTREAM_HELP } from "./_judge_upstream.ts";
import { runCalibrate } from "./judge_calibrate.ts";
import { runPairwise } from "./judge_pairwise.ts";

/** Help text, an example first. */
export const help = `The LLM judge of a suite's judged tasks (issue 14).

calibrate: the judge against human labels
(seed 000 §06-07): agreement with the humans and Cohen's kappa with 95%
intervals, swap consistency of pairwise judgments (a pair with a judge fault
counts as inconsistent), and the gates (80% and 90% by default), and the
adversarial probes that ship with the tool (issue 21: an answer that
instructs the judge, a keyword-stuffed non-answer, a forged end
marker, an empty answer; each judged task gets all four, and the judge passes
only when each gets a usable judgment below the task's pass threshold).
"freeze --judge" records the newest result for exactly this judge and suite;
until it passed, judged tasks are not counted in formal scores.

Calibrate the judge of judge.json on the shipped golden set, with a scripted judge:
  deno task ledgerbench judge calibrate --suite suites/judge_example \\
    --judge suites/judge_example.judge.json --golden suites/judge_example.golden.jsonl \\
    --judge-provider-script suites/judge_example.judge_script.json

Recompute a stored calibration from its judgments, with zero model calls:
  deno task ledgerbench judge calibrate --suite suites/judge_example \\
    --golden suites/judge_example.golden.jsonl --replay suites/judge_example.judge/<time>

pairwise: two agents' answers to each judged task of a run, compared by the
plan's judge twice with the positions swapped; a verdict counts only when both
runs agree (a tie otherwise), and the position-consistency rate is reported:
  deno task ledgerbench judge pairwise --plan plan.json --suite my-suite \
    --ledger runs/r1/ledger.jsonl --agents codex,claude --out runs/r1/pairwise.json \
    --judge-provider-script judge_script.json
  deno task ledgerbench judge pairwise --from runs/r1/pairwise.json

USAGE:
  deno task ledgerbench judge calibrate --suite DIR --judge FILE --golden FILE JUDGE-UPSTREAM
  deno task ledgerbench judge calibrate --suite DIR --golden FILE --replay CALIBRATION-DIR
  deno task ledgerbench judge pairwise --plan PLAN --suite DIR --ledger FILE --agents A,B \
    --out FILE JUDGE-UPSTREAM
  deno task ledgerbench judge pairwise --from FILE

OPTIONS (calibrate):
  --suite DIR          The suite whose judged tasks' rubrics and references the
                       judge is shown
  --judge FILE         The judge configuration (as for "freeze --judge")
  --golden FILE        The golden set: JSONL, one human label per line
                       ({"kind": "score", "item_id", "task_id", "label_version",
                       "seen_model_output", "answer", "human_total"} or
                       {"kind": "pairwise", ..., "answer_a", "answer_b",
                       "human_winner": "A"|"B"|"tie"}); a revision appends a
                       line with a higher label_version. When a latest label was
                       written after seeing model output, both figures are
                       reported and the gate holds the blind labels
  --replay DIR         Recompute DIR's summary.json from its judgments.jsonl and
                       probes.jsonl and compare the bytes (exit 0 only when
                       identical)

The calibration (summary.json, judgments.jsonl, probes.jsonl) goes to
SUITE.judge/<time>/.

OPTIONS (pairwise):
  --plan FILE          The frozen plan of the run (its judge, its task order)
  --suite DIR          The suite it ran on
  --ledger FILE        The run's ledger; each agent's one scored attempt per
                       judged task is compared (no attempt chosen among several)
  --artifacts DIR      The artifact store (default: artifacts/ beside the ledger)
  --agents A,B         The two agents; A's answer is shown first in the first run
  --out FILE           Where the record goes (JSON: every raw judgment, the
                       judge's spend and evidence, the summary); refused if it exists
  --from FILE          Recompute a record's summary with zero model calls
                       (exit 0 only when it equals the recorded one)

COMMON:
${JUDGE_UPSTREAM_HELP}
${widthHelpAt(23)}
  --json               Canonical JSON instead of text
  -h, --help           This help

EXIT STATUS:
  0 the judge passed its gates, the comparison was recorded, or the replay is
  identical; 1 usage error; 2 bad input (suite, plan, ledger, judge file,
  golden set: file, line and field named); 3 the judge failed a gate, its
  calls lacked evidence, or the replay differs
`;

/** The subcommands, by the first argument. */
const SUBCOMMANDS: Subcommands = {
  calibrate: runCalibrate,
  pairwise: runPairwise,
};

/** Runs `judge`; see {@link help}. */
export function run(args: string[], io: Io): Promise<number> {
  return runSubcommand(SUBCOMMANDS, args, io);
}
