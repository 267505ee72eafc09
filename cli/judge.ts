/**
 * `ledgerbench judge`: the LLM judge of a suite's judged tasks (issue 14).
 * `calibrate`: the judge against a golden set of human labels, which
 * `freeze` then records (runner/judge/calibrate_judge.ts); `pairwise`: two
 * agents' answers compared task by task, twice with the positions swapped
 * (runner/judge/judge_pairs.ts).
 *
 * @module
 */
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { loadGoldenSet } from "../inputs/golden_set.ts";
import { loadJudgeSettings } from "../inputs/judge_settings.ts";
import { loadSuite } from "../inputs/suite.ts";
import { calibrateJudge, replayCalibration } from "../runner/judge/calibrate_judge.ts";
import type { JudgeCalibrationFile } from "../runner/judge/judge_calibration_store.ts";
import type { JudgeCalibration } from "../analysis/judge/judge_calibration.ts";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { type PairwiseSummary, pairwiseSummary } from "../analysis/judge/pairwise_summary.ts";
import type { Evidence, JudgeConfig } from "../analysis/schema.ts";
import { pathExists } from "../inputs/input_file.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { judgePairs, type PairRecord } from "../runner/judge/judge_pairs.ts";
import { dirname } from "node:path";
import { parseCommandArgs, stringOption } from "./_args.ts";
import {
  ExitCode,
  InputError,
  type Io,
  runSubcommand,
  type Subcommands,
  UsageError,
} from "./_command.ts";
import { emit } from "./_output.ts";
import {
  JUDGE_UPSTREAM_HELP,
  JUDGE_UPSTREAM_OPTIONS,
  judgeUpstreamOption,
} from "./_judge_upstream.ts";

/** Help text, an example first. */
export const help = `The LLM judge of a suite's judged tasks (issue 14).

calibrate: the judge against human labels
(seed 000 §06-07): agreement with the humans and Cohen's kappa with 95%
intervals, swap consistency of pairwise judgments, and the gates (80% and
90% by default). "freeze --judge" records the newest result for exactly this
judge and suite; until it passed, judged tasks are not counted in formal scores.

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
  --replay DIR         Recompute DIR's summary.json from its judgments.jsonl
                       and compare the bytes (exit 0 only when identical)

The calibration (summary.json, judgments.jsonl) goes to SUITE.judge/<time>/.

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
  --json               Canonical JSON instead of text
  -h, --help           This help

EXIT STATUS:
  0 the judge passed its gates, the comparison was recorded, or the replay is
  identical; 1 usage error; 2 bad input (suite, plan, ledger, judge file,
  golden set: file, line and field named); 3 the judge failed a gate, its
  calls lacked evidence, or the replay differs
`;

const CALIBRATE_OPTIONS = {
  suite: { type: "string" },
  judge: { type: "string" },
  golden: { type: "string" },
  replay: { type: "string" },
  ...JUDGE_UPSTREAM_OPTIONS,
} as const;

const PAIRWISE_OPTIONS = {
  plan: { type: "string" },
  suite: { type: "string" },
  ledger: { type: "string" },
  artifacts: { type: "string" },
  agents: { type: "string" },
  out: { type: "string" },
  from: { type: "string" },
  ...JUDGE_UPSTREAM_OPTIONS,
} as const;

/** The subcommands, by the first argument. */
const SUBCOMMANDS: Subcommands = {
  calibrate: runCalibrate,
  pairwise: runPairwise,
};

/** Runs `judge`; see {@link help}. */
export function run(args: string[], io: Io): Promise<number> {
  return runSubcommand(SUBCOMMANDS, args, io);
}

async function runCalibrate(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, CALIBRATE_OPTIONS);
  const suiteDir = stringOption(values, "suite");
  const goldenFile = stringOption(values, "golden");
  const replay = stringOption(values, "replay");
  const judgeFile = stringOption(values, "judge");
  if (suiteDir === undefined) throw new UsageError('Missing option: "--suite"');
  if (goldenFile === undefined) throw new UsageError('Missing option: "--golden"');
  if (replay !== undefined && judgeFile !== undefined) {
    throw new UsageError(
      'Option "--replay" takes the judge from the stored calibration: no "--judge"',
    );
  }
  const suite = await loadSuite(suiteDir);
  const golden = await loadGoldenSet(goldenFile);
  if (replay !== undefined) {
    let outcome;
    try {
      outcome = await replayCalibration(replay, { suite, golden });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof SyntaxError) {
        throw new InputError(`Cannot replay "${replay}": ${error.message}`);
      }
      throw error;
    }
    const { identical, stored } = outcome;
    emit(io, {
      json: values.json === true,
      payload: { identical, dir: replay, summary: JSON.parse(outcome.text) },
      render: () =>
        `${render(stored)}replay: ${
          identical ? "identical" : "DIFFERS from"
        } ${replay}/summary.json\n`,
    });
    return identical ? ExitCode.ok : ExitCode.refused;
  }
  if (judgeFile === undefined) throw new UsageError('Missing option: "--judge"');
  const settings = (await loadJudgeSettings(judgeFile)).value;
  const judge = await judgeUpstreamOption(values);
  if (judge === null) {
    throw new UsageError('Missing option: "--judge-upstream" or "--judge-provider-script"');
  }
  let outcome;
  try {
    outcome = await calibrateJudge({
      suite,
      settings,
      golden,
      upstream: judge.upstream,
      onItem: (done, total) => io.stderr(`judged ${done}/${total}\n`),
    });
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("Golden item")) {
      throw new InputError(`${goldenFile}: ${error.message}`);
    }
    throw error;
  } finally {
    await judge.close();
  }
  emit(io, {
    json: values.json === true,
    payload: { dir: outcome.dir, summary_sha256: outcome.summary_sha256, summary: outcome.summary },
    render: () => `${render(outcome.summary)}written: ${outcome.dir}\n`,
  });
  return outcome.summary.passed ? ExitCode.ok : ExitCode.refused;
}

/** The text form: the figures the gates read, each label set, the verdict. */
function render(summary: JudgeCalibrationFile): string {
  const figures = summary.figures as JudgeCalibration;
  const share = (f: { rate: number | null; agreeing?: number; items?: number }) =>
    f.rate === null ? "not measurable" : f.rate.toFixed(3);
  const interval = (w: { lower: number; upper: number } | null) =>
    w === null ? "" : ` [${w.lower.toFixed(3)}, ${w.upper.toFixed(3)}]`;
  const kappa = (k: JudgeCalibration["latest"]["score"]["kappa"]) =>
    k.kappa === null
      ? "kappa undefined"
      : `kappa ${k.kappa.toFixed(3)}${
        k.lower === null ? "" : ` [${k.lower.toFixed(3)}, ${k.upper!.toFixed(3)}]`
      }`;
  const set = (s: JudgeCalibration["latest"]) =>
    [
      `${s.label_set} labels (${s.items} items, ${s.seen_model_output} written after seeing model output):`,
      `  agreement ${share(s.agreement)} (${s.agreement.agreeing} of ${s.agreement.items})${
        interval(s.agreement.wilson)
      }`,
      `  score items: agreement ${share(s.score)} (${s.score.agreeing} of ${s.score.items}), ${
        kappa(s.score.kappa)
      }, judge faults ${s.score.judge_faults}`,
      `  pairwise items: agreement ${
        share(s.pairwise)
      } (${s.pairwise.agreeing} of ${s.pairwise.items}), ${
        kappa(s.pairwise.kappa)
      }, judge faults ${s.pairwise.judge_faults}`,
    ].join("\n");
  const swap = figures.swap_consistency;
  return [
    `judge: ${displayId(summary.judge.model)} (settings sha256 ${summary.judge_settings_sha256})`,
    `golden set: ${
      lineText(summary.golden.file)
    } (sha256 ${summary.golden.sha256}), ${figures.items} items, ${figures.label_lines} labels`,
    set(figures.latest),
    ...(figures.blind === null ? [] : [set(figures.blind)]),
    `swap consistency ${
      share(swap)
    } (${swap.consistent} of ${swap.measured} pairs; ${swap.judge_faults} with a judge fault)${
      interval(swap.wilson)
    }`,
    `judge calls: ${summary.spend.model_calls}, tokens ${summary.spend.prompt_tokens} + ${summary.spend.completion_tokens}`,
    summary.passed
      ? `calibrated: the gates are met (agreement >= ${summary.judge.gates.human_agreement}, swap consistency >= ${summary.judge.gates.swap_consistency})`
      : `UNCALIBRATED: ${summary.reasons.map(lineText).join("; ")}`,
    "",
  ].join("\n");
}

/** The record `judge pairwise --out` writes. */
interface PairwiseFile {
  schema_version: 1;
  plan: { file: string; sha256: string };
  ledger: { file: string; sha256: string };
  judge: JudgeConfig;
  agents: [string, string];
  records: PairRecord[];
  spend: { model_calls: number; prompt_tokens: number; completion_tokens: number };
  evidence: Evidence | null;
  /** Why no verdict may be stated from it (the judge's calls invalid); empty when none. */
  invalid: string[];
  summary: PairwiseSummary;
}

async function runPairwise(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, PAIRWISE_OPTIONS);
  const from = stringOption(values, "from");
  if (from !== undefined) {
    let file: PairwiseFile;
    try {
      file = JSON.parse(await Deno.readTextFile(from)) as PairwiseFile;
    } catch (error) {
      throw new InputError(`Cannot read "${from}": ${(error as Error).message}`);
    }
    const summary = summaryOf(file.agents, file.records);
    const identical = canonicalJson(summary) === canonicalJson(file.summary);
    emit(io, {
      json: values.json === true,
      payload: { identical, summary },
      render: () =>
        `${renderPairwise({ ...file, summary })}replay: ${
          identical ? "identical" : "DIFFERS from"
        } the recorded summary\n`,
    });
    return identical ? ExitCode.ok : ExitCode.refused;
  }
  const need = (name: string) => {
    const value = stringOption(values, name);
    if (value === undefined) throw new UsageError(`Missing option: "--${name}"`);
    return value;
  };
  const [planFile, suiteDir, ledgerFile, out] = ["plan", "suite", "ledger", "out"].map(need);
  const agents = need("agents").split(",");
  if (agents.length !== 2 || agents.some((a) => a === "") || agents[0] === agents[1]) {
    throw new UsageError('Option "--agents" must name two different agents: A,B');
  }
  if (await pathExists(out)) throw new InputError(`Cannot write "${out}": it exists`);
  const plan = await loadPlan(planFile, { frozen: true });
  if (plan.value.judge === undefined) {
    throw new InputError(`Cannot compare: the plan "${planFile}" names no judge`);
  }
  for (const agent of agents) {
    if (!plan.value.agents.some((a) => a.agent_id === agent)) {
      throw new UsageError(`Option "--agents" names "${agent}", which is not an agent of the plan`);
    }
  }
  const suite = await loadSuite(suiteDir);
  const ledger = await loadLedger(ledgerFile);
  const judge = await judgeUpstreamOption(values);
  if (judge === null) {
    throw new UsageError('Missing option: "--judge-upstream" or "--judge-provider-script"');
  }
  const pair = agents as [string, string];
  let judged;
  try {
    judged = await judgePairs({
      suite,
      taskIds: plan.value.tasks.map((task) => task.task_id),
      rows: ledger.rows,
      artifactsRoot: stringOption(values, "artifacts") ?? `${dirname(ledgerFile)}/artifacts`,
      agents: pair,
      config: plan.value.judge,
      upstream: judge.upstream,
    });
  } finally {
    await judge.close();
  }
  const { gate } = judged.spend;
  const file: PairwiseFile = {
    schema_version: 1,
    plan: { file: planFile, sha256: plan.sha256 },
    ledger: { file: ledgerFile, sha256: ledger.sha256 },
    judge: plan.value.judge,
    agents: pair,
    records: judged.records,
    spend: {
      model_calls: gate.model_calls,
      prompt_tokens: gate.prompt_tokens,
      completion_tokens: gate.completion_tokens,
    },
    evidence: gate.model_calls === 0 ? null : gate.evidence,
    invalid: gate.status === "invalid"
      ? [
        `the judge's calls are invalid (${gate.invalid_reason}): ${
          gate.problems.map((p) => p.message).join(" / ")
        }`,
      ]
      : [],
    summary: summaryOf(pair, judged.records),
  };
  await Deno.writeTextFile(out, canonicalJson(file), { createNew: true });
  emit(io, {
    json: values.json === true,
    payload: { out, ...file },
    render: () => `${renderPairwise(file)}written: ${out}\n`,
  });
  return file.invalid.length === 0 ? ExitCode.ok : ExitCode.refused;
}

function summaryOf(agents: [string, string], records: readonly PairRecord[]): PairwiseSummary {
  return pairwiseSummary(
    agents,
    records.map((r) => ({
      task_id: r.task_id,
      first: r.first?.value ?? null,
      second: r.second?.value ?? null,
      unjudged: r.unjudged,
    })),
  );
}

/** The text form: the counts, the consistency rate, and what may be claimed from them. */
function renderPairwise(
  file: Pick<PairwiseFile, "judge" | "summary" | "invalid" | "spend">,
): string {
  const s = file.summary;
  const [a, b] = s.agents.map(displayId);
  const pc = s.position_consistency;
  const calibration = file.judge.calibration;
  return [
    `judge: ${displayId(file.judge.model)}, calibration ${calibration.state}`,
    `${s.tasks} judged tasks: ${a} won ${s.wins_a}, ${b} won ${s.wins_b}, tie ${s.ties}, ` +
    `position-inconsistent (a tie) ${s.inconsistent}, judge faults ${s.judge_faults}, not judged ${s.unjudged.length}`,
    ...s.unjudged.map((u) => `  not judged ${displayId(u.task_id)}: ${lineText(u.reason)}`),
    `position consistency: ${
      pc.rate === null
        ? "not measurable"
        : `${pc.rate.toFixed(3)} (${pc.consistent} of ${pc.judged}) [${
          pc.wilson!.lower.toFixed(3)
        }, ${pc.wilson!.upper.toFixed(3)}]`
    }`,
    `judge calls: ${file.spend.model_calls}, tokens ${file.spend.prompt_tokens} + ${file.spend.completion_tokens}`,
    file.invalid.length > 0
      ? `no verdict may be stated: ${file.invalid.map(lineText).join("; ")}`
      : calibration.state === "passed"
      ? "the judge is calibrated: these counts may be stated, with the consistency rate beside them"
      : `no formal claim: the judge is uncalibrated (${calibration.state}); the counts are exploratory`,
    "",
  ].join("\n");
}
