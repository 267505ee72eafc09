/**
 * Seed 001's ranking rule: no ranking without resolved tasks, a rate winner
 * only when the 95% intervals are separated, then tokens per resolved, then
 * seconds per resolved, each outside a tie band, else a tie.
 *
 * @module
 */
import type { AgentSummary } from "./summarize_agents.ts";
import {
  type CoverageWarning,
  type IntervalMethod,
  type MethodRateInterval,
  rateInterval,
} from "./rate_interval.ts";
import { DEFAULT_BOOTSTRAP, DEFAULT_INTERVAL_METHOD, DEFAULT_TIE_BAND } from "./defaults.ts";
import {
  compareRationals,
  decimalRational,
  outsideRelativeBand,
  type Rational,
} from "./exact_ratio.ts";

/**
 * The columns of an {@link AgentSummary} the rule reads. `tokens` and
 * `wall_seconds` (the sums over scored rows) let the tie band be decided
 * exactly on TPR = tokens / resolved and SPR = wall_seconds / resolved;
 * without them the decision takes `tpr` and `spr` as the decimals they print as.
 */
export type ComparableAgent =
  & Pick<AgentSummary, "agent_id" | "scored" | "resolved" | "tpr" | "spr">
  & Partial<Pick<AgentSummary, "tokens" | "wall_seconds">>;

/** Options for {@link compareAgents} and {@link comparisonMatrix}. */
export interface CompareAgentsOptions {
  /** Relative tie band for TPR and SPR; default 0.10 (seed 001: "10% 以内"). */
  band?: number;
  /** Bootstrap rounds; default 2000 (seed 001). */
  rounds?: number;
  /** Bootstrap seed; default 7 (seed 001). */
  seed?: number | string;
  /** The rate interval of the verdict (the plan's `interval_method`); default `percentile-bootstrap`. */
  method?: IntervalMethod;
}

/** Which step of the rule decided. */
export type ComparisonRule = "no_resolved" | "rate_interval" | "tpr" | "spr" | "tie";

/** One side of a comparison; plain JSON data, keys in this order. */
export interface ComparisonSide {
  /** The agent. */
  agent_id: string;
  /** Scored episodes. */
  scored: number;
  /** Resolved episodes. */
  resolved: number;
  /** resolved / scored; null when nothing was scored. */
  rate: number | null;
  /** Tokens per resolved, as given. */
  tpr: number | null;
  /** Seconds per resolved, as given. */
  spr: number | null;
  /** The interval of the rate by the comparison's `interval_method`; null when nothing was scored. */
  interval: { lower: number; upper: number; collapsed: boolean } | null;
  /** Wilson 95% interval, reported only beside a collapsed bootstrap interval (it then decides). */
  wilson: { lower: number; upper: number } | null;
  /** The interval the rule used: `wilson` when given, else `interval`; null when nothing was scored. */
  rule_interval: { method: IntervalMethod; lower: number; upper: number } | null;
  /** The percentile bootstrap's coverage warning with the Wilson interval to print beside it; else null. */
  coverage_warning: CoverageWarning | null;
}

/** The verdict of seed 001's rule for two agents; plain JSON data, keys in this order. */
export interface Comparison {
  /** The first agent. */
  a: ComparisonSide;
  /** The second agent. */
  b: ComparisonSide;
  /** The step that decided. */
  rule: ComparisonRule;
  /** The winning agent id; null for `no_resolved` and `tie`. */
  winner: string | null;
  /** Agents with nothing resolved (then there is no ranking). */
  failed: string[];
  /** !(a.upper < b.lower || b.upper < a.lower); null when not evaluated. */
  intervals_overlap: boolean | null;
  /** |TPR a − TPR b| / min; null when not evaluated or when min is 0 (infinite). */
  tpr_relative_difference: number | null;
  /** |SPR a − SPR b| / min; null when not evaluated or when min is 0 (infinite). */
  spr_relative_difference: number | null;
  /**
   * Tie-breaks the rule could not use because a side's figure was not
   * recorded (issue 11: imported rows without tokens or times), in rule
   * order; empty when every step it reached could be used.
   */
  tie_breaks_not_recorded: ("tpr" | "spr")[];
  /** Relative tie band used for TPR and SPR. */
  band: number;
  /** Bootstrap rounds R. */
  rounds: number;
  /** Bootstrap seed of `seededRandom`. */
  seed: number | string;
  /** True when either bootstrap interval collapsed to a point (see the `wilson` fields). */
  collapsed: boolean;
  /** The rate interval method of the verdict (the plan's `interval_method`). */
  interval_method: IntervalMethod;
}

/**
 * Compares two agents by seed 001's rule ("第三步：区间重叠时拒绝宣布赢家").
 *
 * Rule, in order; the first that applies fires and is recorded in `rule`:
 * 1. `no_resolved`: either agent resolved nothing → it has no TPR; report the
 *    failure (`failed`), no ranking, `winner` null.
 * 2. `rate_interval`: the two 95% intervals of the resolved rate the rule
 *    uses (`rule_interval`, by `method`, see {@link rateInterval}: the
 *    percentile bootstrap of seed 001 by default, each agent resampled from
 *    a fresh `seededRandom(seed)`, or the Wilson interval printed beside it
 *    when it collapses; Wilson or Clopper–Pearson when the plan says so) are
 *    separated, i.e. not overlap = !(a.upper < b.lower || b.upper < a.lower):
 *    the higher interval wins.
 * 3. `tpr`: intervals overlap (no rate winner); the relative difference of
 *    tokens per resolved, d = |TPR a − TPR b| / min(TPR a, TPR b), exceeds the
 *    band (d > band, i.e. the larger is more than (1 + band) × the smaller; equal
 *    values give d = 0; a zero minimum with a positive other gives d = ∞,
 *    recorded as null): the lower TPR wins. The test is exact (issue 13,
 *    item 1): TPR = tokens / resolved as a rational and the band as the
 *    decimal it was written as ({@link outsideRelativeBand}), so 77,000 against
 *    70,000 tokens over 3 resolved each is exactly 10% apart and ties; the
 *    recorded d is the floating-point quotient, for display.
 * 4. `spr`: otherwise the same exact test on seconds per resolved
 *    (wall_seconds, the integer milliseconds / 1000, over resolved): the lower SPR wins.
 * 5. `tie`: otherwise.
 *
 * A TPR or SPR that was not recorded (null although the agent resolved
 * something: imported rows without tokens or times, issue 11) is never
 * read as zero: that tie-break is skipped and named in
 * `tie_breaks_not_recorded`, and the rule goes on to the next step; when no
 * tie-break could be used the verdict is `tie` (no winner), with both named.
 *
 * When a rate is 0% or 100%, its bootstrap interval collapses to a point; the
 * side then also carries a Wilson 95% interval and `collapsed` is true, and the
 * rule uses that Wilson interval, the one printed for the verdict (issue 13,
 * item 5: 10/10 against 6/10 has no rate winner, Wilson [72.2%, 100%] overlapping
 * [30%, 90%]; Fisher's exact p is 0.087). Under the default method a side whose
 * n or count is too small for the bootstrap to cover carries a
 * `coverage_warning` with the Wilson interval to print beside it.
 * Cost: two intervals (bootstraps: O(n + R log n) each).
 *
 * @param a first agent (e.g. an {@link AgentSummary})
 * @param b second agent
 * @param options `band` (default 0.10), `rounds` (default 2000), `seed` (default 7),
 *   `method` (default `percentile-bootstrap`)
 * @returns the verdict with the rule that fired, both intervals and the winner
 * @throws {RangeError} when both agents have the same id, or `band` is not in [0, ∞)
 * @example
 * ```ts
 * import { compareAgents } from "./compare_agents.ts";
 * // seed 001 sample: a 3/4, TPR 7766.67, SPR 43; b 2/4, TPR 3750, SPR 8.5
 * const a = { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 };
 * const b = { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 8.5 };
 * const verdict = compareAgents(a, b);
 * if (verdict.rule !== "tpr" || verdict.winner !== "b") throw new Error(JSON.stringify(verdict));
 * ```
 */
export function compareAgents(
  a: ComparableAgent,
  b: ComparableAgent,
  options: CompareAgentsOptions = {},
): Comparison {
  const settings = settle(options);
  return decide(side(a, settings), side(b, settings), settings);
}

/**
 * Seed 001's rule ({@link compareAgents}) for every pair of agents.
 *
 * Pairs are (agents[i], agents[j]) for i < j after sorting the agents by
 * `agent_id` (UTF-16 code unit order), so `a` is always the smaller id. Each
 * agent's bootstrap interval is computed once (it does not depend on the
 * pair). Cost: one bootstrap per agent plus O(agents²).
 *
 * @param agents the agents (e.g. the output of `summarizeAgents`)
 * @param options `band` (default 0.10), `rounds` (default 2000), `seed` (default 7),
 *   `method` (default `percentile-bootstrap`)
 * @returns one {@link Comparison} per pair, sorted by (a, b)
 * @throws {RangeError} when two agents share an id, or `band` is not in [0, ∞)
 * @example
 * ```ts
 * import { comparisonMatrix } from "./compare_agents.ts";
 * const pairs = comparisonMatrix([
 *   { agent_id: "c", scored: 4, resolved: 0, tpr: null, spr: null },
 *   { agent_id: "a", scored: 4, resolved: 3, tpr: 23300 / 3, spr: 43 },
 *   { agent_id: "b", scored: 4, resolved: 2, tpr: 3750, spr: 8.5 },
 * ]);
 * if (pairs.map((p) => p.a.agent_id + p.b.agent_id + p.rule).join() !== "abtpr,acno_resolved,bcno_resolved") {
 *   throw new Error("order");
 * }
 * ```
 */
export function comparisonMatrix(
  agents: readonly ComparableAgent[],
  options: CompareAgentsOptions = {},
): Comparison[] {
  const settings = settle(options);
  const sorted = [...agents].sort((x, y) =>
    x.agent_id < y.agent_id ? -1 : x.agent_id > y.agent_id ? 1 : 0
  );
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].agent_id === sorted[i - 1].agent_id) {
      throw new RangeError(`Cannot compare agents: agent "${sorted[i].agent_id}" appears twice`);
    }
  }
  const sides = sorted.map((agent) => side(agent, settings));
  const pairs: Comparison[] = [];
  for (let i = 0; i < sides.length; i++) {
    for (let j = i + 1; j < sides.length; j++) pairs.push(decide(sides[i], sides[j], settings));
  }
  return pairs;
}

interface Settings {
  band: number;
  /** `band` as the decimal it was written as. */
  exactBand: Rational;
  rounds: number;
  seed: number | string;
  method: IntervalMethod;
}

/** A side and the exact figures the tie band is decided on (null: not recorded). */
interface ExactSide {
  side: ComparisonSide;
  tpr: Rational | null;
  spr: Rational | null;
}

function settle(options: CompareAgentsOptions): Settings {
  const band = options.band ?? DEFAULT_TIE_BAND;
  if (!(Number.isFinite(band) && band >= 0)) {
    throw new RangeError(
      `Cannot compare agents: "band" must be a non-negative number, got ${band}`,
    );
  }
  return {
    band,
    exactBand: decimalRational(band),
    rounds: options.rounds ?? DEFAULT_BOOTSTRAP.rounds,
    seed: options.seed ?? DEFAULT_BOOTSTRAP.seed,
    method: options.method ?? DEFAULT_INTERVAL_METHOD,
  };
}

function side(agent: ComparableAgent, settings: Settings): ExactSide {
  const { scored, resolved } = agent;
  if (
    !(Number.isSafeInteger(scored) && Number.isSafeInteger(resolved) && 0 <= resolved &&
      resolved <= scored)
  ) {
    throw new RangeError(
      `Cannot compare agent "${agent.agent_id}": "resolved" and "scored" must be integers ` +
        `with 0 <= resolved <= scored, got ${resolved} and ${scored}`,
    );
  }
  const rate: MethodRateInterval = rateInterval(resolved, scored, settings);
  const interval: ComparisonSide["interval"] = rate.interval === null
    ? null
    : { lower: rate.interval.lower, upper: rate.interval.upper, collapsed: rate.collapsed };
  const w = rate.wilson;
  const wilson: ComparisonSide["wilson"] = w === null ? null : { lower: w.lower, upper: w.upper };
  const s: ComparisonSide = {
    agent_id: agent.agent_id,
    scored: agent.scored,
    resolved: agent.resolved,
    rate: agent.scored === 0 ? null : agent.resolved / agent.scored,
    tpr: agent.tpr,
    spr: agent.spr,
    interval,
    wilson,
    rule_interval: rate.rule,
    coverage_warning: rate.coverage_warning,
  };
  return {
    side: s,
    tpr: exactPerResolved(s, "tpr", agent.tokens),
    spr: exactPerResolved(s, "spr", agent.wall_seconds),
  };
}

/**
 * Whether two agents' tokens (or seconds) per resolved lie within the tie
 * band of each other, decided exactly as the comparison rule decides it
 * ({@link outsideRelativeBand} on TPR = tokens / resolved, SPR =
 * wall_seconds / resolved), for the figures that mark the band (issue 13,
 * item 1). O(digits²).
 *
 * @param x one agent (`tokens` or `wall_seconds` given, for exactness)
 * @param y the other
 * @param field `tpr` or `spr`
 * @param band the relative band (e.g. the plan's `tie_band`)
 * @returns true within the band, false outside, null when either has no value
 */
export function withinTieBand(
  x: ComparableAgent,
  y: ComparableAgent,
  field: "tpr" | "spr",
  band: number,
): boolean | null {
  // Only the exact values: no rate interval (a bootstrap) is computed for the band.
  const sums = { tpr: "tokens", spr: "wall_seconds" } as const;
  const a = exactPerResolved(x, field, x[sums[field]]);
  const b = exactPerResolved(y, field, y[sums[field]]);
  return a === null || b === null ? null : !outsideRelativeBand([a, b], settle({ band }).exactBand);
}

/** What an agent's exact TPR and SPR are read from (a side of a comparison, or the agent). */
type PerResolvedFigures = Pick<ComparableAgent, "agent_id" | "resolved" | "tpr" | "spr">;

/**
 * TPR or SPR as an exact rational: the sum (`tokens`, or `wall_seconds` as
 * its decimal, i.e. integer ms / 1000) over resolved when the sum is given,
 * else the figure as the decimal it prints as; null when not recorded.
 */
function exactPerResolved(
  s: PerResolvedFigures,
  field: "tpr" | "spr",
  sum: number | null | undefined,
): Rational | null {
  if (s[field] === null || s.resolved === 0) return null;
  const figure = required(s, field);
  if (sum === undefined || sum === null) return decimalRational(figure);
  if (!(Number.isFinite(sum) && sum >= 0)) {
    throw new RangeError(
      `Cannot compare agent "${s.agent_id}": the sum behind "${field}" must be a non-negative ` +
        `number, got ${sum}`,
    );
  }
  const total = decimalRational(sum);
  return { numerator: total.numerator, denominator: total.denominator * BigInt(s.resolved) };
}

/**
 * The relative difference seed 001's tie band is tested on ("10% 以内"):
 * d = |x − y| / min(x, y); 0 when x = y; null (d = ∞) when the minimum is 0
 * and the other is not, or when the quotient overflows (a huge value over a
 * tiny one), so that no infinite number reaches a verdict or its JSON. It is
 * the figure printed beside a verdict; the verdict itself decides d ≤ band
 * exactly ({@link outsideRelativeBand}), since in floating point 77,000 vs
 * 70,000 gives d = 0.10000000000000009 > 0.1. O(1).
 *
 * @param x one agent's value (tokens or seconds per resolved), non-negative
 * @param y the other agent's value, non-negative
 * @returns d, or null when it is infinite
 * @example
 * ```ts
 * import { relativeDifference } from "./compare_agents.ts";
 * // 7,767 vs 3,750 tokens per resolved: (7767 − 3750) / 3750 ≈ 1.071, outside a 10% band.
 * if (Math.abs(relativeDifference(7767, 3750)! - 1.0712) > 1e-4) throw new Error();
 * if (relativeDifference(0, 5) !== null || relativeDifference(0, 0) !== 0) throw new Error();
 * ```
 */
export function relativeDifference(x: number, y: number): number | null {
  if (x === y) return 0;
  const min = Math.min(x, y);
  const d = min === 0 ? Infinity : Math.abs(x - y) / min;
  return Number.isFinite(d) ? d : null;
}

function decide(x: ExactSide, y: ExactSide, settings: Settings): Comparison {
  const a = x.side;
  const b = y.side;
  if (a.agent_id === b.agent_id) {
    throw new RangeError(`Cannot compare agent "${a.agent_id}" with itself`);
  }
  const notRecorded: ("tpr" | "spr")[] = [];
  const verdict = (
    rule: ComparisonRule,
    winner: string | null,
    overlap: boolean | null,
    tprDiff: number | null,
    sprDiff: number | null,
  ): Comparison => ({
    a,
    b,
    rule,
    winner,
    failed: [a, b].filter((s) => s.resolved === 0).map((s) => s.agent_id),
    intervals_overlap: overlap,
    tpr_relative_difference: tprDiff,
    spr_relative_difference: sprDiff,
    tie_breaks_not_recorded: notRecorded,
    band: settings.band,
    rounds: settings.rounds,
    seed: settings.seed,
    collapsed: a.interval?.collapsed === true || b.interval?.collapsed === true,
    interval_method: settings.method,
  });
  if (
    a.resolved === 0 || b.resolved === 0 || a.rule_interval === null || b.rule_interval === null
  ) {
    return verdict("no_resolved", null, null, null, null);
  }
  const ai = a.rule_interval;
  const bi = b.rule_interval;
  const overlap = !(ai.upper < bi.lower || bi.upper < ai.lower);
  if (!overlap) {
    return verdict(
      "rate_interval",
      ai.lower > bi.upper ? a.agent_id : b.agent_id,
      false,
      null,
      null,
    );
  }
  let tprDiff: number | null = null;
  if (x.tpr === null || y.tpr === null) {
    notRecorded.push("tpr");
  } else {
    tprDiff = relativeDifference(required(a, "tpr"), required(b, "tpr"));
    if (outsideRelativeBand([x.tpr, y.tpr], settings.exactBand)) {
      const lower = compareRationals(x.tpr, y.tpr) < 0 ? a : b;
      return verdict("tpr", lower.agent_id, true, tprDiff, null);
    }
  }
  if (x.spr === null || y.spr === null) {
    notRecorded.push("spr");
    return verdict("tie", null, true, tprDiff, null);
  }
  const sprDiff = relativeDifference(required(a, "spr"), required(b, "spr"));
  if (outsideRelativeBand([x.spr, y.spr], settings.exactBand)) {
    const lower = compareRationals(x.spr, y.spr) < 0 ? a : b;
    return verdict("spr", lower.agent_id, true, tprDiff, sprDiff);
  }
  return verdict("tie", null, true, tprDiff, sprDiff);
}

function required(s: PerResolvedFigures, field: "tpr" | "spr"): number {
  const value = s[field];
  if (value === null || !Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Cannot compare agent "${s.agent_id}": "${field}" must be a non-negative number ` +
        `when ${s.resolved} episodes resolved, got ${value}`,
    );
  }
  return value;
}
