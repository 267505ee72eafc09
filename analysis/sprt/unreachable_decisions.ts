/**
 * Which decision branches of seed 002's truncated SPRT can never occur.
 *
 * @module
 */
import type { SprtParams } from "../schema/records.ts";
import {
  ADOPT,
  CAP_ADOPT,
  CAP_DROP,
  CONTINUE,
  decisionCode,
  DROP,
  sprtConstants,
} from "./_decide.ts";
import { parseSprtParams, type SprtParamsInput } from "./sprt_params.ts";
import { SPRT_FINAL_DECISIONS, type SprtFinalDecision } from "./sprt_decision.ts";

/** One boolean or number per final decision, in a fixed key order. */
export interface SprtPerDecision<T> {
  /** For "adopt". */
  adopt: T;
  /** For "drop". */
  drop: T;
  /** For "cap-adopt". */
  "cap-adopt": T;
  /** For "cap-drop". */
  "cap-drop": T;
}

/** The states at which a walk arrives at the cap without crossing a boundary. */
export interface SprtUndecidedAtCap {
  /** n_cap. */
  n: number;
  /** Number of distinct reachable (passes, fails) states there. */
  states: number;
  /** Fewest passes among those states. */
  min_passes: number;
  /** Most passes among those states. */
  max_passes: number;
  /** min_passes / n_cap. */
  min_pass_rate: number;
  /** max_passes / n_cap. */
  max_pass_rate: number;
}

/** Result of {@linkcode unreachableDecisions}. */
export interface SprtReachability {
  /** The complete parameters used. */
  params: SprtParams;
  /** Whether some reachable state of the walk yields the decision. */
  reachable: SprtPerDecision<boolean>;
  /** Smallest number of valid results at which the decision can occur, or null. */
  earliest: SprtPerDecision<number | null>;
  /** The decisions that can never occur, in the order adopt, drop, cap-adopt, cap-drop. */
  unreachable: SprtFinalDecision[];
  /** The reachable undecided states at the cap, or null when every walk decides earlier. */
  undecided_at_cap: SprtUndecidedAtCap | null;
  /** One human-readable sentence per unreachable branch (and for crossed boundaries). */
  warnings: string[];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const num = (x: number) => x.toFixed(4);
const passesText = (k: number) => `${k} ${k === 1 ? "pass" : "passes"}`;

/**
 * Finds the decision branches that can never occur with the given parameters,
 * exactly, and explains each in a warning.
 *
 * Method: enumerate every reachable state of the truncated walk. A state
 * (passes, fails) with n = passes + fails ≥ 1 is reachable when (passes − 1,
 * fails) or (passes, fails − 1) is reachable and still undecided (starting
 * from (0, 0)); each reachable state has positive probability for any true
 * rate strictly between 0 and 1, so a branch no reachable state yields has
 * probability 0 at every such rate. Seed 002's `decide` classifies each
 * state.
 *
 * Source: seed 002's critique: with the defaults a walk still undecided at
 * n = 60 has |passes − fails| ≤ 4, hence at most 32 passes (53.3% < 60%), so
 * `cap-adopt` never happens and every budget-exhausted undecided run ends as
 * `cap-drop`, a conservative policy that is not part of the SPRT's error
 * control.
 *
 * Cost: O(n_cap²) time, O(n_cap) memory.
 *
 * @param params SPRT parameters (absent fields take seed 002's defaults)
 * @returns reachability per decision, the undecided states at the cap, warnings
 * @throws {RangeError} on invalid parameters
 * @example
 * ```ts
 * import { unreachableDecisions } from "./unreachable_decisions.ts";
 * const r = unreachableDecisions({});
 * if (r.unreachable.join() !== "cap-adopt") throw new Error("seed 002: cap-adopt unreachable");
 * ```
 */
export function unreachableDecisions(params: SprtParamsInput = {}): SprtReachability {
  const p = parseSprtParams(params);
  const c = sprtConstants(p);
  const nCap = c.nCap;
  const earliestByCode: (number | null)[] = [null, null, null, null, null];
  // alive[s] = 1 when (s, n − s) is reachable and undecided.
  let alive = new Uint8Array(nCap + 2);
  let next = new Uint8Array(nCap + 2);
  alive[0] = 1;
  let capStates = 0, capMin = Infinity, capMax = -Infinity;
  for (let n = 1; n <= nCap; n++) {
    next.fill(0);
    let any = false;
    for (let s = 0; s <= n; s++) {
      const reached = (s > 0 && alive[s - 1] === 1) || (s < n && alive[s] === 1);
      if (!reached) continue;
      const code = decisionCode(c, { passes: s, fails: n - s });
      if (code === CONTINUE) {
        next[s] = 1;
        any = true;
        continue;
      }
      if (earliestByCode[code] === null) earliestByCode[code] = n;
      if (code === CAP_ADOPT || code === CAP_DROP) {
        capStates++;
        capMin = Math.min(capMin, s);
        capMax = Math.max(capMax, s);
      }
    }
    [alive, next] = [next, alive];
    if (!any) break;
  }
  const earliest: SprtPerDecision<number | null> = {
    adopt: earliestByCode[1],
    drop: earliestByCode[2],
    "cap-adopt": earliestByCode[3],
    "cap-drop": earliestByCode[4],
  };
  const reachable: SprtPerDecision<boolean> = {
    adopt: earliest.adopt !== null,
    drop: earliest.drop !== null,
    "cap-adopt": earliest["cap-adopt"] !== null,
    "cap-drop": earliest["cap-drop"] !== null,
  };
  const undecided: SprtUndecidedAtCap | null = capStates === 0 ? null : {
    n: nCap,
    states: capStates,
    min_passes: capMin,
    max_passes: capMax,
    min_pass_rate: capMin / nCap,
    max_pass_rate: capMax / nCap,
  };
  const unreachable = SPRT_FINAL_DECISIONS.filter((d) => !reachable[d]);
  return {
    params: p,
    reachable,
    earliest,
    unreachable,
    undecided_at_cap: undecided,
    warnings: explain(p, unreachable, undecided),
  };
}

function explain(
  p: SprtParams,
  unreachable: SprtFinalDecision[],
  undecided: SprtUndecidedAtCap | null,
): string[] {
  const c = sprtConstants(p);
  const warnings: string[] = [];
  const { upper, lower } = c.exact; // exactly: (1 − β)/α ≤ β/(1 − α) iff α + β ≥ 1
  if (upper.numerator * lower.denominator <= lower.numerator * upper.denominator) {
    warnings.push(
      `The boundaries do not bracket the start: with "alpha" + "beta" = ${
        num(p.alpha + p.beta)
      } ≥ 1 the upper boundary ${num(c.upper)} is not above the lower boundary ${
        num(c.lower)
      }, so the first result decides`,
    );
  }
  for (const d of unreachable) {
    if (d === "adopt" && decisionCode(c, { passes: p.n_cap, fails: 0 }) !== ADOPT) {
      warnings.push(
        `Decision "adopt" can never occur with these parameters: even ${
          passesText(p.n_cap)
        } in a row ` +
          `give LLR ${num(p.n_cap * c.llrPass)}, below the upper boundary ${num(c.upper)}`,
      );
    } else if (d === "drop" && decisionCode(c, { passes: 0, fails: p.n_cap }) !== DROP) {
      warnings.push(
        `Decision "drop" can never occur with these parameters: even ${p.n_cap} ${
          p.n_cap === 1 ? "fail" : "fails"
        } in a row ` +
          `give LLR ${num(p.n_cap * c.llrFail)}, above the lower boundary ${num(c.lower)}`,
      );
    } else if ((d === "cap-adopt" || d === "cap-drop") && undecided === null) {
      warnings.push(
        `Decision "${d}" can never occur with these parameters: every walk crosses a boundary ` +
          `before or at the cap (n = ${p.n_cap}), so the cap fallback is never used`,
      );
    } else if (d === "cap-adopt" && undecided !== null) {
      warnings.push(
        `Decision "cap-adopt" can never occur with these parameters: a walk still undecided at ` +
          `the cap (n = ${p.n_cap}) has at most ${passesText(undecided.max_passes)} (pass rate ${
            pct(undecided.max_pass_rate)
          }), below "p_adopt" (${pct(p.p_adopt)}); every run that exhausts the budget without ` +
          `crossing a boundary ends as "cap-drop", a conservative fallback outside the SPRT's ` +
          `error control`,
      );
    } else if (d === "cap-drop" && undecided !== null) {
      warnings.push(
        `Decision "cap-drop" can never occur with these parameters: a walk still undecided at ` +
          `the cap (n = ${p.n_cap}) has at least ${passesText(undecided.min_passes)} (pass rate ${
            pct(undecided.min_pass_rate)
          }), at or above "p_adopt" (${pct(p.p_adopt)}); every run that exhausts the budget ` +
          `without crossing a boundary ends as "cap-adopt", a fallback outside the SPRT's ` +
          `error control`,
      );
    } else {
      warnings.push(
        `Decision "${d}" can never occur with these parameters: no reachable state of the ` +
          `truncated walk (n ≤ ${p.n_cap}) yields it`,
      );
    }
  }
  return warnings;
}
