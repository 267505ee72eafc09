/**
 * Fixed, locale-free number formatting (no `toLocaleString`, no `Intl`), so
 * that the same results give the same bytes on every machine (house style
 * rule 4). The figures (`analysis/figures/`) and the report (`report/`) both
 * format through these; they differ only in the minus sign they pass.
 *
 * @module
 */

/** Options of {@linkcode formatGrouped}. */
export interface FormatGroupedOptions {
  /** Decimals to keep (`toFixed`); absent rounds to an integer with `Math.round`. */
  digits?: number;
  /** The minus sign; default `"-"` (the figures pass U+2212). */
  minus?: string;
}

/**
 * `x` with comma grouping of its integer part, in thousands.
 *
 * Rule: without `digits`, r = Math.round(x) and the digits of |r| get a comma
 * before every group of three from the right, the minus sign when r < 0
 * (`1234567.4` → `"1,234,567"`, `-0.4` → `"0"`). With `digits`, |x| is
 * written with `toFixed(digits)`, its integer part grouped as above and the
 * minus sign kept only when the written value is not zero (`-1234.5`, 2 →
 * `"-1,234.50"`, `-0.001`, 2 → `"0.00"`). O(number of digits).
 *
 * @param x a finite number
 * @param options `digits` and the `minus` sign
 * @returns the grouped text
 * @example
 * ```ts
 * import { formatGrouped } from "./format_number.ts";
 * if (formatGrouped(1234567.4) !== "1,234,567") throw new Error("integer");
 * if (formatGrouped(-1234.5, { digits: 2, minus: "\u2212" }) !== "\u22121,234.50") throw new Error();
 * ```
 */
export function formatGrouped(x: number, options: FormatGroupedOptions = {}): string {
  const minus = options.minus ?? "-";
  if (options.digits === undefined) {
    const rounded = Math.round(x);
    const digits = String(Math.abs(rounded));
    let out = "";
    for (let i = 0; i < digits.length; i++) {
      if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
      out += digits[i];
    }
    return (rounded < 0 ? minus : "") + out;
  }
  const fixed = Math.abs(x).toFixed(options.digits);
  const [whole, fraction] = fixed.split(".");
  const sign = x < 0 && Number(fixed) !== 0 ? minus : "";
  return sign + formatGrouped(Number(whole)) + (fraction === undefined ? "" : `.${fraction}`);
}

/**
 * A rate as a percentage with fixed decimals: `toFixed(digits)` of 100 x and
 * a percent sign (`0.75` → `"75.0%"`, `0.125`, 0 → `"13%"`). O(1).
 *
 * @param x the rate (a proportion, 1 = 100%)
 * @param digits decimals (default 1)
 * @returns the percentage text
 * @example
 * ```ts
 * import { formatPercent } from "./format_number.ts";
 * if (formatPercent(0.75) !== "75.0%" || formatPercent(0.1, 0) !== "10%") throw new Error();
 * ```
 */
export function formatPercent(x: number, digits = 1): string {
  return `${(100 * x).toFixed(digits)}%`;
}

/** Options for {@link formatPercentExact}. */
export interface FormatPercentExactOptions {
  /** Fewest decimals written (trailing zeros kept up to here); default 0. */
  minDigits?: number;
  /** Most decimals written; default 4. */
  maxDigits?: number;
}

/**
 * A setting (tie band, censoring threshold) as a percentage that reads
 * exactly as set: as many decimals as the value needs, at least `minDigits`
 * and at most `maxDigits`, no float noise (`0.1` → `"10%"`, `0.125` →
 * `"12.5%"`, where `formatPercent(0.125, 0)` says `"13%"`; `0.07` → `"7%"`,
 * not `"7.000000000000001%"`).
 *
 * Rule: `toFixed(maxDigits)` of 100 x (which rounds away the noise of the
 * multiplication), then trailing zeros of the decimals removed while more
 * than `minDigits` decimals remain, and the point removed when none remain.
 * With `minDigits` 1, `0.1` → `"10.0%"` and `0.1225` → `"12.25%"`. O(1).
 *
 * @param x the setting as a proportion (1 = 100%), finite
 * @param options `minDigits` (default 0) and `maxDigits` (default 4)
 * @returns the percentage text
 * @throws {RangeError} when the digit counts are not integers with
 *   0 ≤ minDigits ≤ maxDigits ≤ 20
 * @example
 * ```ts
 * import { formatPercentExact } from "./format_number.ts";
 * if (formatPercentExact(0.125) !== "12.5%" || formatPercentExact(0.1) !== "10%") throw new Error();
 * ```
 */
export function formatPercentExact(x: number, options: FormatPercentExactOptions = {}): string {
  const minDigits = options.minDigits ?? 0;
  const maxDigits = options.maxDigits ?? 4;
  if (
    !(Number.isInteger(minDigits) && Number.isInteger(maxDigits) && 0 <= minDigits &&
      minDigits <= maxDigits && maxDigits <= 20)
  ) {
    throw new RangeError(
      `Cannot format a percentage: need integers 0 <= "minDigits" <= "maxDigits" <= 20, got ` +
        `${minDigits} and ${maxDigits}`,
    );
  }
  let text = (100 * x).toFixed(maxDigits);
  let decimals = maxDigits;
  while (decimals > minDigits && text.endsWith("0")) {
    text = text.slice(0, -1);
    decimals--;
  }
  if (decimals === 0 && text.endsWith(".")) text = text.slice(0, -1);
  return `${text}%`;
}
