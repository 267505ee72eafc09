/**
 * The top of the report at field scale (issue 25, item 2: at 14 agents the
 * Summary was about 80 prose bullets, one per pair, with no ranked table):
 * the leaderboard table ({@link leaderboardBlocks}) and the pairwise
 * verdicts as one compact matrix ({@link verdictMatrixBlocks}), both in the
 * order of `summary.leaderboard` (`leaderboardOfAgents`), with prose only
 * where it is needed: one line per cause that withholds something.
 *
 * Every cell is read from the summary: the claim label is `claimLabel`'s
 * (the words `summarize` prints), the score over planned tasks is the
 * coverage's (`resolved` of `planned`, the numerator and denominator of
 * `summarize`'s and of the report's missing-tasks section), the rate over
 * scored episodes and its interval are the per-agent ones.
 *
 * Private to `report/`.
 *
 * @module
 */
import type { WithheldCause } from "../analysis/agent_standing.ts";
import type { Comparison } from "../analysis/compare_agents.ts";
import { displayId } from "../analysis/untrusted_text.ts";
import type { Block } from "./_document.ts";
import { AGENT_REPORTED, decimal, integer, money, NOT_RECORDED, percent } from "./format.ts";
import { claimLabel } from "./standing_words.ts";
import type { ReportSummary } from "./report_model.ts";
import { intervalCell } from "./_interval_cell.ts";
import { SCORE_WORDS } from "../analysis/score_words.ts";

/** A withheld capability number's cell. */
export const NOT_STATED = "not stated";

/** What the rank column says of an agent that has no rank. */
const UNRANKED: Record<"withheld" | "nothing_resolved", string> = {
  withheld: "–",
  nothing_resolved: "– (nothing resolved)",
};

/** The rank rule, under the leaderboard (the words of the CLI tables' rank note). */
export const RANK_RULE = "Rank: 1 + the agents that beat it by seed 001's rule (overlapping " +
  "intervals share a rank); withheld agents and agents that resolved nothing are listed last, " +
  "unranked (–).";

/**
 * A per-resolved figure's cell: the figure, "not recorded" when a scored
 * attempt did not record it (imported rows without tokens or times, issue
 * 25 item 3: never "nothing resolved" for an agent that resolved tasks),
 * "none: nothing resolved" only when nothing was resolved.
 *
 * @param value the figure, or null
 * @param resolved the agent's resolved episodes
 * @param show how to print the figure
 * @returns the cell
 */
export function perResolvedCell(
  value: number | null,
  resolved: number,
  show: (x: number) => string,
): string {
  if (value !== null) return show(value);
  return resolved === 0 ? "none: nothing resolved" : NOT_RECORDED;
}

/**
 * The leaderboard: one row per agent in `summary.leaderboard` order with its
 * rank (shared ranks; withheld agents and agents that resolved nothing
 * after, marked, unranked), the claim it may carry, its score over planned
 * tasks (a lower bound: a missing or invalid task counts as not resolved),
 * its resolved rate over scored episodes with the interval the verdicts
 * use, its invalid and missing shares, and its tokens and seconds per
 * resolved (and cost, with a price table) or "not recorded" (a column no
 * agent recorded gives way to one sentence). Capability
 * numbers of a withheld agent are "not stated"; the shares that withhold
 * them are shown. Then the rank rule and one line per cause that withholds
 * an agent.
 *
 * @param summary the computed summary
 * @returns the blocks (empty without agents)
 */
export function leaderboardBlocks(summary: ReportSummary): Block[] {
  if (summary.agents.length === 0) return [];
  const agents = new Map(summary.agents.map((a) => [a.agent_id, a]));
  const standings = new Map(summary.standings.map((s) => [s.agent_id, s]));
  const intervals = new Map(summary.intervals.map((i) => [i.agent_id, i]));
  const coverage = new Map((summary.coverage ?? []).map((c) => [c.agent_id, c]));
  const priced = summary.inputs.price_table !== null;
  const denominator = summary.denominator !== null;
  const header = [
    "rank",
    "agent",
    "claim",
    denominator ? `${SCORE_WORDS.planned} (lower bound)` : SCORE_WORDS.planned,
    SCORE_WORDS.scored,
    "95% interval",
    "invalid",
    "missing",
  ];
  // Columns of figures no agent recorded give way to one sentence under the table.
  const tokens = summary.agents.some((a) => a.tpr !== null);
  const seconds = summary.agents.some((a) => a.spr !== null);
  if (tokens) header.push("tokens per resolved");
  if (seconds) header.push("seconds per resolved");
  if (priced) header.push(`cost per resolved (${summary.inputs.price_table!.currency})`);
  const rows = summary.leaderboard.map((place) => {
    const a = agents.get(place.agent_id)!;
    const standing = standings.get(place.agent_id)!;
    const c = coverage.get(place.agent_id);
    const stated = standing.withheld === null;
    const rank = place.rank === null ? UNRANKED[place.unranked!] : String(place.rank);
    const planned = c === undefined
      ? "no task list"
      : `${percent(c.score_planned)} (${integer(c.resolved)} of ${integer(c.planned)})`;
    const scored = a.scored === 0
      ? "none scored"
      : `${percent(a.resolved_rate)} (${integer(a.resolved)} of ${integer(a.scored)})`;
    const cells = [
      rank,
      displayId(place.agent_id),
      claimLabel(standing),
      stated ? planned : NOT_STATED,
      stated ? scored : NOT_STATED,
      stated ? intervalCell(intervals.get(place.agent_id)!) : NOT_STATED,
      a.invalid === 0 ? "0" : `${integer(a.invalid)} (${percent(a.invalid_rate)})`,
      c === undefined
        ? "-"
        : c.missing === 0
        ? "0"
        : `${integer(c.missing)} (${percent(c.missing_rate)})`,
    ];
    if (tokens) {
      cells.push(
        stated
          ? perResolvedCell(
            a.tpr,
            a.resolved,
            (x) => integer(x) + (a.agent_reported_token_rows > 0 ? AGENT_REPORTED : ""),
          )
          : NOT_STATED,
      );
    }
    if (seconds) {
      cells.push(stated ? perResolvedCell(a.spr, a.resolved, (x) => decimal(x, 1)) : NOT_STATED);
    }
    if (priced) {
      cells.push(
        stated ? perResolvedCell(a.cost?.cost_per_resolved ?? null, a.resolved, money) : NOT_STATED,
      );
    }
    return cells;
  });
  const blocks: Block[] = [
    {
      kind: "table",
      header,
      align: header.map((_, i) => i === 1 || i === 2 ? "left" : "right"),
      rows,
    },
    {
      kind: "paragraph",
      text: `${RANK_RULE} ${
        denominator
          ? "The score over planned tasks counts every planned task without a scored row " +
            "(missing or invalid) as not resolved: a lower bound."
          : "No plan or task list: the score over planned tasks is not known, and a task " +
            "without a row is not counted."
      }${
        tokens && seconds
          ? ""
          : ` ${
            !tokens && !seconds
              ? "Tokens and seconds per resolved"
              : !tokens
              ? "Tokens per resolved"
              : "Seconds per resolved"
          }: ${NOT_RECORDED} for any agent (no column; seed 001's tie-breaks cannot decide).`
      } "${NOT_STATED}": a rule withholds the agent's capability numbers (below).`,
    },
  ];
  const causes = withheldByCause(summary);
  if (causes.length > 0) {
    blocks.push({ kind: "paragraph", text: "Withheld, one line per cause:" });
    blocks.push({ kind: "list", items: causes });
  }
  return blocks;
}

/** The withheld agents' claims, one line per cause: the agents and the rule. */
function withheldByCause(summary: ReportSummary): string[] {
  const claims = new Map(summary.claims.map((c) => [c.id, c]));
  const groups = new Map<WithheldCause, string[]>();
  for (const place of summary.leaderboard) {
    const cause = summary.standings.find((s) => s.agent_id === place.agent_id)?.withheld ?? null;
    if (cause === null) continue;
    if (!groups.has(cause)) groups.set(cause, []);
    groups.get(cause)!.push(place.agent_id);
  }
  return [...groups].map(([cause, ids]) => {
    const texts = ids.map((id) => claims.get(`agent:${id}`)!);
    return `${CAUSE_HEADINGS[cause]}: ${
      texts.map((c) => c.text.replace(/^("[^"]*"): resolved rate not stated: /, "$1: ")).join(
        "; ",
      )
    } (${texts[0].rule}).`;
  });
}

/** The heading word of each cause, as the rank column and `claimLabel` say it. */
const CAUSE_HEADINGS: Record<WithheldCause, string> = {
  validation: "Ledger not valid against the plan",
  nothing_scored: "Nothing scored",
  invalid: "Invalid attempts above the policy",
  flagged: "Flagged resolutions above the policy",
  censoring: "Censoring above the policy",
  judge_faults: "Judge faults above the policy",
  missing: "Missing tasks above the policy",
};

/** The matrix's cell words, and the legend under it. */
export const VERDICT_CELLS = {
  self: "",
  win_rate: "▲",
  lose_rate: "▼",
  win_tie_break: "△",
  lose_tie_break: "▽",
  no_winner: "=",
  nothing_resolved: "∅",
  not_stated: "·",
} as const;

/**
 * Seed 001's verdict between two agents as the matrix's cell, read from the
 * row agent's side: ▲ / ▼ the row's agent has the higher / lower resolved
 * rate (separated intervals), △ / ▽ it wins / loses on a tie-break (tokens
 * or seconds per resolved, intervals overlapping), = no winner, ∅ an agent
 * resolved nothing (no ranking), · not stated (a withheld agent).
 *
 * @param comparison the pair's verdict, or undefined on the diagonal
 * @param row the row's agent
 * @param stated whether both agents' numbers may be stated
 * @returns the cell
 */
export function verdictCell(
  comparison: Comparison | undefined,
  row: string,
  stated: boolean,
): string {
  if (comparison === undefined) return VERDICT_CELLS.self;
  if (!stated) return VERDICT_CELLS.not_stated;
  if (comparison.rule === "no_resolved") return VERDICT_CELLS.nothing_resolved;
  if (comparison.winner === null) return VERDICT_CELLS.no_winner;
  const won = comparison.winner === row;
  if (comparison.rule === "rate_interval") {
    return won ? VERDICT_CELLS.win_rate : VERDICT_CELLS.lose_rate;
  }
  return won ? VERDICT_CELLS.win_tie_break : VERDICT_CELLS.lose_tie_break;
}

/**
 * The pairwise verdicts as a matrix: agents in leaderboard order down and
 * across (numbered, the columns keyed by the row numbers), each cell the
 * row agent's verdict against the column agent ({@link verdictCell}), a
 * legend, and one line per cause for the pairs not stated. The sentence of
 * each pair stays in the Comparisons section and in summary.json.
 *
 * @param summary the computed summary
 * @returns the blocks (empty with fewer than two agents)
 */
export function verdictMatrixBlocks(summary: ReportSummary): Block[] {
  if (summary.leaderboard.length < 2) return [];
  const ids = summary.leaderboard.map((p) => p.agent_id);
  const withheld = new Set(
    summary.standings.filter((s) => s.withheld !== null).map((s) => s.agent_id),
  );
  const pairs = new Map<string, Comparison>();
  for (const c of summary.comparisons) {
    pairs.set(`${c.a.agent_id}\u0000${c.b.agent_id}`, c);
    pairs.set(`${c.b.agent_id}\u0000${c.a.agent_id}`, c);
  }
  const rows = ids.map((row, i) => [
    String(i + 1),
    displayId(row),
    ...ids.map((column) =>
      column === row ? VERDICT_CELLS.self : verdictCell(
        pairs.get(`${row}\u0000${column}`),
        row,
        !withheld.has(row) && !withheld.has(column),
      )
    ),
  ]);
  const legend = `Read across: the row's agent against the column's (columns numbered as the ` +
    `rows). ${VERDICT_CELLS.win_rate} / ${VERDICT_CELLS.lose_rate}: its resolved rate is higher / ` +
    `lower, the 95% intervals separated; ${VERDICT_CELLS.win_tie_break} / ` +
    `${VERDICT_CELLS.lose_tie_break}: the intervals overlap and it wins / loses on fewer tokens ` +
    `or seconds per resolved (beyond the tie band); ${VERDICT_CELLS.no_winner}: no winner (the ` +
    `intervals overlap and no tie-break decides); ${VERDICT_CELLS.nothing_resolved}: an agent ` +
    `resolved nothing, no ranking; ${VERDICT_CELLS.not_stated}: not stated (a withheld agent). ` +
    "Seed 001's rule; each pair's sentence is in the Comparisons section.";
  const blocks: Block[] = [
    {
      kind: "table",
      header: ["#", "agent", ...ids.map((_, i) => String(i + 1))],
      align: ["right", "left", ...ids.map(() => "center" as const)],
      rows,
    },
    { kind: "paragraph", text: legend },
  ];
  const notStated = summary.claims.filter((c) => c.id.startsWith("pairs-withheld:"));
  if (notStated.length > 0) {
    blocks.push({
      kind: "list",
      items: notStated.map((c) => `${c.text} (${c.rule}).`),
    });
  }
  return blocks;
}
