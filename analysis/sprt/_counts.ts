import type { SprtCounts } from "./sprt_counts.ts";

/** Checks pass/fail counts given to the exported functions. */
export function checkCounts(action: string, counts: SprtCounts): void {
  for (const [name, value] of [["passes", counts.passes], ["fails", counts.fails]] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(
        `Cannot ${action}: "${name}" must be a non-negative integer, got "${String(value)}"`,
      );
    }
  }
}

/** Checks a true pass rate given to the calibration functions. */
export function checkRate(action: string, pTrue: number): void {
  if (typeof pTrue !== "number" || !(pTrue >= 0 && pTrue <= 1)) {
    throw new RangeError(`Cannot ${action}: "p_true" must be in [0, 1], got "${String(pTrue)}"`);
  }
}
