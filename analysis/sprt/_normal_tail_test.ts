import { equal, ok } from "node:assert/strict";
import { normalTwoSidedTail } from "./_normal_tail.ts";

Deno.test("normalTwoSidedTail() matches scipy.special.erfc(z / sqrt(2))", () => {
  // scipy 1.17.1: scipy.special.erfc(z / math.sqrt(2))
  const cases: [number, number][] = [
    [0.5, 0.6170750774519739],
    [1, 0.31731050786291415],
    [1.96, 0.04999579029644087],
    [2.5, 0.012419330651552277],
    [3, 0.0026997960632601918],
    [3.5, 0.00046525815807105003],
    [4, 6.334248366623996e-05],
    [5, 5.73303143758389e-07],
    [8, 1.2441921148543658e-15],
    [10, 1.5239706048321166e-23],
    [30, 9.81342785429749e-198],
  ];
  for (const [z, expected] of cases) {
    const got = normalTwoSidedTail(z);
    ok(Math.abs(got - expected) <= 1e-13 * expected, `z ${z}: ${got} vs ${expected}`);
  }
  equal(normalTwoSidedTail(0), 1);
  equal(normalTwoSidedTail(Infinity), 0);
});
