import { deepEqual, equal, throws } from "node:assert/strict";
import { repeatedCheck } from "./verifier_flips.ts";

// Reference intervals: scipy 1.x, binomtest(k, n).proportion_ci(method="exact").
Deno.test("repeatedCheck() counts unexpected verdicts with their exact interval", () => {
  const steady = repeatedCheck(
    { resolved: 10, not_resolved: 0, no_verdict: 0 },
    { resolved: 0, not_resolved: 10, no_verdict: 0 },
  );
  deepEqual(
    [steady.unexpected, steady.verdicts, steady.flipped, steady.flake_only],
    [0, 20, false, false],
  );
  equal(steady.flip_rate.lower, 0);
  equal(steady.flip_rate.upper.toFixed(12), (0.16843347098308548).toFixed(12));

  // The untouched workspace resolved in 3 of 3 runs: a wrong verifier, not a flaky one.
  const wrong = repeatedCheck(
    { resolved: 3, not_resolved: 0, no_verdict: 0 },
    { resolved: 3, not_resolved: 0, no_verdict: 0 },
  );
  deepEqual([wrong.unexpected, wrong.flipped, wrong.flake_only], [3, false, false]);
  equal(wrong.flip_rate.lower.toFixed(12), (0.11811724875702524).toFixed(12));
  equal(wrong.flip_rate.upper.toFixed(12), (0.8818827512429748).toFixed(12));

  // A verifier fault in one oracle run of three: flipped, and each program was right once.
  const flaky = repeatedCheck(
    { resolved: 2, not_resolved: 0, no_verdict: 1 },
    { resolved: 0, not_resolved: 3, no_verdict: 0 },
  );
  deepEqual([flaky.unexpected, flaky.flipped, flaky.flake_only], [1, true, true]);

  // Flipped, but the oracle never resolved: more than flakiness.
  const both = repeatedCheck(
    { resolved: 0, not_resolved: 3, no_verdict: 0 },
    { resolved: 1, not_resolved: 2, no_verdict: 0 },
  );
  deepEqual([both.unexpected, both.flipped, both.flake_only], [4, true, false]);

  // No oracle: only the untouched workspace's runs count.
  const alone = repeatedCheck(null, { resolved: 0, not_resolved: 6, no_verdict: 0 });
  deepEqual([alone.verdicts, alone.unexpected, alone.flake_only], [6, 0, false]);
  equal(alone.flip_rate.upper.toFixed(12), (0.45925812643990044).toFixed(12));
});

Deno.test("repeatedCheck() refuses programs with different run counts", () => {
  throws(
    () =>
      repeatedCheck(
        { resolved: 1, not_resolved: 0, no_verdict: 0 },
        { resolved: 0, not_resolved: 2, no_verdict: 0 },
      ),
    RangeError,
  );
  throws(() => repeatedCheck(null, { resolved: 0, not_resolved: 0, no_verdict: 0 }), RangeError);
});
