/**
 * `ledgerbench judge pairwise` (issue 14): two agents' answers to each judged
 * task of a run compared by the plan's judge, twice with the positions
 * swapped (runner/judge/judge_pairs.ts), or a recorded comparison's summary
 * recomputed with zero model calls. The subcommand of `judge.ts`.
 *
 * @module
 */
import { outputWidth, WIDTH_OPTION } from "./_table_layout.ts";
import { dirname } from "node:path";
import { canonicalJson } from "../analysis/canonical_json.ts";
import { type PairwiseSummary, pairwiseSummary } from "../analysis/judge/pairwise_summary.ts";
import type { PairRecord, PairwiseRecord } from "../analysis/schema/judge_records.ts";
import { displayId, lineText } from "../analysis/untrusted_text.ts";
import { pathExists } from "../inputs/input_file.ts";
import { loadPairwiseRecord } from "../inputs/judge_records.ts";
import { loadLedger } from "../inputs/ledger.ts";
import { loadPlan } from "../inputs/plan.ts";
import { loadSuite } from "../inputs/suite.ts";
import { judgePairs } from "../runner/judge/judge_pairs.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { ExitCode, InputError, type Io, UsageError } from "./_command.ts";
import { emit } from "./_output.ts";
import { JUDGE_UPSTREAM_OPTIONS, judgeUpstreamOption } from "./_judge_upstream.ts";

const PAIRWISE_OPTIONS = {
  plan: { type: "string" },
  suite: { type: "string" },
  ledger: { type: "string" },
  artifacts: { type: "string" },
  agents: { type: "string" },
  out: { type: "string" },
  from: { type: "string" },
  ...JUDGE_UPSTREAM_OPTIONS,
  ...WIDTH_OPTION,
} as const;

/**
 * Runs `judge pairwise` (see `judge.ts`'s help): compares two agents' answers
 * to every judged task of a run, or recomputes a record's summary (`--from`).
 *
 * @param args the arguments after `pairwise`
 * @param io where to write
 * @returns 0 when recorded (or the replay is identical), 3 when the judge's calls were invalid
 *   (or the replay differs)
 */
export async function runPairwise(args: string[], io: Io): Promise<number> {
  const { values } = parseCommandArgs(args, PAIRWISE_OPTIONS);
  const width = outputWidth(values);
  const from = stringOption(values, "from");
  if (from !== undefined) {
    const file = (await loadPairwiseRecord(from)).value;
    const summary = summaryOf(file.agents, file.records);
    const identical = canonicalJson(summary) === canonicalJson(file.summary);
    emit(io, {
      json: values.json === true,
      width,
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
  const file: PairwiseRecord = {
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
    width,
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
  file: Pick<PairwiseRecord, "judge" | "summary" | "invalid" | "spend">,
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
