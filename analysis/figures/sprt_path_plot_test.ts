import assert from "node:assert/strict";
import { replaySprt } from "../sprt/replay_sprt.ts";
import { sprtPathPlot } from "./sprt_path_plot.ts";
import { type Node, nodes, row, rowsWith, subtitle } from "./_spec_for_test.ts";

const LN9 = Math.log(9); // seed 002: ln((1 − 0.1) / 0.1) = 2.1972245773

Deno.test("sprtPathPlot() draws the ±2.197 boundaries of the seed-002 defaults", () => {
  // Six passes adopt at the defaults (seed 002: +6 net crosses ln 9 since 6 × ln 1.5 = 2.43).
  const rows = [1, 2, 3, 4, 5, 6].map((i) => row({ task_id: `t${i}` }));
  const spec = sprtPathPlot(replaySprt(rows, { agentId: "a" }));
  const [lines] = rowsWith(spec, "name", "llr", "text");
  assert.deepEqual(lines.map((l) => l.name), ["adopt", "drop"]);
  assert.ok(Math.abs((lines[0].llr as number) - LN9) < 1e-12);
  assert.ok(Math.abs((lines[1].llr as number) + LN9) < 1e-12);
  assert.deepEqual(lines.map((l) => l.text), ["adopt: LLR ≥ 2.197", "drop: LLR ≤ −2.197"]);
  assert.match(subtitle(spec), /Verdict: adopt after 6 valid results \(6 attempts\)/);
  assert.match(subtitle(spec), /pass \+0\.4055, fail −0\.4055/);
});

Deno.test("sprtPathPlot() marks invalid attempts, which leave the LLR unchanged", () => {
  // pass, invalid, fail, invalid: LLR ln 1.5, ln 1.5, 0, 0 (seed 002: invalid
  // attempts count neither as pass nor fail). Invalid rate 2/4 = 50%.
  const invalid = { status: "invalid", resolved: null, invalid_reason: "provider_fault" };
  const rows = [
    row({ task_id: "t1" }),
    row({ task_id: "t2", ...invalid }),
    row({ task_id: "t3", resolved: false }),
    row({ task_id: "t4", ...invalid }),
  ];
  const spec = sprtPathPlot(replaySprt(rows, { agentId: "a" }));
  const [path] = rowsWith(spec, "attempt", "llr", "n");
  assert.deepEqual(path.map((p) => p.attempt), [0, 1, 2, 3, 4]);
  const step = Math.log(1.5);
  const expected = [0, step, step, 0, 0];
  path.forEach((p, i) => assert.ok(Math.abs((p.llr as number) - expected[i]) < 1e-12));
  const [marks] = rowsWith(spec, "attempt", "llr", "outcome");
  assert.deepEqual(marks.map((m) => m.outcome), [
    "pass (LLR up)",
    "invalid attempt (neither; LLR unchanged)",
    "fail (LLR down)",
    "invalid attempt (neither; LLR unchanged)",
  ]);
  assert.match(subtitle(spec), /2 invalid of 4 attempts \(50\.0% invalid rate\)/);
  assert.match(subtitle(spec), /No verdict: the ledger ends after 2 valid results \(4 attempts\)/);
  assert.ok(JSON.stringify(spec).includes('"cross"'));
});

Deno.test("sprtPathPlot() follows the plan's parameters", () => {
  // alpha = beta = 0.05: boundaries ±ln(0.95 / 0.05) = ±ln 19 = ±2.944.
  const rows = [row({ task_id: "t1", resolved: false })];
  const spec = sprtPathPlot(
    replaySprt(rows, { agentId: "a", params: { alpha: 0.05, beta: 0.05 } }),
  );
  const [lines] = rowsWith(spec, "name", "llr", "text");
  assert.ok(Math.abs((lines[0].llr as number) - Math.log(19)) < 1e-12);
  assert.deepEqual(lines.map((l) => l.text), ["adopt: LLR ≥ 2.944", "drop: LLR ≤ −2.944"]);
});

Deno.test("sprtPathPlot() names the order the attempts were walked in on the x axis", () => {
  const rows = [row({ task_id: "t2" }), row({ task_id: "t1", resolved: false })];
  const xTitles = (spec: ReturnType<typeof sprtPathPlot>) => [
    ...new Set(
      nodes(spec).map((n) =>
        ((n.encoding as Node | undefined)?.x as Node | undefined)?.axis as Node | undefined
      ).filter((axis) => axis?.title !== undefined).map((axis) => axis!.title),
    ),
  ];
  // Without a plan replaySprt walks the file order; with one, the plan's task order.
  assert.deepEqual(xTitles(sprtPathPlot(replaySprt(rows, { agentId: "a" }))), [
    "Attempt in ledger file order (count, invalid attempts included)",
  ]);
  const planned = replaySprt(rows, { agentId: "a", order: ["t1", "t2"] });
  assert.equal(planned.order, "planned");
  assert.deepEqual(xTitles(sprtPathPlot(planned)), [
    "Attempt in the plan's task order (count, invalid attempts included)",
  ]);
});
