/**
 * `ledgerbench judge calibrate` (issue 14): the judge against a golden set of
 * human labels through its relay (runner/judge/calibrate_judge.ts), or a
 * stored calibration replayed with zero model calls. The subcommand of
 * `judge.ts`.
 *
 * @module
 */
import { outputWidth, WIDTH_OPTION } from "./_table_layout.ts";
import { type JudgeCalibration, swapCounts } from "../analysis/judge/judge_calibration.ts";
import type { JudgeCalibrationSummary } from "../analysis/schema/judge_records.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { loadGoldenSet } from "../inputs/golden_set.ts";
import { loadJudgeSettings } from "../inputs/judge_settings.ts";
import { loadSuite } from "../inputs/suite.ts";
import { calibrateJudge, replayCalibration } from "../runner/judge/calibrate_judge.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { JUDGE_UPSTREAM_OPTIONS, judgeUpstreamOption } from "./_judge_upstream.ts";

const CALIBRATE_OPTIONS = {
  suite: { type: "string" },
  judge: { type: "string" },
  golden: { type: "string" },
  replay: { type: "string" },
  ...JUDGE_UPSTREAM_OPTIONS,
  ...WIDTH_OPTION,
} as const;

/**
 * Runs `judge calibrate` (see `judge.ts`'s help): the judge on a golden set,
 * or a stored calibration replayed (`--replay`).
 *
 * @param args the arguments after `calibrate`
 * @param io where to write
 * @returns 0 when the judge met its gates (or the replay is identical), 3 when not (or it differs)
 */
export async function runCalibrate(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, CALIBRATE_OPTIONS);
  const width = outputWidth(values);
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
      width,
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
    width,
    payload: { dir: outcome.dir, summary_sha256: outcome.summary_sha256, summary: outcome.summary },
    render: () => `${render(outcome.summary)}written: ${outcome.dir}\n`,
  });
  return outcome.summary.passed ? ExitCode.ok : ExitCode.refused;
}

/**
 * The adversarial probes (issue 21), one line per task: how many the judge
 * scored correctly, then one indented line per probe scored wrong.
 */
function probeLines(summary: JudgeCalibrationSummary): string[] {
  const byTask = new Map<string, JudgeCalibrationSummary["probes"]>();
  for (const outcome of summary.probes) {
    const outcomes = byTask.get(outcome.task_id);
    if (outcomes === undefined) byTask.set(outcome.task_id, [outcome]);
    else outcomes.push(outcome);
  }
  return [...byTask].flatMap(([taskId, outcomes]) => [
    `adversarial probes on task ${displayId(taskId)}: ${
      outcomes.filter((o) => o.scored_correctly).length
    } of ${outcomes.length} scored correctly (each needs a usable judgment below the pass ` +
    `threshold ${outcomes[0].pass_threshold})`,
    ...outcomes.map((o) =>
      `  ${displayId(o.probe_id)}: total ${o.total === null ? "none" : o.total.toFixed(2)}${
        o.scored_correctly ? "" : ` WRONG: ${lineText(o.problem ?? "")}`
      }`
    ),
  ]);
}

/** The text form: the figures the gates read, each label set, the probes, the verdict. */
function render(summary: JudgeCalibrationSummary): string {
  const figures = summary.figures;
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
    `swap consistency ${share(swap)} (${swapCounts(swap)})${interval(swap.wilson)}`,
    ...probeLines(summary),
    `judge calls: ${summary.spend.model_calls}, tokens ${summary.spend.prompt_tokens} + ${summary.spend.completion_tokens}`,
    summary.passed
      ? `calibrated: the gates are met (agreement >= ${summary.judge.gates.human_agreement}, swap consistency >= ${summary.judge.gates.swap_consistency}) and every adversarial probe was scored correctly`
      : `UNCALIBRATED: ${summary.reasons.map(lineText).join("; ")}`,
    "",
  ].join("\n");
}
