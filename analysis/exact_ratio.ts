/**
 * Exact rational arithmetic (BigInt) for the decisions that sit on a
 * boundary: the tie band of seed 001's rule and the pilot's budget check
 * (issue 13, items 1 and 3: floating point decided exact 10% gaps and exact
 * fits by rounding).
 *
 * @module
 */

/** A non-negative rational number numerator / denominator, denominator > 0. */
export interface Rational {
  /** Numerator, ≥ 0. */
  numerator: bigint;
  /** Denominator, > 0. */
  denominator: bigint;
}

/**
 * The exact rational a number was written as: its shortest round-trip
 * decimal representation (JavaScript's `String(x)`), so 0.1 is 1/10 and 1.25
 * is 125/100, not the binary double nearest to them.
 *
 * Rule: a parameter such as a tie band or a safety factor is chosen and
 * written in decimal; its shortest decimal is the value meant. A sum of
 * integer milliseconds over 1000 (seconds) is also recovered exactly while
 * it has at most 15 significant digits. Source: ECMAScript
 * Number::toString (shortest representation). Cost: O(digits).
 *
 * @param x a finite number ≥ 0
 * @returns the decimal as numerator / 10^digits (not reduced)
 * @throws {RangeError} when `x` is negative or not finite
 * @example
 * ```ts
 * import { decimalRational } from "./exact_ratio.ts";
 * const band = decimalRational(0.1);
 * if (band.numerator !== 1n || band.denominator !== 10n) throw new Error();
 * ```
 */
export function decimalRational(x: number): Rational {
  if (!(Number.isFinite(x) && x >= 0)) {
    throw new RangeError(`Cannot take the decimal of ${x}: expected a finite number >= 0`);
  }
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(x))!;
  const fraction = match[2] ?? "";
  const exponent = Number(match[3] ?? "0") - fraction.length;
  const digits = BigInt(match[1] + fraction);
  return exponent >= 0
    ? { numerator: digits * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-exponent) };
}

/**
 * Compares two rationals exactly by cross-multiplication. O(digits²).
 *
 * @param x one rational
 * @param y the other
 * @returns −1 when x < y, 0 when equal, 1 when x > y
 * @example
 * ```ts
 * import { compareRationals } from "./exact_ratio.ts";
 * const third = { numerator: 1n, denominator: 3n };
 * if (compareRationals(third, { numerator: 2n, denominator: 6n }) !== 0) throw new Error();
 * ```
 */
export function compareRationals(x: Rational, y: Rational): -1 | 0 | 1 {
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Whether two non-negative values lie outside a relative tie band of each
 * other, decided exactly: |x − y| > band × min(x, y), i.e. the relative
 * difference |x − y| / min(x, y) exceeds the band (a zero minimum with a
 * positive other is an infinite difference, outside any band; equal values
 * are inside). Seed 001's rule: "within the band is a tie" holds at the
 * boundary, so 77,000 against 70,000 is exactly 10% apart and inside a 10%
 * band. With x = a/b, y = c/d and band = p/q the test is
 * q·|a·d − c·b| > p·min(a·d, c·b), all in BigInt. O(digits²).
 *
 * @param values the two values, as rationals
 * @param band the relative band, as a rational (e.g. `decimalRational(0.1)`)
 * @returns true when the values differ by more than the band
 * @example
 * ```ts
 * import { outsideRelativeBand } from "./exact_ratio.ts";
 * const r = (n: bigint, d = 1n) => ({ numerator: n, denominator: d });
 * const tenth = r(1n, 10n);
 * if (outsideRelativeBand([r(77_000n, 3n), r(70_000n, 3n)], tenth)) throw new Error("exact 10%");
 * if (!outsideRelativeBand([r(77_001n, 3n), r(70_000n, 3n)], tenth)) throw new Error("over 10%");
 * ```
 */
export function outsideRelativeBand(
  values: readonly [Rational, Rational],
  band: Rational,
): boolean {
  const [x, y] = values;
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  const difference = left > right ? left - right : right - left;
  const min = left < right ? left : right;
  return band.denominator * difference > band.numerator * min;
}
