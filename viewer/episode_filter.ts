/**
 * The episode table's filters: by agent, task id (contains),
 * outcome (resolved, failed, invalid), stop reason and invalid reason, read
 * from a page's query. Pure.
 *
 * @module
 */
import type { Episode } from "../analysis/schema/records.ts";

/** An episode's outcome as the table shows it. */
export type Outcome = "resolved" | "failed" | "invalid";

/** The outcomes, in the order the filter lists them. */
export const OUTCOMES: readonly Outcome[] = ["resolved", "failed", "invalid"];

/** The filters; an absent one matches every row. */
export interface EpisodeFilter {
  agent?: string;
  /** A search: the rows whose task id contains it. */
  task?: string;
  outcome?: Outcome;
  stop?: string;
  invalid?: string;
}

/** The filter names, as the query spells them. */
export const FILTER_NAMES = ["agent", "task", "outcome", "stop", "invalid"] as const;

/**
 * A row's outcome: `invalid` for an invalid attempt (never scored),
 * `resolved` for a scored success, `failed` for a scored failure.
 *
 * @param row the ledger row
 * @returns its outcome
 * @example
 * ```ts
 * import { outcomeOf } from "./episode_filter.ts";
 * if (outcomeOf({ status: "scored", resolved: false }) !== "failed") throw new Error();
 * ```
 */
export function outcomeOf(row: Pick<Episode, "status" | "resolved">): Outcome {
  if (row.status === "invalid") return "invalid";
  return row.resolved === true ? "resolved" : "failed";
}

/**
 * The filters a query names; an empty value, or an outcome that is not one
 * of {@link OUTCOMES}, is no filter.
 *
 * @param query the page's query
 * @returns the filters
 */
export function parseFilter(query: URLSearchParams): EpisodeFilter {
  const filter: EpisodeFilter = {};
  for (const name of FILTER_NAMES) {
    const value = query.get(name);
    if (value === null || value === "") continue;
    if (name === "outcome") {
      if ((OUTCOMES as readonly string[]).includes(value)) filter.outcome = value as Outcome;
    } else filter[name] = value;
  }
  return filter;
}

/**
 * Whether a row passes every filter (exact matches, but `task` a search:
 * the task id contains it; `invalid` is the row's `invalid_reason`, `stop`
 * its `stop_reason`). Row by row: the pages ask `EpisodeIndex.query`,
 * which answers the same.
 *
 * @param row the ledger row
 * @param filter the filters
 * @returns true when it passes all of them
 * @example
 * ```ts
 * import { matchesFilter } from "./episode_filter.ts";
 * const row = { agent_id: "a", task_id: "t", status: "scored", resolved: true,
 *   stop_reason: "completed", invalid_reason: null } as const;
 * if (!matchesFilter(row, { agent: "a", outcome: "resolved" })) throw new Error();
 * if (matchesFilter(row, { invalid: "harness_error" })) throw new Error();
 * ```
 */
export function matchesFilter(
  row: Pick<
    Episode,
    "agent_id" | "task_id" | "status" | "resolved" | "stop_reason" | "invalid_reason"
  >,
  filter: EpisodeFilter,
): boolean {
  return (filter.agent === undefined || row.agent_id === filter.agent) &&
    (filter.task === undefined || row.task_id.includes(filter.task)) &&
    (filter.outcome === undefined || outcomeOf(row) === filter.outcome) &&
    (filter.stop === undefined || row.stop_reason === filter.stop) &&
    (filter.invalid === undefined || row.invalid_reason === filter.invalid);
}
