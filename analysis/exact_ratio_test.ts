import { deepEqual, equal, throws } from "node:assert/strict";
import { compareRationals, decimalRational, outsideRelativeBand } from "./exact_ratio.ts";

const r = (numerator: bigint, denominator = 1n) => ({ numerator, denominator });

Deno.test("decimalRational() reads a number as the decimal it prints as", () => {
  deepEqual(decimalRational(0.1), r(1n, 10n));
  deepEqual(decimalRational(1.25), r(125n, 100n));
  deepEqual(decimalRational(0), r(0n));
  deepEqual(decimalRational(77_000), r(77_000n));
  // Exponent forms: String(1e-7) is "1e-7", String(1.5e21) is "1.5e+21".
  deepEqual(decimalRational(1e-7), r(1n, 10_000_000n));
  deepEqual(decimalRational(1.5e21), r(1_500_000_000_000_000_000_000n));
  // An integer sum of milliseconds over 1000 comes back exactly: 123456789 ms.
  deepEqual(decimalRational(123_456_789 / 1000), r(123_456_789n, 1000n));
  // The SPRT's parameters (issue 13, item 2): 0.3 is 3/10, and a double one ulp below 0.1 is its own decimal.
  deepEqual(decimalRational(0.3), r(3n, 10n));
  deepEqual(decimalRational(0.09999999999999999), r(9999999999999999n, 10n ** 17n));
  // String(1.5e-7) is "1.5e-7": exponent form below 1e-6; 1e21 is "1e+21".
  deepEqual(decimalRational(1.5e-7), r(15n, 10n ** 8n));
  deepEqual(decimalRational(1e21), r(10n ** 21n));
  throws(() => decimalRational(-1), /expected a finite number >= 0/);
  throws(() => decimalRational(NaN), /expected a finite number >= 0/);
  throws(() => decimalRational(Infinity), /expected a finite number >= 0/);
});

Deno.test("compareRationals() orders exactly", () => {
  equal(compareRationals(r(1n, 3n), r(2n, 6n)), 0);
  equal(compareRationals(r(70_000n, 3n), r(77_000n, 3n)), -1);
  equal(compareRationals(r(11n, 10n), r(1n)), 1);
});

Deno.test("outsideRelativeBand() holds the boundary inside the band", () => {
  const tenth = decimalRational(0.1);
  // 77000 / 3 vs 70000 / 3: exactly 10% apart (hand algebra), inside.
  equal(outsideRelativeBand([r(77_000n, 3n), r(70_000n, 3n)], tenth), false);
  equal(outsideRelativeBand([r(70_000n, 3n), r(77_001n, 3n)], tenth), true);
  // 1.0M vs 1.1M: inside; a zero against a positive value: outside any band; equal zeros: inside.
  equal(outsideRelativeBand([r(1_000_000n), r(1_100_000n)], tenth), false);
  equal(outsideRelativeBand([r(0n), r(5n)], r(10n ** 9n)), true);
  equal(outsideRelativeBand([r(0n), r(0n)], r(0n)), false);
  // Band 0: any difference is outside.
  equal(outsideRelativeBand([r(1000n, 7n), r(1001n, 7n)], r(0n)), true);
});
