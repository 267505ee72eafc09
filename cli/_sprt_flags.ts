/**
 * The SPRT parameter flags shared by `sprt` and `calibrate`, and where the
 * parameters come from: the plan's pre-registered SPRT stopping rule, the
 * flags, or seed 002's defaults (never a mix of plan and flags).
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { parseSprtParams } from "../analysis/sprt/sprt_params.ts";
import type { Plan, SprtParams } from "../analysis/schema.ts";
import { numberOption, type ParsedArgs } from "./_args.ts";
import { UsageError } from "./_command.ts";

/** `--p-adopt`, `--p-drop`, `--alpha`, `--beta`, `--n-cap`. */
export const SPRT_OPTIONS = {
  "p-adopt": { type: "string" },
  "p-drop": { type: "string" },
  alpha: { type: "string" },
  beta: { type: "string" },
  "n-cap": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

/** Help lines for {@link SPRT_OPTIONS}. */
export const SPRT_OPTIONS_HELP =
  `  --p-adopt P      Pass rate worth adopting (default 0.60, seed 002)
  --p-drop P       Pass rate worth dropping (default 0.40)
  --alpha A        P(adopt) allowed at p_drop (default 0.10)
  --beta B         P(drop) allowed at p_adopt (default 0.10)
  --n-cap N        Valid results before the cap fallback (default 60)`;

/** Where the SPRT parameters came from. */
export type SprtParamsSource = "plan" | "flags" | "defaults";

/**
 * Resolves the SPRT parameters: from `plan.stopping` when a plan with an SPRT
 * stopping rule is given (then no flag may override them: they are
 * pre-registered), else from the flags over seed 002's defaults.
 *
 * @throws {UsageError} when flags would override a plan's SPRT parameters,
 *   or when the flags are out of range
 */
export function resolveSprtParams(
  values: ParsedArgs["values"],
  plan: { path: string; value: Plan } | null,
): { params: SprtParams; source: SprtParamsSource } {
  const given = Object.keys(SPRT_OPTIONS).filter((name) => values[name] !== undefined);
  if (plan !== null && plan.value.stopping.kind === "sprt") {
    if (given.length > 0) {
      throw new UsageError(
        `Option "--${given[0]}" cannot override plan "${plan.path}": ` +
          `its SPRT parameters are pre-registered`,
      );
    }
    return { params: parseSprtParams(plan.value.stopping.params), source: "plan" };
  }
  const input: Record<string, number> = {};
  const pAdopt = numberOption(values, "p-adopt", { above: 0, below: 1 });
  const pDrop = numberOption(values, "p-drop", { above: 0, below: 1 });
  const alpha = numberOption(values, "alpha", { above: 0, below: 1 });
  const beta = numberOption(values, "beta", { above: 0, below: 1 });
  const nCap = numberOption(values, "n-cap", { min: 1, integer: true });
  if (pAdopt !== undefined) input.p_adopt = pAdopt;
  if (pDrop !== undefined) input.p_drop = pDrop;
  if (alpha !== undefined) input.alpha = alpha;
  if (beta !== undefined) input.beta = beta;
  if (nCap !== undefined) input.n_cap = nCap;
  try {
    return { params: parseSprtParams(input), source: given.length > 0 ? "flags" : "defaults" };
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}

/** One line describing the parameters: `p_adopt 0.6, p_drop 0.4, …`. */
export function describeSprtParams(params: SprtParams): string {
  return `p_adopt ${params.p_adopt}, p_drop ${params.p_drop}, alpha ${params.alpha}, ` +
    `beta ${params.beta}, n_cap ${params.n_cap}`;
}
