/**
 * Each agent's rows verified in Harbor's shared mode and its resolved rows
 * that carry a hijack flag, and the claim the flagged rate allows.
 *
 * A flag (`verification.hijacks`) says the candidate changed something the
 * test run trusts (a conftest, the loader's configuration, the
 * interpreter, a program on `PATH`, the tests themselves) or left a process
 * writing the verifier's logs: the verdict stands, but a resolved row so
 * flagged may have been resolved by the change rather than by the answer
 * (seed 000: nothing the candidate writes may reach the verifier). Such
 * rows are held to seed 003's bands the way censored rows are: the rate is
 * flagged resolved rows over scored rows, a headline needs it under
 * `headline_max`, and above `labelled_max` no capability claim is stated.
 * A flagged failure is not held (it lowers no score).
 *
 * Rows verified in shared mode (the tests ran in the candidate's own
 * container beside what it left running) are counted too, so that every
 * output can say how many verdicts are of that weaker kind.
 *
 * @module
 */
import { type CensoringClaim, censoringClaim } from "./censoring.ts";
import type { CensoringPolicy, Episode } from "./schema/records.ts";

/** One agent's (or `"*"`: the whole run's) shared-mode and flagged rows; plain JSON data. */
export interface FlaggedRow {
  agent_id: string;
  /** Scored rows. */
  scored: number;
  /** Scored rows verified in Harbor's shared mode. */
  shared: number;
  /** Scored rows that resolved. */
  resolved: number;
  /** Resolved rows with at least one hijack flag. */
  flagged_resolved: number;
  /** flagged_resolved / scored; null without scored rows. */
  flagged_rate: number | null;
  /** The claim `flagged_rate` allows under the policy; null without scored rows. */
  claim: CensoringClaim | null;
}

/** Every agent's row, sorted by id, and the whole run's. */
export interface FlaggedSummary {
  /** The thresholds the rates were held to. */
  policy: CensoringPolicy;
  agents: FlaggedRow[];
  overall: FlaggedRow;
}

interface Tally {
  scored: number;
  shared: number;
  resolved: number;
  flagged: number;
}

/**
 * Counts each agent's shared-mode and flagged rows and holds the flagged
 * rate to the policy's bands (see the module doc). Invalid rows are not
 * counted (they are in no score). O(rows + agents log agents).
 *
 * @param rows the counted rows
 * @param policy the thresholds (seed 003's bands)
 * @returns the summary
 * @example
 * ```ts
 * import { flaggedSummary } from "./flagged_rows.ts";
 * import { CensoringPolicy } from "./schema/records.ts";
 * const verification = {
 *   mode: "shared" as const, reward: null, reward_file: null, decided_by: null,
 *   hijacks: [{ flag: "conftest" as const, path: "/app/conftest.py" }],
 *   egress_allowed: 0, egress_denied: 0,
 * };
 * const row = { agent_id: "a", status: "scored", resolved: true, verification };
 * const summary = flaggedSummary([row, { ...row, verification: undefined }] as never, CensoringPolicy.parse({}));
 * if (summary.agents[0].flagged_rate !== 0.5 || summary.agents[0].shared !== 1) throw new Error();
 * if (summary.agents[0].claim !== "budget_adequacy_only") throw new Error();
 * ```
 */
export function flaggedSummary(
  rows: Iterable<Episode>,
  policy: CensoringPolicy,
): FlaggedSummary {
  const tallies = new Map<string, Tally>();
  const overall: Tally = { scored: 0, shared: 0, resolved: 0, flagged: 0 };
  for (const row of rows) {
    if (row.status !== "scored") continue;
    let tally = tallies.get(row.agent_id);
    if (tally === undefined) {
      tallies.set(row.agent_id, tally = { scored: 0, shared: 0, resolved: 0, flagged: 0 });
    }
    for (const t of [tally, overall]) {
      t.scored++;
      if (row.verification?.mode === "shared") t.shared++;
      if (row.resolved === true) {
        t.resolved++;
        if ((row.verification?.hijacks.length ?? 0) > 0) t.flagged++;
      }
    }
  }
  const ids = [...tallies.keys()].sort(); // strings sort by UTF-16 code units
  return {
    policy,
    agents: ids.map((id) => finish(id, tallies.get(id)!, policy)),
    overall: finish("*", overall, policy),
  };
}

function finish(agentId: string, tally: Tally, policy: CensoringPolicy): FlaggedRow {
  const rate = tally.scored === 0 ? null : tally.flagged / tally.scored;
  return {
    agent_id: agentId,
    scored: tally.scored,
    shared: tally.shared,
    resolved: tally.resolved,
    flagged_resolved: tally.flagged,
    flagged_rate: rate,
    claim: rate === null ? null : censoringClaim(rate, policy),
  };
}
