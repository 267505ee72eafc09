/**
 * The order of every per-agent CLI table (issue 25: tables were
 * alphabetical, and a withheld agent read as ranked): the leaderboard of
 * `analysis/leaderboard.ts` (rank = 1 + the stated agents that beat the
 * agent by seed 001's verdicts, overlapping agents sharing a rank;
 * withheld agents and agents that resolved nothing listed last, never
 * ranked), sorted within a rank by the score over planned tasks when a
 * denominator is known, else by the resolved rate (`leaderboardOfAgents`,
 * the report's call too). `summarize`, `compare`, `censoring` and
 * `coverage` all call `agentOrder` (analysis/leaderboard.ts), so their rows
 * come in one order with one rank, the report's; this module holds the
 * columns and the note every such table shares.
 *
 * @module
 */

/**
 * The rank column of every per-agent table: right-aligned, a key column
 * (repeated when a table folds), never moved.
 */
export const RANK_COLUMN = { header: "rank", align: "right", key: true } as const;

/** The agent column of every per-agent table: an id, a key, listed in full when shortened. */
export const AGENT_COLUMN = { header: "agent", id: true, key: true, keyed: true } as const;

/** The line under a ranked table saying what the rank is (seed 001's rule). */
export const RANK_NOTE =
  "rank: 1 + the agents that beat it by seed 001's rule (overlapping intervals share a " +
  "rank); withheld agents and agents that resolved nothing are listed last, unranked (-)\n";
