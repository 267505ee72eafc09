/**
 * `ledgerbench sprt`: replays one agent's ledger rows through seed 002's
 * pre-registered sequential test, in the plan's task order, invalid attempts
 * skipped and counted, every unused row listed.
 *
 * @module
 */
import { replaySprt, type SprtReplay } from "../analysis/sprt/replay_sprt.ts";
import { parseCommandArgs, stringOption } from "./_args.ts";
import { type Io, UsageError } from "./_command.ts";
import { configRef, loadLedger, loadPlan } from "./_load.ts";
import { describeInputs, describeProblems, emit, finish } from "./_output.ts";
import { percent, renderPairs, signedFixed } from "../report/format.ts";
import {
  fitLines,
  fitTable,
  outputWidth,
  TableContext,
  WIDTH_HELP,
  WIDTH_OPTION,
} from "./_table_layout.ts";
import {
  describeSprtParams,
  resolveSprtParams,
  SPRT_OPTIONS,
  SPRT_OPTIONS_HELP,
} from "./_sprt_flags.ts";
import { displayId } from "../analysis/untrusted_text.ts";

/** Help text, an example first. */
export const help = `Replay one agent's results through seed 002's sequential probability ratio
test, in the pre-registered task order of the plan: after each valid result
LLR = passes ln(p_adopt/p_drop) + fails ln((1-p_adopt)/(1-p_drop)); adopt at
LLR >= ln((1-beta)/alpha), drop at LLR <= ln(beta/(1-alpha)); at n_cap fall
back to the point estimate (cap-adopt or cap-drop). Invalid attempts count
neither way: they are skipped, counted and reported as an invalid rate. Rows
after the decision or outside the plan are listed, never silently dropped.

Replay agent-alpha of the synthetic example under its plan:
  deno task ledgerbench sprt ledgers/examples/synthetic_ledger.jsonl \\
    --agent agent-alpha --plan ledgers/examples/synthetic_plan.json

Without a plan, in file order, with explicit parameters:
  deno task ledgerbench sprt ledger.jsonl --agent a --p-adopt 0.7 --p-drop 0.5

USAGE:
  deno task ledgerbench sprt LEDGER [--agent ID] [--plan FILE | SPRT OPTIONS] [OPTIONS]

OPTIONS:
  --agent ID       The agent to replay (may be left out when the ledger has one)
  --plan FILE      Frozen plan: the task order, and the SPRT parameters when its
                   stopping rule is "sprt" (then no SPRT option may override them)
${SPRT_OPTIONS_HELP}
  --errata FILE    Apply the corrections of an errata file first
  --lenient        Report every bad line instead of stopping at the first; the
                   rows not used are listed and the exit status is 2
${
  WIDTH_HELP.replaceAll("\n" + " ".repeat(22), "\n" + " ".repeat(19)).replace(
    "--width N           ",
    "--width N        ",
  )
}
  --json           Canonical JSON instead of tables
  -h, --help       This help
`;

const OPTIONS = {
  agent: { type: "string" },
  plan: { type: "string" },
  ...SPRT_OPTIONS,
  ...WIDTH_OPTION,
  errata: { type: "string" },
  lenient: { type: "boolean" },
} as const;

/** Runs `sprt`; see {@link help}. */
export async function run(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS, { required: ["LEDGER"] });
  const lenient = values.lenient === true;
  const width = outputWidth(values);
  const planPath = stringOption(values, "plan");
  const plan = planPath === undefined ? null : await loadPlan(planPath);
  const { params, source } = resolveSprtParams(values, plan);
  const loaded = await loadLedger(positionals[0], {
    errata: stringOption(values, "errata"),
    lenient,
  });
  const agents = [...new Set(Iterator.from(loaded.rows).map((row) => row.agent_id))].sort();
  let agentId = stringOption(values, "agent");
  const list = agents.map((id) => `"${id}"`).join(", ");
  if (agentId === undefined) {
    if (agents.length !== 1) {
      throw new UsageError(`Missing option: "--agent" (the ledger's agents are ${list || "none"})`);
    }
    agentId = agents[0];
  } else if (!agents.includes(agentId)) {
    throw new UsageError(`Agent "${agentId}" is not in the ledger: its agents are ${list}`);
  }
  // The planned order without the tasks left out of formal scores (issue 14): never skipped tasks.
  const leftOut = new Set(loaded.left_out.map((task) => task.task_id));
  const order = plan === null
    ? undefined
    : plan.value.tasks.map((task) => task.task_id).filter((id) => !leftOut.has(id));
  const replay = replaySprt(loaded.rows, { agentId, params, order });
  const payload = {
    command: "sprt",
    ledger: loaded.ledger,
    errata: loaded.errata,
    plan: configRef(plan, (p) => ({ plan_id: p.plan_id })),
    parameters: { agent: agentId, sprt: params, source, order: replay.order, lenient },
    problems: loaded.problems,
    replay,
  };
  emit(io, {
    json: values.json === true,
    payload,
    render: () => {
      let text = `SPRT replay of agent "${displayId(agentId)}" (seed 002)\n\n`;
      text += describeInputs(loaded, [["plan", plan]]);
      const b = replay.boundaries;
      text += renderPairs([
        ["parameters", `${describeSprtParams(params)} (${source})`],
        [
          "boundaries",
          `adopt at LLR >= ${b.upper.toFixed(4)}, drop at LLR <= ${b.lower.toFixed(4)}`,
        ],
        [
          "order",
          replay.order === "planned"
            ? `pre-registered: the plan's ${order?.length} tasks${
              order?.length === plan?.value.tasks.length ? "" : " counted in formal scores"
            }`
            : "file order (no plan given: the pre-registered order cannot be checked)",
        ],
      ]);
      text += "\n" + stepTable(new TableContext(width), replay);
      text += "\n" + verdictLine(replay);
      text += unusedRows(replay);
      for (const note of replay.notes) text += `note: ${note}\n`;
      text += describeProblems(loaded.problems);
      return fitLines(text, width);
    },
  });
  return finish(io, loaded);
}

function stepTable(context: TableContext, replay: SprtReplay): string {
  if (replay.steps.length === 0) return "no rows to replay\n";
  return fitTable(
    context,
    [
      { header: "n", align: "right", key: true },
      { header: "task", id: true, key: true },
      { header: "episode", id: true, priority: 3 },
      { header: "outcome", priority: 0 },
      { header: "passes", align: "right", priority: 2 },
      { header: "fails", align: "right", priority: 2 },
      { header: "LLR", align: "right", priority: 0 },
      { header: "decision", priority: 0 },
    ],
    replay.steps.map((step) => [
      String(step.n),
      step.task_id,
      step.episode_id,
      step.outcome === "invalid" ? "invalid (skipped)" : step.outcome,
      String(step.passes),
      String(step.fails),
      signedFixed(step.llr),
      step.verdict,
    ]),
  );
}

function verdictLine(replay: SprtReplay): string {
  const counts = `passes ${replay.passes}, fails ${replay.fails}, LLR ${signedFixed(replay.llr)}`;
  const invalid = `${replay.invalid_count} invalid attempt${
    replay.invalid_count === 1 ? "" : "s"
  } skipped (invalid rate ${percent(replay.invalid_rate)})`;
  const head = replay.decided
    ? `verdict: ${replay.verdict} after ${replay.n} valid results`
    : `verdict: no decision yet (continue) after ${replay.n} valid results`;
  return `${head} (${counts}); ${invalid}\n`;
}

function unusedRows(replay: SprtReplay): string {
  let text = "";
  const lists: [string, SprtReplay["after_decision"]][] = [
    ["after the decision", replay.after_decision],
    ["outside the planned order", replay.unplanned],
  ];
  for (const [label, rows] of lists) {
    if (rows.length === 0) continue;
    text += `rows not used, ${label} (${rows.length}):\n`;
    for (const row of rows) {
      text += `  ${displayId(row.episode_id)} (task ${
        displayId(row.task_id)
      }, attempt ${row.attempt}, ${row.outcome})\n`;
    }
  }
  if (replay.skipped_tasks.length > 0) {
    text += `planned tasks skipped before the last walked row: ${
      replay.skipped_tasks.map(displayId).join(", ")
    }\n`;
  }
  return text;
}
