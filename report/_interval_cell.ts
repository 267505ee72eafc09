/**
 * An agent's interval as the report's tables print it (the per-agent table
 * and the leaderboard alike). Private to `report/`.
 *
 * @module
 */
import { percentInterval } from "./format.ts";
import type { ReportSummary } from "./report_model.ts";

/**
 * An agent's interval as the per-agent table prints it: the one the verdicts
 * use (Wilson in place of a collapsed bootstrap), named unless it is seed
 * 001's bootstrap, and under the default method's coverage warning the
 * Wilson interval beside it.
 *
 * @param interval the agent's interval record
 * @returns the cell
 */
export function intervalCell(interval: ReportSummary["intervals"][number]): string {
  if (interval.rule === null) return "-";
  const used = interval.wilson !== null
    ? `Wilson ${percentInterval(interval.wilson)}`
    : interval.method === "percentile-bootstrap"
    ? percentInterval(interval.rule)
    : `${interval.method} ${percentInterval(interval.rule)}`;
  const warning = interval.coverage_warning;
  return warning === null || interval.wilson !== null
    ? used
    : `${used} (few episodes: Wilson ${percentInterval(warning.wilson)})`;
}
