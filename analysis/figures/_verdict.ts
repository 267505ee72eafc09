/**
 * One-line English renderings of seed 001's comparison verdicts, for figure
 * subtitles. They describe a {@link Comparison}; they never recompute it.
 *
 * Private to `analysis/figures/`.
 *
 * @module
 */
import type { Comparison, ComparisonRule } from "../compare_agents.ts";
import { formatPercentExact } from "../format_number.ts";
import { compact, grouped, percent } from "./_format.ts";
import { displayId, distinctShortIds } from "../untrusted_text.ts";

/** The short name of the step that decided, for cell labels. */
export const RULE_SHORT: Record<ComparisonRule, string> = {
  no_resolved: "no ranking",
  rate_interval: "rate",
  tpr: "tokens/resolved",
  spr: "seconds/resolved",
  tie: "tie",
};

function difference(value: number | null): string {
  return value === null ? "one is zero" : `${percent(value)} apart`;
}

function values(c: Comparison, field: "tpr" | "spr", unit: string): string {
  const show = (x: number | null) =>
    x === null ? "none" : field === "tpr" ? grouped(x) : compact(x);
  return `${show(c.a[field])} vs ${show(c.b[field])} ${unit}`;
}

/**
 * The verdict of one comparison as a sentence without final period, e.g.
 * `a vs b: intervals overlap, no rate winner; tokens per resolved 7,767 vs 3,750
 * tokens, 107.1% apart (band 10%): "b" wins`.
 */
export function verdictSentence(c: Comparison): string {
  // The two ids shortened together: never two different agents that look alike.
  const [a, b] = distinctShortIds([c.a.agent_id, c.b.agent_id]);
  const name = (id: string) => id === c.a.agent_id ? a : id === c.b.agent_id ? b : displayId(id);
  const pair = `${a} vs ${b}`;
  const band = formatPercentExact(c.band);
  const winner = name(c.winner ?? "");
  switch (c.rule) {
    case "no_resolved":
      return `${pair}: ${
        c.failed.map((id) => `"${name(id)}"`).join(" and ")
      } resolved nothing, so no tokens per resolved and no ranking`;
    case "rate_interval":
      return `${pair}: intervals separated: "${winner}" has the higher resolved rate`;
    case "tpr":
      return `${pair}: intervals overlap, no rate winner; tokens per resolved ` +
        `${values(c, "tpr", "tokens")}, ${difference(c.tpr_relative_difference)} ` +
        `(band ${band}): "${winner}" wins`;
    case "spr":
      return `${pair}: intervals overlap, no rate winner; tokens per resolved within ${band}; ` +
        `seconds per resolved ${values(c, "spr", "s")}, ` +
        `${difference(c.spr_relative_difference)}: "${winner}" wins`;
    case "tie":
      return `${pair}: intervals overlap, no rate winner; tokens and seconds per resolved ` +
        `both within ${band}: tie`;
  }
}

/**
 * A summary of many comparisons, e.g. `6 pairs: 4 overlap (no rate winner),
 * 2 separated; decided by rate 2, tokens/resolved 3, tie 1`.
 */
export function verdictSummary(comparisons: readonly Comparison[]): string {
  const overlap = comparisons.filter((c) => c.intervals_overlap === true).length;
  const separated = comparisons.filter((c) => c.intervals_overlap === false).length;
  const unranked = comparisons.length - overlap - separated;
  const counts = (Object.keys(RULE_SHORT) as ComparisonRule[])
    .map((rule) => [rule, comparisons.filter((c) => c.rule === rule).length] as const)
    .filter(([, n]) => n > 0)
    .map(([rule, n]) => `${RULE_SHORT[rule]} ${n}`);
  const parts = [`${overlap} overlap (no rate winner)`, `${separated} separated`];
  if (unranked > 0) parts.push(`${unranked} not ranked (nothing resolved)`);
  return `${comparisons.length} pairs: ${parts.join(", ")}; decided by ${counts.join(", ")}`;
}
