/**
 * `ledgerbench coverage`: the tool's own error (issue 13). For each agent's
 * scored episodes n, how often the 95% interval of a resolved rate that the
 * tool uses contains the true rate: exactly, at the observed rate and across
 * rates (analysis/interval_coverage.ts). Same ledger and bootstrap seed give
 * byte-identical output.
 *
 * @module
 */
import {
  CLOPPER_PEARSON_MAX_N,
  COVERAGE_METHODS,
  COVERAGE_RATES,
  type CoverageMethod,
  coverageProfiles,
} from "../analysis/interval_coverage.ts";
import { summarizeAgents } from "../analysis/summarize_agents.ts";
import { DEFAULT_BOOTSTRAP } from "../analysis/defaults.ts";
import { describeIntervalMethod } from "../analysis/rate_interval.ts";
import {
  INTERVAL_METHOD_HELP,
  INTERVAL_METHOD_OPTION,
  intervalMethodOption,
} from "./_option_ranges.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { type Io, UsageError } from "./_command.ts";
import { configRef, loadLedger, loadPlan } from "./_load.ts";
import { describeInputs, describeProblems, emit, finish } from "./_output.ts";
import { integer, percent } from "../report/format.ts";
import { formatPercentExact } from "../analysis/format_number.ts";
import { claimLabel } from "../report/standing_words.ts";
import { DEFAULT_TIE_BAND } from "../analysis/defaults.ts";
import {
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";
import { agentOrder } from "../analysis/leaderboard.ts";
import { AGENT_COLUMN, RANK_COLUMN, RANK_NOTE } from "./_table_order.ts";
import { assessLoaded, taskListOption, TASKS_HELP, TASKS_OPTION } from "./_standing.ts";
import { displayId } from "../analysis/untrusted_text.ts";

/** Help text, an example first. */
export const help = `Report how often the 95% interval of each agent's resolved rate contains the
true rate, at the agent's number of scored episodes n: the tool's own error.
The coverage is exact (a sum over the binomial distribution of the resolved
count, each count's interval computed as the tool computes it, with the
plan's bootstrap rounds and seed), at the observed rate and across true rates
from 1% to 99%; nothing is simulated, so the output replays byte for byte.

Methods, one row each per agent; the one the verdicts use (the plan's
interval_method, or --interval-method) is marked with "*":
  bootstrap-as-computed  seed 001's percentile bootstrap as computed (a point at 0/n and n/n)
  percentile-bootstrap   the default method's interval as printed: the bootstrap, with
                         the Wilson interval in its place when it collapses
  wilson                 the Wilson score interval
  clopper-pearson        the exact (Clopper-Pearson) interval

The coverage of the intervals for the synthetic example's agents:
  deno task ledgerbench coverage ledgers/examples/synthetic_ledger.jsonl \\
    --plan ledgers/examples/synthetic_plan.json

USAGE:
  deno task ledgerbench coverage LEDGER [OPTIONS]

OPTIONS:
  --plan FILE         Frozen plan: its bootstrap rounds and seed (default ${DEFAULT_BOOTSTRAP.rounds}, ${DEFAULT_BOOTSTRAP.seed})
                      and its interval method
${INTERVAL_METHOD_HELP}
  --rates R,...       The true rates to report across, each in [0, 1]
                      (default ${COVERAGE_RATES.join(",")})
${TASKS_HELP}
                      (here: the claim beside each agent's rate, and the
                      leaderboard order of the rows)
  --errata FILE       Apply the corrections of an errata file first
  --lenient           Report every bad line instead of stopping at the first;
                      the rows not used are listed and the exit status is 2
${WIDTH_HELP}
  --json              Canonical JSON instead of tables
  -h, --help          This help
`;

const OPTIONS = {
  ...INTERVAL_METHOD_OPTION,
  ...TASKS_OPTION,
  ...WIDTH_OPTION,
  plan: { type: "string" },
  rates: { type: "string" },
  errata: { type: "string" },
  lenient: { type: "boolean" },
} as const;

/** `--rates`: comma-separated numbers in [0, 1]. */
function ratesOption(text: string | undefined): readonly number[] {
  if (text === undefined) return COVERAGE_RATES;
  const rates = text.split(",").map((part) => part.trim());
  for (const part of rates) {
    const rate = Number(part);
    if (part === "" || !Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new UsageError(`Option "--rates": each rate must be a number in [0, 1], got "${part}"`);
    }
  }
  return rates.map(Number);
}

/** Runs `coverage`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const rates = ratesOption(stringOption(values, "rates"));
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const taskList = await taskListOption(values, plan, positionals[0]);
  const width = outputWidth(values);
  const loaded = await loadLedger(positionals[0], {
    errata: stringOption(values, "errata"),
    lenient: values.lenient === true,
  });
  const bootstrap = plan?.value.bootstrap ?? DEFAULT_BOOTSTRAP;
  const methodParam = intervalMethodOption(values, plan?.value ?? null);
  const scored = summarizeAgents(loaded.rows).filter((agent) => agent.scored > 0);
  // Per method, one set of intervals for the agents that share an n.
  const profiles = COVERAGE_METHODS.map((method: CoverageMethod) =>
    coverageProfiles(method, scored, { ...bootstrap, rates })
  );
  const agents = scored.map((agent, i) => ({
    agent_id: agent.agent_id,
    scored: agent.scored,
    resolved: agent.resolved,
    rate: agent.resolved / agent.scored,
    methods: profiles.map((byAgent) => byAgent[i]),
  }));
  const payload = {
    command: "coverage",
    ledger: loaded.ledger,
    errata: loaded.errata,
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    // Only with --tasks: the output without one keeps its bytes.
    ...(taskList === null
      ? {}
      : { task_list: configRef(taskList, (t) => ({ tasks: t.tasks.length })) }),
    parameters: {
      rounds: bootstrap.rounds,
      seed: bootstrap.seed,
      level: 0.95,
      rates,
      interval_method: methodParam.value,
      interval_method_source: methodParam.source,
    },
    problems: loaded.problems,
    agents,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = "Coverage of the 95% rate intervals (the tool's own error)\n\n";
      text += describeInputs(loaded, [["plan", plan], ["task list", taskList]]);
      text += `interval: ${describeIntervalMethod(methodParam.value)} (${methodParam.source}); ` +
        `bootstrap: ${bootstrap.rounds} rounds, seed ${bootstrap.seed}; exact over the ` +
        `binomial distribution of the resolved count; true rates ${
          rates.map((rate) => formatPercentExact(rate)).join(", ")
        }\n\n`;
      // The leaderboard order and each agent's claim beside its rate (issue 25).
      const assessment = assessLoaded(loaded, plan, taskList);
      const standings = new Map(assessment.standings.map((s) => [s.agent_id, s]));
      const order = agentOrder(scored, assessment, {
        settings: {
          band: plan?.value.tie_band ?? DEFAULT_TIE_BAND,
          rounds: bootstrap.rounds,
          seed: bootstrap.seed,
          method: methodParam.value,
        },
      });
      const byId = new Map(agents.map((agent) => [agent.agent_id, agent]));
      const sorted = order.sort(agents.map((agent) => agent.agent_id)).map((id) => byId.get(id)!);
      const context = new TableContext(width);
      // One row per agent: its rate beside its claim (issue 25: a withheld agent is marked).
      text += fitTable(
        context,
        [
          RANK_COLUMN,
          AGENT_COLUMN,
          { header: "n", align: "right", priority: 0 },
          { header: "resolved", align: "right", priority: 0 },
          { header: "claim", priority: 0 },
        ],
        sorted.map((agent) => [
          order.rank(agent.agent_id),
          agent.agent_id,
          integer(agent.scored),
          `${integer(agent.resolved)} (${percent(agent.rate)})`,
          standings.has(agent.agent_id) ? claimLabel(standings.get(agent.agent_id)!) : "-",
        ]),
      );
      text += RANK_NOTE;
      // One row per agent and method: the coverage at the observed rate and the lowest.
      text += "\nat observed: the coverage at the agent's observed rate; lowest: the lowest " +
        "across the true rates, and at which (* the method the verdicts use)\n";
      text += fitTable(
        context,
        [
          RANK_COLUMN,
          AGENT_COLUMN,
          { header: "method", priority: 0 },
          { header: "at observed", align: "right", priority: 0 },
          { header: "lowest", align: "right", priority: 1 },
        ],
        sorted.flatMap((agent) =>
          agent.methods.map((profile) => [
            order.rank(agent.agent_id),
            agent.agent_id,
            `${profile.method}${profile.method === methodParam.value ? " *" : ""}`,
            profile.lowest === null ? "not computed" : percent(profile.at_observed),
            profile.lowest === null
              ? `n > ${integer(CLOPPER_PEARSON_MAX_N)}: >= 95% by construction`
              : `${percent(profile.lowest.coverage)} at ${percent(profile.lowest.rate)}`,
          ])
        ),
      );
      const poor = sorted.flatMap((agent) =>
        agent.methods.flatMap((profile) =>
          profile.method === methodParam.value && profile.lowest !== null &&
            profile.lowest.coverage < 0.9
            ? [
              `- "${
                displayId(agent.agent_id)
              }": at n = ${agent.scored} the interval the verdicts use ` +
              `covers ${percent(profile.lowest.coverage)} at a true rate of ` +
              `${percent(profile.lowest.rate)}, not 95%: read its interval as narrower than it is`,
            ]
            : []
        )
      );
      if (poor.length > 0) text += `\nwarnings:\n${poor.join("\n")}\n`;
      return fitLines(text + describeProblems(loaded.problems), width);
    },
  });
  return finish(io, loaded);
}
