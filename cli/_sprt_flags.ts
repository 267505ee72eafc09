/**
 * The SPRT parameter flags shared by `sprt` and `calibrate`, and where the
 * parameters come from: the plan's pre-registered SPRT stopping rule, the
 * flags, or seed 002's defaults (never a mix of plan and flags).
 *
 * @module
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { DEFAULT_SPRT } from "../analysis/defaults.ts";
import { parseSprtParams } from "../analysis/sprt/sprt_params.ts";
import { type Plan, SprtParams } from "../analysis/schema/records.ts";
import {
  type NumberOption,
  numberOption,
  type ParsedArgs,
  rangeText,
  schemaRange,
} from "./_args.ts";
import { UsageError } from "./_command.ts";

/** `--p-adopt`, `--p-drop`, `--alpha`, `--beta`, `--n-cap`. */
export const SPRT_OPTIONS = {
  "p-adopt": { type: "string" },
  "p-drop": { type: "string" },
  alpha: { type: "string" },
  beta: { type: "string" },
  "n-cap": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

/** Each SPRT flag, the plan field it sets and the schema's range. */
const SPRT_FLAGS: ReadonlyArray<readonly [keyof SprtParams, NumberOption]> = [
  ["p_adopt", { name: "p-adopt", range: schemaRange(SprtParams.shape.p_adopt) }],
  ["p_drop", { name: "p-drop", range: schemaRange(SprtParams.shape.p_drop) }],
  ["alpha", { name: "alpha", range: schemaRange(SprtParams.shape.alpha) }],
  ["beta", { name: "beta", range: schemaRange(SprtParams.shape.beta) }],
  ["n_cap", {
    name: "n-cap",
    range: schemaRange(SprtParams.shape.n_cap),
  }],
];

const range = (field: keyof SprtParams) =>
  rangeText(SPRT_FLAGS.find(([name]) => name === field)![1].range);

/** Help lines for {@link SPRT_OPTIONS}: ranges from the plan schema, defaults from seed 002. */
export const SPRT_OPTIONS_HELP = `  --p-adopt P      Pass rate worth adopting, ${range("p_adopt")}
                   (default ${DEFAULT_SPRT.p_adopt}, seed 002)
  --p-drop P       Pass rate worth dropping, ${range("p_drop")}, below p_adopt
                   (default ${DEFAULT_SPRT.p_drop})
  --alpha A        P(adopt) allowed at p_drop, ${range("alpha")}
                   (default ${DEFAULT_SPRT.alpha})
  --beta B         P(drop) allowed at p_adopt, ${range("beta")}
                   (default ${DEFAULT_SPRT.beta})
  --n-cap N        Valid results before the cap fallback, ${range("n_cap")}
                   (default ${DEFAULT_SPRT.n_cap})`;

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
  const input: Partial<Record<keyof SprtParams, number>> = {};
  for (const [field, option] of SPRT_FLAGS) {
    const value = numberOption(values, option);
    if (value !== undefined) input[field] = value;
  }
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
