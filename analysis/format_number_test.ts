import { equal, throws } from "node:assert/strict";
import { formatGrouped, formatPercent, formatPercentExact } from "./format_number.ts";

Deno.test("formatGrouped() groups thousands, rounds with Math.round and writes the given minus", () => {
  // Hand-derived: Math.round(1234567.4) = 1234567; Math.round(-2.5) = -2; Math.round(-0.4) = -0.
  equal(formatGrouped(1234567.4), "1,234,567");
  equal(formatGrouped(999), "999");
  equal(formatGrouped(1000), "1,000");
  equal(formatGrouped(-2.5), "-2");
  equal(formatGrouped(-0.4), "0");
  equal(formatGrouped(-1234567, { minus: "\u2212" }), "\u22121,234,567");
});

Deno.test("formatGrouped() with digits keeps toFixed's decimals and drops the sign of a zero", () => {
  // Hand-derived from toFixed: (1234.5).toFixed(2) = "1234.50"; (0.001).toFixed(2) = "0.00".
  equal(formatGrouped(1234.5, { digits: 2 }), "1,234.50");
  equal(formatGrouped(-1234.5, { digits: 2 }), "-1,234.50");
  equal(formatGrouped(-0.001, { digits: 2 }), "0.00");
  equal(formatGrouped(-0.006, { digits: 2, minus: "\u2212" }), "\u22120.01");
  equal(formatGrouped(1234567.891, { digits: 0 }), "1,234,568");
});

Deno.test("formatPercent() writes 100 x with fixed decimals", () => {
  // Hand-derived: 100 × 0.75 = 75; 100 × 0.125 = 12.5, toFixed(0) rounds half up to "13".
  equal(formatPercent(0.75), "75.0%");
  equal(formatPercent(0.125, 0), "13%");
  equal(formatPercent(1 / 3, 2), "33.33%");
  equal(formatPercent(0), "0.0%");
});

Deno.test("formatPercentExact() writes a setting with the decimals it needs", () => {
  // Hand computation: 100 × 0.125 = 12.5 (formatPercent(0.125, 0) would round it to "13%").
  equal(formatPercentExact(0.125), "12.5%");
  // The default tie band (seed 001: 10%) and censoring threshold (seed 003: 2%) read as before.
  equal(formatPercentExact(0.1), "10%");
  equal(formatPercentExact(0.02), "2%");
  // 100 × 0.07 = 7.000000000000001 in floats: the noise is rounded away.
  equal(formatPercentExact(0.07), "7%");
  // 100 × 0.145 = 14.499999999999998 in floats -> "14.5%"; 0.1225 -> 12.25 exactly as written.
  equal(formatPercentExact(0.145), "14.5%");
  equal(formatPercentExact(0.1225), "12.25%");
  // At most maxDigits (default 4) decimals: 100/3 = 33.3333...
  equal(formatPercentExact(1 / 3), "33.3333%");
  equal(formatPercentExact(1 / 3, { maxDigits: 2 }), "33.33%");
  equal(formatPercentExact(0), "0%");
  equal(formatPercentExact(1), "100%");
  // minDigits keeps trailing zeros up to that many decimals (the CLI's one-decimal style).
  equal(formatPercentExact(0.1, { minDigits: 1 }), "10.0%");
  equal(formatPercentExact(0.125, { minDigits: 1 }), "12.5%");
  equal(formatPercentExact(0.1225, { minDigits: 1 }), "12.25%");
  throws(() => formatPercentExact(0.1, { minDigits: 3, maxDigits: 2 }), RangeError);
});
