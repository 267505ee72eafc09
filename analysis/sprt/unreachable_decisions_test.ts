import { deepEqual, equal, ok } from "node:assert/strict";
import { unreachableDecisions } from "./unreachable_decisions.ts";
import { sprtOperatingCharacteristic } from "./sprt_operating_characteristic.ts";
import { SPRT_FINAL_DECISIONS } from "./sprt_decision.ts";
import type { SprtParamsInput } from "./sprt_params.ts";

Deno.test("unreachableDecisions() finds seed 002's unreachable cap-adopt", () => {
  // Seed 002: "默认参数下，cap-adopt 实际不会出现". Undecided at n = 60 means |net| ≤ 4 with net
  // even (n is even): net ∈ {−4, −2, 0, 2, 4}, passes = (60 + net)/2 ∈ {28, ..., 32}.
  const r = unreachableDecisions({});
  deepEqual(r.unreachable, ["cap-adopt"]);
  deepEqual(r.reachable, { adopt: true, drop: true, "cap-adopt": false, "cap-drop": true });
  // +6 net needs at least 6 results; the cap fallback only at n = 60.
  deepEqual(r.earliest, { adopt: 6, drop: 6, "cap-adopt": null, "cap-drop": 60 });
  const cap = r.undecided_at_cap;
  ok(cap !== null);
  equal(cap.n, 60);
  equal(cap.max_passes, 32); // seed 002: "成功数最多 32"
  equal(cap.min_passes, 28);
  equal(cap.states, 5); // net −4, −2, 0, 2, 4
  ok(Math.abs(cap.max_pass_rate - 32 / 60) < 1e-15); // 53.3% < 60%
  equal(r.warnings.length, 1);
  ok(r.warnings[0].startsWith('Decision "cap-adopt" can never occur with these parameters'));
  ok(r.warnings[0].includes("at most 32 passes (pass rate 53.3%)"), r.warnings[0]);
  ok(r.warnings[0].includes('below "p_adopt" (60.0%)'), r.warnings[0]);
});

Deno.test("unreachableDecisions() explains boundaries out of reach of a short cap", () => {
  // n_cap 4: at most 4·ln 1.5 = 1.6219 < ln 9 = 2.1972; cap-adopt needs 3 of 4 (≥ 60%).
  const r = unreachableDecisions({ n_cap: 4 });
  deepEqual(r.unreachable, ["adopt", "drop"]);
  deepEqual(r.warnings, [
    'Decision "adopt" can never occur with these parameters: even 4 passes in a row give LLR ' +
    "1.6219, below the upper boundary 2.1972",
    'Decision "drop" can never occur with these parameters: even 4 fails in a row give LLR ' +
    "-1.6219, above the lower boundary -2.1972",
  ]);
});

Deno.test("unreachableDecisions() sees when the first result always decides", () => {
  // alpha = beta = 0.45: boundaries ±ln(0.55/0.45) = ±0.2007, inside one step of ±0.4055.
  const r = unreachableDecisions({ alpha: 0.45, beta: 0.45 });
  deepEqual(r.unreachable, ["cap-adopt", "cap-drop"]);
  equal(r.undecided_at_cap, null);
  ok(r.warnings.every((w) => w.includes("every walk crosses a boundary before or at the cap")));
});

Deno.test("unreachableDecisions() finds an unreachable cap-drop", () => {
  // p_adopt 0.5, p_drop 0.01, alpha 0.001, beta 0.3, n_cap 2: a pass adds ln 50 = 3.912, a fail
  // ln(0.5/0.99) = −0.683; upper ln 700 = 6.551, lower ln(0.3/0.999) = −1.203. At n = 2: (2, 0)
  // adopts, (0, 2) drops (−1.366), (1, 1) is undecided with 1/2 ≥ 0.5: cap-adopt.
  const r = unreachableDecisions({ p_adopt: 0.5, p_drop: 0.01, alpha: 0.001, beta: 0.3, n_cap: 2 });
  deepEqual(r.unreachable, ["cap-drop"]);
  ok(r.warnings[0].includes("at least 1 pass (pass rate 50.0%)"), r.warnings[0]);
});

Deno.test("unreachableDecisions() warns when alpha + beta ≥ 1", () => {
  const r = unreachableDecisions({ alpha: 0.6, beta: 0.7, n_cap: 5 });
  ok(r.warnings[0].startsWith("The boundaries do not bracket the start"), r.warnings[0]);
});

Deno.test("unreachableDecisions() agrees with the exact DP on a parameter grid", () => {
  // Independent computations: a branch is unreachable iff its exact probability is 0 at a rate
  // strictly inside (0, 1) (every reachable state then has positive probability).
  let checked = 0;
  for (const n_cap of [1, 2, 3, 5, 8, 13, 30, 60]) {
    for (const [p_adopt, p_drop] of [[0.6, 0.4], [0.7, 0.5], [0.55, 0.2], [0.9, 0.8]]) {
      for (const [alpha, beta] of [[0.1, 0.1], [0.05, 0.2], [0.3, 0.01], [0.45, 0.45]]) {
        const params: SprtParamsInput = { p_adopt, p_drop, alpha, beta, n_cap };
        const r = unreachableDecisions(params);
        const oc = sprtOperatingCharacteristic(params, 0.5);
        for (const d of SPRT_FINAL_DECISIONS) {
          equal(r.reachable[d], oc.decisions[d] > 0, `${d} ${JSON.stringify(params)}`);
        }
        checked++;
      }
    }
  }
  equal(checked, 128);
});
