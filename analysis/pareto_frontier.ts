/**
 * The Pareto frontier of a set of agents on two axes: a cost to minimise and a
 * benefit to maximise (seed 001: rank by cost, not by pass rate alone; the
 * frontier shows which agents no other agent beats on both at once).
 *
 * @module
 */

/** How to read the two coordinates of a point. */
export interface ParetoFrontierOptions<T> {
  /** The coordinate to minimise (cost, tokens); non-finite values leave the point out. */
  cost: (point: T) => number | null | undefined;
  /** The coordinate to maximise (resolved rate); non-finite values leave the point out. */
  benefit: (point: T) => number | null | undefined;
}

/**
 * The points no other point dominates, ordered by cost ascending.
 *
 * Rule: `q` dominates `p` when `cost(q) <= cost(p)` and `benefit(q) >=
 * benefit(p)` with at least one inequality strict. Points with equal cost and
 * benefit do not dominate each other, so duplicates of a frontier point are all
 * on the frontier. A point whose cost or benefit is null, undefined, NaN or
 * infinite (for example tokens per resolved when nothing resolved) is neither
 * on the frontier nor dominates anything. Textbook definition of Pareto
 * optimality for a bi-objective minimise/maximise problem.
 *
 * Cost: O(n log n) (one sort, one sweep). Ties in the output keep input order.
 *
 * @param points the candidates, in any order
 * @param options accessors for the cost (minimised) and the benefit (maximised)
 * @returns the non-dominated points, by cost ascending, then benefit descending
 * @example
 * ```ts
 * import { paretoFrontier } from "./pareto_frontier.ts";
 * const agents = [
 *   { id: "a", cost: 1, rate: 0.5 },
 *   { id: "b", cost: 2, rate: 0.4 }, // dominated by a: dearer and worse
 *   { id: "c", cost: 3, rate: 0.9 },
 * ];
 * const front = paretoFrontier(agents, { cost: (p) => p.cost, benefit: (p) => p.rate });
 * if (front.map((p) => p.id).join() !== "a,c") throw new Error("frontier");
 * ```
 */
export function paretoFrontier<T>(points: readonly T[], options: ParetoFrontierOptions<T>): T[] {
  const usable: { point: T; cost: number; benefit: number; index: number }[] = [];
  points.forEach((point, index) => {
    const cost = options.cost(point);
    const benefit = options.benefit(point);
    if (typeof cost !== "number" || !Number.isFinite(cost)) return;
    if (typeof benefit !== "number" || !Number.isFinite(benefit)) return;
    usable.push({ point, cost, benefit, index });
  });
  usable.sort((p, q) => p.cost - q.cost || q.benefit - p.benefit || p.index - q.index);
  const frontier: T[] = [];
  let best = -Infinity;
  let lastCost = NaN;
  let lastBenefit = NaN;
  for (const item of usable) {
    if (item.benefit > best) {
      frontier.push(item.point);
      best = item.benefit;
      lastCost = item.cost;
      lastBenefit = item.benefit;
    } else if (item.cost === lastCost && item.benefit === lastBenefit) {
      // An exact duplicate of the last frontier point: neither dominates the other.
      frontier.push(item.point);
    }
  }
  return frontier;
}
